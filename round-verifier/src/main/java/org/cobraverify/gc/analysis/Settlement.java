package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.KnownGraph;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;

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
     * Requires: {@code round} accepted, {@code out} is its facts' adjacency ({@link CheckedRound#facts}), {@code seed[v]}
     * marks T. Returns the constraints to settle (a subset of those {@link CheckedRound#leftOpen}), which
     * {@link CheckedRound#settle} fixes on the side the round took.
     */
    static boolean[] settle(CheckedRound round, CheckedRound.Adjacency out, boolean[] seed) {
        int vertices = round.vertices();
        int m = round.constraintCount();
        int[] outStart = out.start(), outTarget = out.target();
        // per vertex: the (constraint, side) pairs it is a source of, and the constraints it is a target of
        int[] start = new int[vertices + 1];
        for (int c = 0; c < m; c++) {
            if (!round.leftOpen(c)) continue;
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                start[round.sideTarget(c, b) + 1]++;
                for (int i = round.sideSourcesStart(c, b); i < round.sideSourcesEnd(c, b); i++) start[round.sideSource(i) + 1]++;
            }
        }
        for (int v = 0; v < vertices; v++) start[v + 1] += start[v];
        int[] fill = Arrays.copyOf(start, vertices);
        int[] entry = new int[start[vertices]]; // (c << 2) | (side << 1) | isSource
        for (int c = 0; c < m; c++) {
            if (!round.leftOpen(c)) continue;
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                int t = round.sideTarget(c, b);
                entry[fill[t]++] = (c << 2) | (side << 1);
                for (int i = round.sideSourcesStart(c, b); i < round.sideSourcesEnd(c, b); i++) entry[fill[round.sideSource(i)]++] = (c << 2) | (side << 1) | 1;
            }
        }
        boolean[] reached = new boolean[vertices];
        boolean[] unsettled = new boolean[m];
        int[] stack = new int[vertices];
        int sp = 0;
        for (int v = 0; v < vertices; v++) if (seed[v]) { reached[v] = true; stack[sp++] = v; }
        while (sp > 0) {
            int v = stack[--sp];
            for (int p = outStart[v]; p < outStart[v + 1]; p++) {
                int w = outTarget[p];
                if (!reached[w]) { reached[w] = true; stack[sp++] = w; }
            }
            for (int p = start[v]; p < start[v + 1]; p++) {
                int c = entry[p] >>> 2;
                if (!unsettled[c]) {
                    // c touches a reached vertex: both of its sides join H; propagate from sources reached before
                    unsettled[c] = true;
                    for (int side = 0; side < 2; side++) {
                        boolean b = side == 1;
                        int t = round.sideTarget(c, b);
                        if (reached[t]) continue;
                        for (int i = round.sideSourcesStart(c, b); i < round.sideSourcesEnd(c, b); i++)
                            if (reached[round.sideSource(i)]) { reached[t] = true; stack[sp++] = t; break; }
                    }
                }
                if ((entry[p] & 1) != 0) {
                    int t = round.sideTarget(c, ((entry[p] >>> 1) & 1) == 1);
                    if (!reached[t]) { reached[t] = true; stack[sp++] = t; }
                }
            }
        }
        boolean[] settled = new boolean[m];
        for (int c = 0; c < m; c++) settled[c] = round.leftOpen(c) && !unsettled[c];
        return settled;
    }

    /**
     * The sources of the future T for {@link #settle}: every included transaction that is not old, the
     * barrier, and each old frontier writer F of a key x that shares the frontier of x or does not reach
     * some writer of x that is not old. Time points are not sources: a later transaction's edge into one
     * would lead it to an old transaction, which a serializable completion cannot have. With {@code carelessSettling}
     * (tests only, {@link GarbageCollection.Rules#CARELESS_SETTLING}) old frontier writers are left out.
     */
    static boolean[] sourcesOfTheFuture(CheckedRound round, CheckedRound.Reach r, boolean[] old, boolean[] frontierWrite, int b,
                                        boolean carelessSettling) {
        History h = round.history();
        boolean[] included = round.included(), finalWrite = round.finalWrite();
        int n = h.size(), keys = h.keyCount(), vn = round.vertices();
        boolean[] seed = new boolean[vn];
        if (b >= 0) seed[b] = true;
        int[] frontierCount = new int[keys];
        IntVec[] laterWriters = new IntVec[keys];
        for (int t = 0; t < n; t++) {
            if (!included[t]) continue;
            if (!old[t]) seed[t] = true;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!finalWrite[op]) continue;
                int k = h.key(op);
                if (old[t]) { if (frontierWrite[op]) frontierCount[k]++; }
                else {
                    if (laterWriters[k] == null) laterWriters[k] = new IntVec(2);
                    laterWriters[k].add(t);
                }
            }
        }
        for (int t = 0; t < n && !carelessSettling; t++) {
            if (!included[t] || !old[t] || seed[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t) && !seed[t]; op++) {
                if (!frontierWrite[op]) continue;
                int k = h.key(op);
                if (frontierCount[k] > 1) { seed[t] = true; break; }
                IntVec later = laterWriters[k];
                for (int i = 0; later != null && i < later.size() && !seed[t]; i++) if (!r.reaches(t, later.get(i))) seed[t] = true;
            }
        }
        return seed;
    }
}
