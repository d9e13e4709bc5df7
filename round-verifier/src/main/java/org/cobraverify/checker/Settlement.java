package org.cobraverify.checker;

import java.util.Arrays;

/**
 * Which open constraints of an accepted round garbage collection may settle for good, on the side the
 * round's solution took (beyond the paper: its limitation L6). Two old writers of a key that no read
 * orders keep an open constraint that no later transaction can resolve, and keep both writers, their
 * readers and, through them, everything they touch: on blind-write workloads the retained set grew without
 * bound. Settling such a constraint turns its chosen side into facts ({@link KnownGraph#SETTLED}) so that
 * its transactions can be collected.
 *
 * <p><b>Which.</b> Let the <em>sources of the future</em> T be the vertices a later transaction can
 * still add an edge into: every transaction that is not old, the barrier, and each old frontier writer F
 * of a key x that is not the only frontier writer of x, or that does not reach in the facts some writer of
 * x that is not old. (A later read of F forces W → F for every other writer W of x; when W is old and F is
 * the only frontier writer, W ⇝ F is already a fact; a later writer follows F.) Let H be the facts, with both
 * sides of every open constraint that is not settled. The settled constraints are the open constraints
 * none of whose transactions is reachable from T in H; {@link #settle} computes them with one search
 * from T that, whenever it reaches a transaction of a constraint, adds both of that constraint's sides.
 *
 * <p><b>Invariant.</b> Fixing the settled sides changes no verdict: every serializable continuation of the
 * history stays serializable and no unserializable one becomes serializable. The proof, and the assumptions it
 * rests on (A3, A4: nothing later precedes an old transaction), are in docs/DESIGN.md §7.7; {@link
 * GarbageCollection} checks A4 in the graph before anything is settled or collected.
 */
final class Settlement {
    private Settlement() {}

    /**
     * Requires: the round accepted, {@code open[c]} marks the constraints pruning left open and
     * {@link Constraints#choseB} holds their sides, {@code out} is the facts' adjacency, {@code seed[v]}
     * marks T. Returns the constraints to settle (a subset of {@code open}).
     */
    static boolean[] settle(int vertices, KnownGraph.Csr out, Constraints cons, boolean[] open, boolean[] seed) {
        int m = cons.size();
        Chains ch = cons.chains;
        // per vertex: the (constraint, side) pairs it is a source of, and the constraints it is a target of
        int[] start = new int[vertices + 1];
        for (int c = 0; c < m; c++) {
            if (!open[c]) continue;
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                start[cons.target(c, b) + 1]++;
                for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++) start[ch.rt[i] + 1]++;
            }
        }
        for (int v = 0; v < vertices; v++) start[v + 1] += start[v];
        int[] fill = Arrays.copyOf(start, vertices);
        int[] entry = new int[start[vertices]]; // (c << 2) | (side << 1) | isSource
        for (int c = 0; c < m; c++) {
            if (!open[c]) continue;
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                int t = cons.target(c, b);
                entry[fill[t]++] = (c << 2) | (side << 1);
                for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++) entry[fill[ch.rt[i]]++] = (c << 2) | (side << 1) | 1;
            }
        }
        boolean[] reached = new boolean[vertices];
        boolean[] unsettled = new boolean[m];
        int[] stack = new int[vertices];
        int sp = 0;
        for (int v = 0; v < vertices; v++) if (seed[v]) { reached[v] = true; stack[sp++] = v; }
        while (sp > 0) {
            int v = stack[--sp];
            for (int p = out.start[v]; p < out.start[v + 1]; p++) {
                int w = out.target[p];
                if (!reached[w]) { reached[w] = true; stack[sp++] = w; }
            }
            for (int p = start[v]; p < start[v + 1]; p++) {
                int c = entry[p] >>> 2;
                if (!unsettled[c]) {
                    // c touches a reached vertex: both of its sides join H; propagate from sources reached before
                    unsettled[c] = true;
                    for (int side = 0; side < 2; side++) {
                        boolean b = side == 1;
                        int t = cons.target(c, b);
                        if (reached[t]) continue;
                        for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++)
                            if (reached[ch.rt[i]]) { reached[t] = true; stack[sp++] = t; break; }
                    }
                }
                if ((entry[p] & 1) != 0) {
                    int t = cons.target(c, ((entry[p] >>> 1) & 1) == 1);
                    if (!reached[t]) { reached[t] = true; stack[sp++] = t; }
                }
            }
        }
        boolean[] settled = new boolean[m];
        for (int c = 0; c < m; c++) settled[c] = open[c] && !unsettled[c];
        return settled;
    }
}
