package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * What the graph ({@link ChainOrder}) says of one key's chains of versions (docs/DESIGN.md §11.4, "Chains, not pairs"): chain
 * {@code i} is ordered before chain {@code j} when its last commit reaches {@code j}'s first start. For a chain, which of the
 * others are unordered with it, and which may come first after it in some order; for the initial version, which chains may
 * come first. Chains are numbered {@code 0 .. m-1} as given; every answer is exact, none passes over all pairs: per cover
 * chain, the heads sorted by position, those a chain reaches form a suffix, and of those before it the ones whose last
 * commit reaches it are tested through {@link ChainOrder#lastReaching} (a prefix, where a chain's last commit lies on its
 * head's cover chain).
 */
final class KeyChainOrder {
    private final ChainOrder o;
    private final int[] heads, tails;
    /** Sorted by (cover chain, position) of the head: the chain, its head's position, its last commit's position (INF: elsewhere), the largest of those so far in its group. */
    private final int[] chain, a, b, maxB;
    /** Per group (a cover chain): where it starts in the sorted arrays (one more entry: the end), and its cover chain. */
    private final int[] groupStart, groupCover;

    private KeyChainOrder(ChainOrder o, int[] heads, int[] tails, int[] chain, int[] a, int[] b, int[] maxB, int[] groupStart, int[] groupCover) {
        this.o = o;
        this.heads = heads;
        this.tails = tails;
        this.chain = chain;
        this.a = a;
        this.b = b;
        this.maxB = maxB;
        this.groupStart = groupStart;
        this.groupCover = groupCover;
    }

    /**
     * The order of the chains whose first starts are {@code heads} and last commits {@code tails} (vertices of {@code o}'s
     * graph), or null when a head has no cover chain.
     */
    static KeyChainOrder of(ChainOrder o, int[] heads, int[] tails) {
        int m = heads.length;
        Integer[] sorted = new Integer[m];
        for (int j = 0; j < m; j++) {
            if (o.chainOf(heads[j]) == ChainOrder.NONE) return null;
            sorted[j] = j;
        }
        Arrays.sort(sorted, (x, y) -> {
            int cx = o.chainOf(heads[x]), cy = o.chainOf(heads[y]);
            return cx != cy ? Integer.compare(cx, cy) : Integer.compare(o.position(heads[x]), o.position(heads[y]));
        });
        int[] chain = new int[m], a = new int[m], b = new int[m], maxB = new int[m];
        IntVec groupStart = new IntVec(), groupCover = new IntVec();
        for (int j = 0; j < m; j++) {
            int ch = sorted[j], cover = o.chainOf(heads[ch]);
            if (j == 0 || cover != groupCover.last()) { groupStart.add(j); groupCover.add(cover); }
            chain[j] = ch;
            a[j] = o.position(heads[ch]);
            b[j] = o.chainOf(tails[ch]) == cover ? o.position(tails[ch]) : ChainOrder.INF;
            maxB[j] = j == groupStart.last() ? b[j] : Math.max(maxB[j - 1], b[j]);
        }
        groupStart.add(m);
        return new KeyChainOrder(o, heads, tails, chain, a, b, maxB, groupStart.toArray(), groupCover.toArray());
    }

    private int groups() { return groupCover.length; }

    /** The chains that may come first of all: the first of each cover chain that no other such precedes. */
    int[] firstOfAll() {
        IntVec firsts = new IntVec();
        for (int gi = 0; gi < groups(); gi++) firsts.add(chain[groupStart[gi]]);
        return unpreceded(firsts);
    }

    /**
     * For chain {@code x}: adds to {@code unordered} every chain after it in number that the graph leaves unordered with it,
     * and returns the chains ordered after it that may come first after it (the first it reaches on each cover chain, that
     * no other such precedes).
     */
    int[] scan(int x, IntVec unordered) {
        IntVec reachedFirst = new IntVec();
        for (int gi = 0; gi < groups(); gi++) {
            int gs = groupStart[gi], ge = groupStart[gi + 1], cover = groupCover[gi];
            int reached = lowerBound(a, gs, ge, o.firstReached(tails[x], cover));
            if (reached < ge) reachedFirst.add(chain[reached]);
            // before it on the cover chain: x's predecessors (their last commit reaches x's first start) and the unordered
            int reaching = o.lastReaching(heads[x], cover);
            for (int j = reached - 1; j >= gs && maxB[j] > reaching; j--) {
                int z = chain[j];
                if (z <= x) continue; // (x itself; and each unordered pair once, from its smaller chain)
                if (b[j] == ChainOrder.INF ? !o.reaches(tails[z], heads[x]) : b[j] > reaching) unordered.add(z);
            }
        }
        return unpreceded(reachedFirst);
    }

    /** Of chains {@code cs}, those no other of them precedes (its last commit reaching their first start). */
    private int[] unpreceded(IntVec cs) {
        Integer[] byTopo = new Integer[cs.size()];
        for (int i = 0; i < byTopo.length; i++) byTopo[i] = cs.get(i);
        Arrays.sort(byTopo, (x, y) -> Integer.compare(o.topoIndex(heads[x]), o.topoIndex(heads[y])));
        IntVec kept = new IntVec();
        for (int y : byTopo) {
            boolean preceded = false;
            for (int i = 0; i < kept.size() && !preceded; i++) preceded = o.reaches(tails[kept.get(i)], heads[y]);
            if (!preceded) kept.add(y);
        }
        return kept.toArray();
    }

    /** The first index in {@code a[from .. to)} (ascending) whose value is at least {@code v}. */
    private static int lowerBound(int[] a, int from, int to, int v) {
        int lo = from, hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < v) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
