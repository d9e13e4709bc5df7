package org.cobraverify.gc.analysis;

import org.cobraverify.checker.CheckedRound;
import org.cobraverify.history.History;

/**
 * Strict mode: the real-time point R of the next collected past (docs/DESIGN.md §7.3), which stands for the latest end of
 * an old transaction. The next round's checker places after R every transaction that started after that end (plus
 * drift); before R it places only what provably precedes it: a staying transaction that reaches, in the facts, the
 * previous past's point or a transaction that ended by then ({@link GarbageCollection#rtBefore}), and the past itself
 * only when everything it stands for does ({@link GarbageCollection#pastBeforeRt}). An old transaction without times is
 * placed before nothing by real time.
 */
final class RealTimePoint {
    private RealTimePoint() {}

    /**
     * Sets {@code done}'s {@link GarbageCollection#rtBefore}, {@link GarbageCollection#pastBeforeRt} and
     * {@link GarbageCollection#rtMaxEnd}: which staying transactions precede the next past's real-time point, and whether
     * the next past does. {@code in}: the facts' in-edges ({@link CheckedRound#factsReversed}); {@code b}: the barrier's
     * vertex or -1. The point stands for {@code maxEnd}, the latest end of an old transaction (this round's included
     * ones and the previous past's); a vertex precedes it when it reaches, in the facts, the previous point or a time point
     * of the round's real-time order at or before {@code maxEnd} (so a transaction that ended by then). An old transaction
     * without an end that reaches neither does not precede it, and then neither does the past.
     */
    static void before(CheckedRound c, CheckedRound.Adjacency in, boolean[] old, boolean[] collect, int synthetic, int b,
                       GarbageCollection done) {
        History h = c.history();
        boolean[] included = c.included();
        int n = h.size(), vn = in.start().length - 1;
        long maxEnd = c.past() == null ? History.NO_TIME : c.past().oldMaxEnd();
        for (int t = 0; t < n; t++)
            if (old[t] && included[t] && CheckedRound.realTimeEnd(h, t) != History.NO_TIME && (maxEnd == History.NO_TIME || h.end(t) > maxEnd)) maxEnd = h.end(t);
        done.rtMaxEnd = maxEnd;
        long[] points = c.timePoints();
        int last = -1; // the latest time point at or before maxEnd
        if (maxEnd != History.NO_TIME) for (int k = 0; k < points.length && points[k] <= maxEnd; k++) last = k;
        int[] sources = c.realTimeVertex() >= 0 && last >= 0 ? new int[] {c.realTimeVertex(), n + last}
                : c.realTimeVertex() >= 0 ? new int[] {c.realTimeVertex()} : last >= 0 ? new int[] {n + last} : new int[0];
        boolean[] reaches = in.reachedFrom(vn, sources); // backwards over the facts
        boolean all = b < 0 || reaches[b];
        for (int t = 0; t < n && all; t++) if (old[t] && included[t] && !reaches[t]) all = false;
        done.pastBeforeRt = all;
        done.rtBefore = new boolean[n];
        for (int t = 0; t < Math.min(n, synthetic); t++) done.rtBefore[t] = reaches[t] && included[t] && !collect[t];
    }
}
