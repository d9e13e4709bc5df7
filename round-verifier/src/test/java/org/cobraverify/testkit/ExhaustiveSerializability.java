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

    public static boolean isSerializable(History h) { return isSerializable(h, -1); }

    /**
     * With {@code drift >= 0}, strict serializability: the order must also put Ti before Tj whenever
     * {@code end(Ti) + drift < start(Tj)} (Ti with an end, Tj with a start; a transaction of unknown outcome has no end:
     * its commit may take effect after its client gave up, docs/DESIGN.md §1.2).
     */
    public static boolean isSerializable(History h, long drift) {
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
            if (search(h, txns, drift)) return true;
        }
        return false;
    }

    private static boolean search(History h, List<Integer> txns, long drift) {
        // per session, the chosen transactions in session order
        int sessions = h.sessionCount();
        List<List<Integer>> bySession = new ArrayList<>();
        for (int s = 0; s < sessions; s++) bySession.add(new ArrayList<>());
        for (int t : txns) bySession.get(h.session(t)).add(t);
        int[] state = new int[h.keyCount()];
        Arrays.fill(state, History.NIL);
        return dfs(h, bySession, new int[sessions], state, txns.size(), drift);
    }

    /** Some transaction not yet placed must come before t in real time. */
    private static boolean mustWait(History h, List<List<Integer>> bySession, int[] next, int t, long drift) {
        if (drift < 0 || h.start(t) == History.NO_TIME) return false;
        for (int s = 0; s < bySession.size(); s++)
            for (int i = next[s]; i < bySession.get(s).size(); i++) {
                int u = bySession.get(s).get(i);
                if (u != t && h.status(u) != History.UNKNOWN && h.end(u) != History.NO_TIME && h.end(u) + drift < h.start(t)) return true;
            }
        return false;
    }

    private static boolean dfs(History h, List<List<Integer>> bySession, int[] next, int[] state, int left, long drift) {
        if (left == 0) return true;
        for (int s = 0; s < bySession.size(); s++) {
            List<Integer> l = bySession.get(s);
            if (next[s] >= l.size()) continue;
            int t = l.get(next[s]);
            if (mustWait(h, bySession, next, t, drift)) continue;
            int[] after = replay(h, t, state);
            if (after == null) continue;
            next[s]++;
            if (dfs(h, bySession, next, after, left - 1, drift)) return true;
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
            } else throw new IllegalArgumentException("this replay handles register histories; use isSerializableLists");
        }
        return local;
    }

    /** As {@link #isSerializable}, for list-append histories: each key's state is the whole list. */
    public static boolean isSerializableLists(History h) {
        List<Integer> committed = new ArrayList<>(), unknown = new ArrayList<>();
        for (int t = 0; t < h.size(); t++) {
            if (h.status(t) == History.COMMITTED) committed.add(t);
            else if (h.status(t) == History.UNKNOWN) unknown.add(t);
        }
        for (int mask = 0; mask < (1 << unknown.size()); mask++) {
            List<Integer> txns = new ArrayList<>(committed);
            for (int i = 0; i < unknown.size(); i++) if ((mask & (1 << i)) != 0) txns.add(unknown.get(i));
            txns.sort(Integer::compare);
            List<List<Integer>> bySession = new ArrayList<>();
            for (int s = 0; s < h.sessionCount(); s++) bySession.add(new ArrayList<>());
            for (int t : txns) bySession.get(h.session(t)).add(t);
            if (dfsLists(h, bySession, new int[h.sessionCount()], new int[h.keyCount()][0], txns.size())) return true;
        }
        return false;
    }

    private static boolean dfsLists(History h, List<List<Integer>> bySession, int[] next, int[][] state, int left) {
        if (left == 0) return true;
        for (int s = 0; s < bySession.size(); s++) {
            List<Integer> l = bySession.get(s);
            if (next[s] >= l.size()) continue;
            int[][] after = replayLists(h, l.get(next[s]), state);
            if (after == null) continue;
            next[s]++;
            if (dfsLists(h, bySession, next, after, left - 1)) return true;
            next[s]--;
        }
        return false;
    }

    private static int[][] replayLists(History h, int t, int[][] state) {
        int[][] local = state.clone();
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int k = h.key(op);
            switch (h.kind(op)) {
                case History.APPEND -> {
                    int[] l = Arrays.copyOf(local[k], local[k].length + 1);
                    l[l.length - 1] = h.value(op);
                    local[k] = l;
                }
                case History.READ_LIST -> { if (!Arrays.equals(local[k], h.listValues(op))) return null; }
                case History.READ -> {
                    int last = local[k].length == 0 ? History.NIL : local[k][local[k].length - 1];
                    if (last != h.value(op)) return null;
                }
                default -> throw new IllegalArgumentException("list replay handles appends and reads");
            }
        }
        return local;
    }
}
