package org.cobraverify.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;

/**
 * Test-only ground truth: decides serializability (with session order) of a small register history by
 * trying every serial order of its committed transactions, and every subset of its transactions of
 * unknown outcome, replaying each transaction against the state the order gives. Exponential; for
 * histories of up to about 9 transactions. Shares no code with the checker.
 */
public final class ExhaustiveSerializability {
    private ExhaustiveSerializability() {}

    public static boolean isSerializable(History h) {
        List<Integer> committed = new ArrayList<>(), unknown = new ArrayList<>();
        for (int t = 0; t < h.size(); t++) {
            if (h.status(t) == History.COMMITTED) committed.add(t);
            else if (h.status(t) == History.UNKNOWN) unknown.add(t);
        }
        if (unknown.size() > 12) throw new IllegalArgumentException("too many unknown transactions for exhaustive search");
        for (int mask = 0; mask < (1 << unknown.size()); mask++) {
            List<Integer> txns = new ArrayList<>(committed);
            for (int i = 0; i < unknown.size(); i++) if ((mask & (1 << i)) != 0) txns.add(unknown.get(i));
            txns.sort(Integer::compare);
            if (search(h, txns)) return true;
        }
        return false;
    }

    private static boolean search(History h, List<Integer> txns) {
        // per session, the chosen transactions in session order
        int sessions = h.sessionCount();
        List<List<Integer>> bySession = new ArrayList<>();
        for (int s = 0; s < sessions; s++) bySession.add(new ArrayList<>());
        for (int t : txns) bySession.get(h.session(t)).add(t);
        int[] state = new int[h.keyCount()];
        Arrays.fill(state, History.NIL);
        return dfs(h, bySession, new int[sessions], state, txns.size());
    }

    private static boolean dfs(History h, List<List<Integer>> bySession, int[] next, int[] state, int left) {
        if (left == 0) return true;
        for (int s = 0; s < bySession.size(); s++) {
            List<Integer> l = bySession.get(s);
            if (next[s] >= l.size()) continue;
            int t = l.get(next[s]);
            int[] after = replay(h, t, state);
            if (after == null) continue;
            next[s]++;
            if (dfs(h, bySession, next, after, left - 1)) return true;
            next[s]--;
        }
        return false;
    }

    /** Runs transaction t against state; returns the state after it, or null if one of its reads disagrees. */
    public static int[] replay(History h, int t, int[] state) {
        int[] local = state.clone();
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int k = h.key(op);
            if (h.kind(op) == History.WRITE) local[k] = h.value(op);
            else if (h.kind(op) == History.READ) {
                if (local[k] != h.value(op)) return null;
            } else throw new IllegalArgumentException("exhaustive search handles register histories only");
        }
        return local;
    }
}
