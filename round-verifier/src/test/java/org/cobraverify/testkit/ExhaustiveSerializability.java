package org.cobraverify.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;

/**
 * Test-only ground truth: decides serializability (with session order) of a small register history by
 * trying every serial order of its committed transactions, and every subset of its transactions of
 * unknown outcome, replaying each transaction against the state the order gives. Session order: a transaction
 * comes after the earlier ones of its session that are not of unknown outcome (one of unknown outcome may take effect
 * after its session went on, docs/DESIGN.md §1.2). Exponential; for histories of up to about 9 transactions. Shares no
 * code with the checker.
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
        int[] state = new int[h.keyCount()];
        Arrays.fill(state, History.NIL);
        return dfs(h, txns, new boolean[h.size()], state, txns.size(), drift);
    }

    /** Whether {@code t} of {@code txns} may come next: every earlier one of its session not of unknown outcome is placed. */
    private static boolean ready(History h, List<Integer> txns, boolean[] placed, int t) {
        if (placed[t]) return false;
        for (int u : txns) if (u < t && h.session(u) == h.session(t) && h.status(u) != History.UNKNOWN && !placed[u]) return false;
        return true;
    }

    /** Some transaction not yet placed must come before t in real time. */
    private static boolean mustWait(History h, List<Integer> txns, boolean[] placed, int t, long drift) {
        if (drift < 0 || h.start(t) == History.NO_TIME) return false;
        for (int u : txns)
            if (!placed[u] && u != t && h.status(u) != History.UNKNOWN && h.end(u) != History.NO_TIME && h.end(u) + drift < h.start(t)) return true;
        return false;
    }

    private static boolean dfs(History h, List<Integer> txns, boolean[] placed, int[] state, int left, long drift) {
        if (left == 0) return true;
        for (int t : txns) {
            if (!ready(h, txns, placed, t) || mustWait(h, txns, placed, t, drift)) continue;
            int[] after = replay(h, t, state);
            if (after == null) continue;
            placed[t] = true;
            if (dfs(h, txns, placed, after, left - 1, drift)) return true;
            placed[t] = false;
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
            if (dfsLists(h, txns, new boolean[h.size()], new int[h.keyCount()][0], txns.size())) return true;
        }
        return false;
    }

    private static boolean dfsLists(History h, List<Integer> txns, boolean[] placed, int[][] state, int left) {
        if (left == 0) return true;
        for (int t : txns) {
            if (!ready(h, txns, placed, t)) continue;
            int[][] after = replayLists(h, t, state);
            if (after == null) continue;
            placed[t] = true;
            if (dfsLists(h, txns, placed, after, left - 1)) return true;
            placed[t] = false;
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
