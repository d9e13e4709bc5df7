package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * Step 5: coalesced constraints. For two chains i and j of one key, exactly one of two edge sets holds:
 * side A (i before j): every reader of i's tail version (or the tail itself, if unread) → head of j;
 * side B: the mirror image. All readers of a version share one constraint. Two chains that are each a
 * single unread write need none: every serial order puts one of them first, and no read observes which. Edges are not stored: they
 * are generated from the chains on demand ({@link #sources}, {@link #target}).
 *
 * <p>docs/DESIGN.md §4, step 5.
 */
final class Constraints {
    final Chains chains;
    final IntVec first = new IntVec(), second = new IntVec();
    boolean[] active;
    int activeCount;
    /** The side each constraint took when search or decomposition chose it ({@link #choose}); pruning's forced sides are not recorded. */
    boolean[] choseB;

    /** Pairs of single unread writes left out: no read tells their order, and any serial order puts one first. */
    int trivial;

    Constraints(Chains ch) {
        this.chains = ch;
        int keys = ch.keyChainStart.length - 1;
        for (int k = 0; k < keys; k++) {
            int s = ch.keyChainStart[k], e = ch.keyChainStart[k + 1];
            for (int a = s; a < e; a++)
                for (int b = a + 1; b < e; b++) {
                    int ca = ch.chainsByKey[a], cb = ch.chainsByKey[b];
                    if (lone(ch, ca) && lone(ch, cb)) { trivial++; continue; }
                    first.add(ca);
                    second.add(cb);
                }
        }
        active = new boolean[first.size()];
        choseB = new boolean[first.size()];
        Arrays.fill(active, true);
        activeCount = first.size();
    }

    /**
     * A chain of one unread write: a constraint between two such is "w1 before w2, or w2 before w1", which
     * every serial order satisfies (the one that comes first in it is first in the key's version order).
     */
    private static boolean lone(Chains ch, int c) {
        return ch.chainHead.get(c) == ch.chainTail.get(c) && ch.rtIsTail[ch.rtStart[c]];
    }

    int size() { return first.size(); }

    /** The chain whose readers are the sources of side {@code sideB ? B : A}. */
    int fromChain(int c, boolean sideB) { return sideB ? second.get(c) : first.get(c); }

    /** Target of every edge of a side: the head of the other chain. */
    int target(int c, boolean sideB) { return chains.chainHead.get(sideB ? first.get(c) : second.get(c)); }

    int sourcesStart(int c, boolean sideB) { return chains.rtStart[fromChain(c, sideB)]; }

    int sourcesEnd(int c, boolean sideB) { return chains.rtStart[fromChain(c, sideB) + 1]; }

    int key(int c) { return chains.chainKey.get(first.get(c)); }

    /** Adds the edges of one side to the known graph, each recording why. */
    void addSide(KnownGraph g, int c, boolean sideB, int derivation) { addSide(g, c, sideB, -1, derivation); }

    /** Adds the edges of the side {@code c} took ({@link #choseB}) as {@link KnownGraph#SETTLED} edges. */
    void addSettledSide(KnownGraph g, int c) { addSide(g, c, choseB[c], KnownGraph.SETTLED, -1); }

    /** The edges of one side; {@code kind} -1: ww from a tail, rw from a reader. */
    private void addSide(KnownGraph g, int c, boolean sideB, int kind, int derivation) {
        int t = target(c, sideB), k = key(c);
        for (int i = sourcesStart(c, sideB); i < sourcesEnd(c, sideB); i++) {
            int s = chains.rt[i];
            if (s == t) continue; // cannot happen for a consistent pair; a self-loop would be caught by reachability
            g.add(s, t, kind >= 0 ? kind : chains.rtIsTail[i] ? KnownGraph.WW : KnownGraph.RW, k, derivation);
        }
    }

    /** Search or decomposition decided {@code c}: its side's edges join the graph and it is recorded in {@link #choseB}. */
    void choose(KnownGraph g, int c, boolean sideB) {
        addSide(g, c, sideB, -1);
        choseB[c] = sideB;
        deactivate(c);
    }

    void deactivate(int c) {
        if (active[c]) { active[c] = false; activeCount--; }
    }
}
