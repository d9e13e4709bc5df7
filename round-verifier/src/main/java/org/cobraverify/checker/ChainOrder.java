package org.cobraverify.checker;

import java.util.Arrays;

/**
 * What an acyclic graph already says about its paths, both ways, in the chain cover of {@link Reachability}: for a vertex v
 * and a cover chain i, the first position on i that v reaches ({@link #firstReached}) and the last position on i that
 * reaches v ({@link #lastReaching}). A vertex u on chain i reaches v iff u's position is at most {@code lastReaching(v, i)}
 * (a chain is a path, so every earlier position of it reaches what a later one does); v reaches u iff it is at least
 * {@code firstReached(v, i)}. Snapshot isolation's checker finds with it which of a key's chains of versions the graph leaves
 * unordered without testing every pair (docs/DESIGN.md §11.4, "Chains, not pairs"). Space: two tables of n·C ints.
 */
final class ChainOrder {
    static final int NONE = -1, INF = Integer.MAX_VALUE;
    private final Reachability forward;
    private final int[] last;
    private final int[] topoIndex;

    private ChainOrder(Reachability forward, int[] last, int[] topoIndex) {
        this.forward = forward;
        this.last = last;
        this.topoIndex = topoIndex;
    }

    /**
     * The order of the live vertices of {@code g}: null when they are not acyclic (the caller reports the cycle), or when the two
     * tables would exceed {@code maxCells} cells in all ({@link ReachabilityEngine.TooLarge}, thrown).
     */
    static ChainOrder of(KnownGraph g, boolean[] live, int[] sessionPred, long maxCells) {
        KnownGraph.Csr out = g.outCsr();
        int[] topo = CycleFinder.topologicalOrder(g, out, live, null);
        if (topo == null) return null;
        KnownGraph.Csr in = g.csr(g.edgeCount(), true);
        Reachability r = new Reachability(new ReachabilityEngine.Dag(g.n, out.start, out.target, topo, sessionPred), maxCells / 2);
        int c = r.chains;
        long cells = (long) g.n * c;
        if (2 * cells > maxCells) throw new ReachabilityEngine.TooLarge("the order of " + g.n + " vertices x " + c + " chains would not fit in memory");
        int[] last = new int[(int) cells];
        Arrays.fill(last, NONE);
        for (int v : topo) {
            int base = v * c;
            for (int p = in.start[v]; p < in.start[v + 1]; p++) {
                int ub = in.target[p] * c;
                for (int k = 0; k < c; k++) if (last[ub + k] > last[base + k]) last[base + k] = last[ub + k];
            }
            if (r.chainOf[v] >= 0) last[base + r.chainOf[v]] = r.pos[v];
        }
        int[] topoIndex = new int[g.n];
        Arrays.fill(topoIndex, -1);
        for (int i = 0; i < topo.length; i++) topoIndex[topo[i]] = i;
        return new ChainOrder(r, last, topoIndex);
    }

    /** Whether a path leads from {@code u} to {@code v} (of length zero when they are one). */
    boolean reaches(int u, int v) { return forward.reaches(u, v); }

    /** The cover chain of {@code v} ({@link #NONE} for a vertex nothing reaches and that has no successor of its session). */
    int chainOf(int v) { return forward.chainOf[v]; }

    /** {@code v}'s position on its cover chain. */
    int position(int v) { return forward.pos[v]; }

    /** The first position on chain {@code i} that {@code v} reaches, or {@link #INF}. */
    int firstReached(int v, int i) { return forward.reach[v * forward.chains + i]; }

    /** The last position on chain {@code i} that reaches {@code v}, or {@link #NONE}. */
    int lastReaching(int v, int i) { return last[v * forward.chains + i]; }

    /** {@code v}'s place in one topological order: a vertex that reaches another comes before it. */
    int topoIndex(int v) { return topoIndex[v]; }
}
