package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.History;

/**
 * Step 10, strict serializability: {@code Ti → Tj} whenever {@code end(Ti) + drift < start(Tj)}, in
 * O(n log n) edges instead of all pairs. Auxiliary vertices, one per timed transaction in order of end
 * time, form a chain; {@code Ti → aux(Ti)}, {@code aux(k) → aux(k+1)}, and {@code aux(k) → Tj} for the
 * latest {@code k} whose end plus drift is before Tj's start. So Ti reaches Tj through the chain exactly
 * when Ti ended (plus drift) before Tj began. Transactions without timestamps get no real-time edges.
 *
 * <p>docs/DESIGN.md §4, step 10 (clocks: assumption A9).
 */
final class RealTimeOrder {
    private RealTimeOrder() {}

    /** Transactions that take part: included, with both timestamps. Their count is the number of auxiliary vertices. */
    static int[] timed(History h, boolean[] included) {
        int c = 0;
        for (int t = 0; t < h.size(); t++) if (included[t] && h.start(t) != History.NO_TIME && h.end(t) != History.NO_TIME) c++;
        int[] r = new int[c];
        c = 0;
        for (int t = 0; t < h.size(); t++) if (included[t] && h.start(t) != History.NO_TIME && h.end(t) != History.NO_TIME) r[c++] = t;
        return r;
    }

    /**
     * Adds the edges. Requires {@code g} to have {@code firstAux + timed.length} vertices; auxiliary vertex
     * {@code firstAux + k} stands for the k-th timed transaction by end time. Returns the auxiliary
     * vertices' times (their end times), indexed by k.
     */
    static long[] addEdges(History h, int[] timed, KnownGraph g, long driftNanos, int firstAux) {
        int m = timed.length;
        Integer[] byEnd = new Integer[m];
        for (int i = 0; i < m; i++) byEnd[i] = timed[i];
        Arrays.sort(byEnd, (a, b) -> Long.compare(h.end(a), h.end(b)));
        long[] ends = new long[m];
        for (int k = 0; k < m; k++) {
            int t = byEnd[k];
            ends[k] = h.end(t);
            g.add(t, firstAux + k, KnownGraph.RT, -1);
            if (k > 0) g.add(firstAux + k - 1, firstAux + k, KnownGraph.RT, -1);
        }
        for (int t : timed) {
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
