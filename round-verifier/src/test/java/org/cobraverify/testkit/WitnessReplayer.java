package org.cobraverify.testkit;

import java.util.Arrays;
import org.cobraverify.history.History;

/**
 * Test-only, independent of the checker: replays a history in a proposed serial order and says what is
 * wrong with the order, or null when it explains every read. The order must hold every committed
 * transaction once, no aborted one, and keep session order (each transaction after the earlier ones of its session that
 * are not of unknown outcome: one of unknown outcome may have taken effect late, docs/DESIGN.md §1.2); transactions of
 * unknown outcome may appear.
 */
public final class WitnessReplayer {
    private WitnessReplayer() {}

    public static String problem(History h, int[] order) {
        boolean[] in = new boolean[h.size()];
        for (int t : order) {
            if (in[t]) return "T" + h.name(t) + " appears twice";
            in[t] = true;
            if (h.status(t) == History.ABORTED) return "aborted T" + h.name(t) + " is in the order";
        }
        for (int t = 0; t < h.size(); t++) if (h.status(t) == History.COMMITTED && !in[t]) return "committed T" + h.name(t) + " is missing";
        int[] lastPos = new int[h.sessionCount()];
        Arrays.fill(lastPos, -1);
        int[] posOf = new int[h.size()];
        for (int i = 0; i < order.length; i++) posOf[order[i]] = i;
        for (int t = 0; t < h.size(); t++) {
            if (!in[t]) continue;
            int s = h.session(t);
            if (lastPos[s] > posOf[t]) return "T" + h.name(t) + " is ordered before an earlier transaction of its session";
            if (h.status(t) != History.UNKNOWN) lastPos[s] = Math.max(lastPos[s], posOf[t]);
        }
        int[] state = new int[h.keyCount()];
        Arrays.fill(state, History.NIL);
        int[][] lists = new int[h.keyCount()][0];
        for (int t : order) {
            int[] local = state.clone();
            int[][] localLists = lists.clone();
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                int k = h.key(op);
                switch (h.kind(op)) {
                    case History.WRITE -> local[k] = h.value(op);
                    case History.APPEND -> {
                        int[] l = Arrays.copyOf(localLists[k], localLists[k].length + 1);
                        l[l.length - 1] = h.value(op);
                        localLists[k] = l;
                        local[k] = h.value(op);
                    }
                    case History.READ -> {
                        if (local[k] != h.value(op)) return "T" + h.name(t) + " " + h.describeOp(op) + " but the order gives "
                                + History.show(h.valueName(local[k]));
                    }
                    default -> {
                        if (!Arrays.equals(localLists[k], h.listValues(op))) return "T" + h.name(t) + " " + h.describeOp(op) + " disagrees with the order";
                    }
                }
            }
            state = local;
            lists = localLists;
        }
        return null;
    }
}
