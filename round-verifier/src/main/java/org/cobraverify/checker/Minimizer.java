package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.solver.Budget;

/**
 * Shrinks a non-serializable set of transactions to a minimal one that is still not serializable, within a
 * budget shared by every check it makes.
 *
 * <p>Sets are closed under read-from: with a transaction come the writers of everything it read, so
 * every read of the sub-history is still explained by a write in it (a non-serializable closed subset
 * proves the whole history non-serializable). "Rejected" is monotone: a closed superset of a rejected set
 * is rejected. Two phases:
 * <ol>
 *   <li>QuickXplain (Junker, 2004) over the seed transactions: a subset D, minimal among seeds, whose closure
 *       is rejected, in O(|D| log(n/|D|)) checks instead of one per transaction;</li>
 *   <li>one deletion pass over the closure of D: each transaction is removed with everything that read
 *       from it if the rest is still rejected. By monotonicity a transaction found necessary stays
 *       necessary, so one pass (no restart) leaves a 1-minimal set: removing any one transaction (with
 *       its readers) leaves a serializable history.</li>
 * </ol>
 * Every check runs under the caller's {@link Budget} (never a fresh one). When it runs out, the result is
 * the smallest set proved rejected so far and {@link #provedMinimal} is false.
 */
public final class Minimizer {
    private final History h;
    private final SubHistoryChecks checks;
    private final Budget budget;
    private final int[][] writersOf; // per transaction: transactions whose writes it read
    private final int[][] readersOf; // per transaction: transactions that read its writes
    int checksRun;
    /** After {@link #minimize}: whether the deletion pass completed (the result is 1-minimal). */
    boolean provedMinimal;
    private boolean[] best; // the smallest rejected set seen

    Minimizer(History h, SubHistoryChecks checks, Budget budget) {
        this.h = h;
        this.checks = checks;
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

    /** The size of {@code t}'s closure under read-from (t and the writers it depends on). */
    int closureSize(int t) {
        int count = 0;
        for (boolean b : close(new int[] {t})) if (b) count++;
        return count;
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

    /**
     * Whether the set is not serializable; throws {@link Budget.Exhausted} when the budget runs out before
     * the check decides (an undecided check proves nothing either way).
     */
    boolean rejected(boolean[] in) {
        int[] m = members(in);
        if (m.length == 0) return false;
        budget.check();
        checksRun++;
        Verdict v = checks.check(h.restrict(m), budget);
        if (v.outcome() == Verdict.Outcome.UNKNOWN) throw new Budget.Exhausted(v.unknownReason());
        boolean rejected = v.outcome() == Verdict.Outcome.REJECT;
        if (rejected && (best == null || m.length < members(best).length)) best = in.clone();
        return rejected;
    }

    /**
     * Requires: the closure of {@code seed} is not serializable. Returns a read-from-closed subset of it
     * (indexes into the history, increasing) that is still not serializable: 1-minimal when
     * {@link #provedMinimal}, else the smallest one proved so far when the budget ran out.
     */
    public int[] minimize(int[] seed) {
        provedMinimal = false;
        best = close(seed);
        try {
            int[] core = quickXplain(new int[0], false, seed.clone());
            boolean[] in = close(core);
            if (best == null || members(in).length <= members(best).length) best = in;
            int[] m = members(in);
            for (int t : m) { // one pass: by monotonicity, a transaction found necessary stays necessary
                if (!in[t]) continue;
                boolean[] trial = in.clone();
                removeWithReaders(trial, t);
                if (rejected(trial)) in = trial;
            }
            best = in;
            provedMinimal = true;
        } catch (Budget.Exhausted e) {
            // keep the smallest proof found so far
        }
        return members(best);
    }

    /**
     * QuickXplain: given that {@code background ∪ c} closes to a rejected set, returns a subset of {@code c},
     * minimal with {@code background}. {@code grew}: background was just extended (test it first).
     */
    private int[] quickXplain(int[] background, boolean grew, int[] c) {
        if (grew && background.length > 0 && rejected(close(background))) return new int[0];
        if (c.length == 1) return c;
        int half = c.length / 2;
        int[] c1 = Arrays.copyOfRange(c, 0, half), c2 = Arrays.copyOfRange(c, half, c.length);
        int[] d2 = quickXplain(concat(background, c1), true, c2);
        int[] d1 = quickXplain(concat(background, d2), d2.length > 0, c1);
        return concat(d1, d2);
    }

    private static int[] concat(int[] a, int[] b) {
        int[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** For tests: removing t (with its readers) from a set leaves this membership. */
    public int[] without(int[] set, int t) {
        boolean[] in = new boolean[h.size()];
        for (int x : set) in[x] = true;
        removeWithReaders(in, t);
        return members(in);
    }
}
