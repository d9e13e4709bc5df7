package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.History;

/**
 * Step 10, strict serializability: {@code Ti → Tj} whenever {@code end(Ti) + drift < start(Tj)}, in
 * O(n log n) edges instead of all pairs. Auxiliary vertices, one per transaction with an end time in order of
 * end time, form a chain; {@code Ti → aux(Ti)}, {@code aux(k) → aux(k+1)}, and {@code aux(k) → Tj} for the
 * latest {@code k} whose end plus drift is before Tj's start. So Ti reaches Tj through the chain exactly
 * when Ti ended (plus drift) before Tj began.
 *
 * <p>A transaction takes part with the times it has: one with a start but no end, or of unknown outcome (it was
 * invoked, and its commit may have taken effect any time after: its recorded end is only when its client gave up),
 * follows whatever ended before it began, and precedes nothing by real time; one without a start precedes, by its end, whatever began after it, and follows nothing. One with
 * neither is not constrained by real time at all.
 *
 * <p>docs/DESIGN.md §1.2 and §4, step 10 (clocks: assumption A9).
 */
final class RealTimeOrder {
    private RealTimeOrder() {}

    /**
     * When {@code t} ended, for real-time order: its recorded end, except for a transaction of unknown outcome, whose
     * recorded end is when its client gave up (its commit may take effect later): {@link History#NO_TIME}.
     */
    static long end(History h, int t) { return h.acknowledged(t) ? h.end(t) : History.NO_TIME; }

    /** Transactions whose end orders others: included, with an end ({@link #end}). Their count is the number of auxiliary vertices. */
    static int[] ended(History h, boolean[] included) {
        int c = 0;
        for (int t = 0; t < h.size(); t++) if (included[t] && end(h, t) != History.NO_TIME) c++;
        int[] r = new int[c];
        c = 0;
        for (int t = 0; t < h.size(); t++) if (included[t] && end(h, t) != History.NO_TIME) r[c++] = t;
        return r;
    }

    /**
     * The checker's note on the included transactions that lack a time (null: none does): those with neither time are
     * not constrained by real time; those with a start only are ordered after what ended before it, never before anything.
     */
    static String untimedNote(History h, boolean[] included) {
        int neither = 0, startOnly = 0, endOnly = 0;
        for (int t = 0; t < h.size(); t++) {
            if (!included[t]) continue;
            boolean s = h.start(t) != History.NO_TIME, e = end(h, t) != History.NO_TIME;
            if (!s && !e) neither++;
            else if (!e) startOnly++;
            else if (!s) endOnly++;
        }
        if (neither + startOnly + endOnly == 0) return null;
        StringBuilder b = new StringBuilder();
        if (neither > 0) b.append(neither).append(" transaction(s) lack start/end times: real-time order does not constrain them");
        if (startOnly > 0)
            b.append(b.length() > 0 ? "; " : "").append(startOnly)
             .append(" transaction(s) have a start but no end (or are of unknown outcome): real-time order puts them after what ended before they began, before nothing");
        if (endOnly > 0)
            b.append(b.length() > 0 ? "; " : "").append(endOnly)
             .append(" transaction(s) have an end but no start: real-time order puts them before what began after they ended, after nothing");
        return b.toString();
    }

    /**
     * Adds the edges. Requires {@code g} to have {@code firstAux + ended.length} vertices; auxiliary vertex
     * {@code firstAux + k} stands for the k-th transaction of {@code ended} by end time. Every included transaction with a
     * start gets its in-edge from the chain. Returns the auxiliary vertices' times (their end times), indexed by k.
     */
    static long[] addEdges(History h, int[] ended, boolean[] included, KnownGraph g, long driftNanos, int firstAux) {
        int m = ended.length;
        Integer[] byEnd = new Integer[m];
        for (int i = 0; i < m; i++) byEnd[i] = ended[i];
        Arrays.sort(byEnd, (a, b) -> Long.compare(end(h, a), end(h, b)));
        long[] ends = new long[m];
        for (int k = 0; k < m; k++) {
            int t = byEnd[k];
            ends[k] = end(h, t);
            g.add(t, firstAux + k, KnownGraph.RT, -1);
            if (k > 0) g.add(firstAux + k - 1, firstAux + k, KnownGraph.RT, -1);
        }
        if (m == 0) return ends;
        for (int t = 0; t < h.size(); t++) {
            if (!included[t] || h.start(t) == History.NO_TIME) continue;
            long start = h.start(t);
            // the latest k with ends[k] + drift < start
            int lo = 0, hi = m - 1, found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (ends[mid] + driftNanos < start) { found = mid; lo = mid + 1; } else hi = mid - 1;
            }
            if (found >= 0) g.add(firstAux + found, t, KnownGraph.RT, -1);
        }
        return ends;
    }
}
