package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.solver.Budget;

/**
 * Shrinks a non-serializable set of transactions to a minimal one that is still not serializable.
 *
 * <p>Sets are closed under read-from: with a transaction come the writers of everything it read, so
 * every read of the sub-history is still explained by a write in it (a non-serializable closed subset
 * proves the whole history non-serializable). Removing a transaction removes everything that read from
 * it, transitively. The result is 1-minimal: removing any one transaction (with its readers) leaves a
 * serializable history. Deletion works in halving chunks first, then one at a time.
 */
public final class Minimizer {
    private final History h;
    private final CheckOptions options;
    private final Budget budget;
    private final int[][] writersOf; // per transaction: transactions whose writes it read
    private final int[][] readersOf; // per transaction: transactions that read its writes
    int checks;

    public Minimizer(History h, CheckOptions options, Budget budget) {
        this.h = h;
        this.options = options;
        this.budget = budget;
        LongIntMap writer = new LongIntMap(Math.max(16, h.opCount()));
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.WRITE || h.kind(op) == History.APPEND) writer.put(ReadFromIndex.pack(h.key(op), h.value(op)), t);
        IntVec[] w = new IntVec[h.size()], r = new IntVec[h.size()];
        for (int t = 0; t < h.size(); t++) { w[t] = new IntVec(2); r[t] = new IntVec(2); }
        for (int t = 0; t < h.size(); t++) {
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) == History.READ) link(writer, t, h.key(op), h.value(op), w, r);
                else if (h.kind(op) == History.READ_LIST) for (int v : h.listValues(op)) link(writer, t, h.key(op), v, w, r);
            }
        }
        writersOf = new int[h.size()][];
        readersOf = new int[h.size()][];
        for (int t = 0; t < h.size(); t++) { writersOf[t] = w[t].toArray(); readersOf[t] = r[t].toArray(); }
    }

    private static void link(LongIntMap writer, int t, int key, int value, IntVec[] w, IntVec[] r) {
        if (value == History.NIL) return;
        int wt = writer.get(ReadFromIndex.pack(key, value));
        if (wt == LongIntMap.MISSING || wt == t) return;
        w[t].add(wt);
        r[wt].add(t);
    }

    /** The closure of {@code set} under read-from (adds writers), as a membership array. */
    boolean[] close(int[] set) {
        boolean[] in = new boolean[h.size()];
        IntVec stack = new IntVec();
        for (int t : set) if (!in[t]) { in[t] = true; stack.add(t); }
        while (!stack.isEmpty()) {
            int t = stack.pop();
            for (int w : writersOf[t]) if (!in[w]) { in[w] = true; stack.add(w); }
        }
        return in;
    }

    /** Removes {@code t} and, transitively, everything that read from it. */
    private void removeWithReaders(boolean[] in, int t) {
        if (!in[t]) return;
        IntVec stack = new IntVec();
        in[t] = false;
        stack.add(t);
        while (!stack.isEmpty()) {
            int x = stack.pop();
            for (int r : readersOf[x]) if (in[r]) { in[r] = false; stack.add(r); }
        }
    }

    static int[] members(boolean[] in) {
        IntVec v = new IntVec();
        for (int t = 0; t < in.length; t++) if (in[t]) v.add(t);
        return v.toArray();
    }

    boolean rejected(boolean[] in) {
        int[] m = members(in);
        if (m.length == 0) return false;
        checks++;
        return Checker.checkWithoutMinimizing(h.restrict(m), options).outcome() == Verdict.Outcome.REJECT;
    }

    /**
     * Requires: the closure of {@code start} is not serializable. Returns a 1-minimal read-from-closed
     * subset (indexes into the history, increasing). When the budget runs out midway, returns the
     * smallest rejected set found so far (still a valid proof, perhaps not minimal).
     */
    public int[] minimize(int[] start) {
        boolean[] in = close(start);
        try {
            int size = members(in).length;
            for (int chunk = Math.max(1, size / 2); ; chunk = Math.max(1, chunk / 2)) {
                boolean progress = true;
                while (progress) {
                    progress = false;
                    int[] m = members(in);
                    for (int i = 0; i < m.length; i += chunk) {
                        budget.check();
                        boolean[] trial = Arrays.copyOf(in, in.length);
                        for (int j = i; j < Math.min(m.length, i + chunk); j++) removeWithReaders(trial, m[j]);
                        if (rejected(trial)) { in = trial; progress = true; break; }
                    }
                }
                if (chunk == 1) break;
            }
        } catch (Budget.Exhausted e) {
            // keep the smallest proof found so far
        }
        return members(in);
    }

    /** For tests: removing t (with its readers) from a set leaves this membership. */
    public int[] without(int[] set, int t) {
        boolean[] in = new boolean[h.size()];
        for (int x : set) in[x] = true;
        removeWithReaders(in, t);
        return members(in);
    }
}
