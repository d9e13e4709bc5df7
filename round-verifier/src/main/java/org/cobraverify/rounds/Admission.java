package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.IntVec;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * Which waiting transactions a round checks: the largest set whose reads all resolve, so that the checked history
 * is read-from closed (docs/DESIGN.md §7.5–§7.6), in admission order, with the batch level of each (the round of a
 * batch of rounds from which on it could have been checked; all 0 for a single round).
 *
 * <p>Runs in time linear in the candidates' reads: each candidate counts the reads it makes of candidates' writes
 * and is admitted when the last of those writers is (a worklist; a pass-until-nothing-changes loop was quadratic,
 * and a verifier far behind, deciding 200k transactions at once, spent minutes there).
 */
record Admission(List<Transaction> admitted, int[] level, IdentityHashMap<Transaction, boolean[]> heldReads) {
    /** Nothing admitted. */
    static Admission none() { return new Admission(new ArrayList<>(), new int[0], new IdentityHashMap<>()); }

    /** The collected writes of pairs ({@code keys[i]}, {@code values[i]}) this verifier may see (null where none), in one batch. */
    interface CollectedLookup { CollectedWrites.Entry[] getAll(List<String> keys, List<String> values); }

    /**
     * Of {@code candidates} (the waiting transactions), the largest set whose reads all resolve: to a retained writer,
     * itself, or an admitted candidate; a read with no writer resolves only if it is stale (judged after the check).
     * A worklist first: each candidate counts the reads it makes of candidates' writes and is admitted when the last
     * of those writers is; its level is the largest of its arrival's and its writers' levels. Then the candidates
     * left that depend on no unresolved read are admitted together (they read from one another in a cycle, or from
     * such a cycle), at the largest level among them. Writers are matched by identity: the writer index holds the
     * very objects waiting.
     *
     * <p>Candidates from {@code firstNew} on arrived this round: each of their reads with no writer in the index is
     * looked up among the collected writes (a stale read, recorded in {@link StaleReads}), all of them, even
     * after one that leaves the candidate waiting. (Done here, not in a pass of its own: one writer lookup per read.)
     * For each of them, {@code heldReads} says which operations are reads of a value whose writer the index holds, as
     * {@link PastFrontier#heldReads} would while the index does not change (the round's first history reuses it).
     */
    static Admission of(List<Transaction> candidates, int[] arrival, int firstNew, HeldTransactions held, StaleReads stale, CollectedLookup collected) {
        int n = candidates.size();
        IdentityHashMap<Transaction, Integer> position = new IdentityHashMap<>(n * 2);
        for (int i = 0; i < n; i++) position.put(candidates.get(i), i);
        int[] blockers = new int[n], level = arrival == null ? new int[n] : arrival.clone();
        boolean[] unresolved = new boolean[n];
        // the new candidates' reads with no writer in the index, looked up among the collected writes in one batch, in the
        // order the loop below meets them (it looks up every one: a new candidate's loop never stops early)
        List<String> lookupKeys = new ArrayList<>(), lookupValues = new ArrayList<>();
        Transaction[][] freshWriters = new Transaction[n - firstNew][]; // per new candidate and operation: the held writer read
        IdentityHashMap<Transaction, boolean[]> heldReads = new IdentityHashMap<>(2 * (n - firstNew));
        for (int i = firstNew; i < n; i++) {
            List<TxnOp> ops = candidates.get(i).getOps();
            Transaction[] ws = freshWriters[i - firstNew] = new Transaction[ops.size()];
            boolean[] r = new boolean[ops.size()];
            for (int j = 0; j < ws.length; j++) {
                TxnOp o = ops.get(j);
                if (o.getWrite() || o.getValue() == null) continue;
                ws[j] = held.writerSharing(ops, j); // (o takes the writer's strings, WriterIndex#getSharing)
                r[j] = ws[j] != null;
                if (ws[j] == null) {
                    lookupKeys.add(o.getKey());
                    lookupValues.add(o.getValue());
                }
            }
            heldReads.put(candidates.get(i), r);
        }
        CollectedWrites.Entry[] found = lookupKeys.isEmpty() ? new CollectedWrites.Entry[0] : collected.getAll(lookupKeys, lookupValues);
        int next = 0;
        IntVec from = new IntVec(), to = new IntVec();
        for (int i = 0; i < n; i++) {
            Transaction t = candidates.get(i);
            boolean fresh = i >= firstNew;
            List<TxnOp> ops = t.getOps();
            for (int j = 0; j < ops.size(); j++) {
                TxnOp o = ops.get(j);
                if (o.getWrite() || o.getValue() == null) continue;
                Transaction w = fresh ? freshWriters[i - firstNew][j] : held.writerOf(o.getKey(), o.getValue());
                if (w == null) {
                    if (fresh) {
                        CollectedWrites.Entry e = found[next++];
                        if (e != null) { stale.record(t, o, e); continue; }
                    } else if (stale.isWaiting(t, o)) continue;
                    unresolved[i] = true;
                    if (fresh) continue; // its other reads may be stale reads too
                    break;
                }
                if (unresolved[i]) continue;
                if (w == t || held.isRetained(w.getId())) continue;
                Integer p = position.get(w);
                if (p == null) { unresolved[i] = true; if (fresh) continue; break; }
                from.add(p);
                to.add(i);
                blockers[i]++;
            }
        }
        if (next != found.length) throw new IllegalStateException("looked up " + found.length + " reads of collected writes, met " + next);
        // the readers of each candidate's writes (compressed rows)
        int[] rowStart = new int[n + 1], readers = new int[from.size()];
        for (int e = 0; e < from.size(); e++) rowStart[from.get(e) + 1]++;
        for (int i = 0; i < n; i++) rowStart[i + 1] += rowStart[i];
        int[] fill = Arrays.copyOf(rowStart, n);
        for (int e = 0; e < from.size(); e++) readers[fill[from.get(e)]++] = to.get(e);
        int[] queue = new int[n];
        int head = 0, tail = 0;
        for (int i = 0; i < n; i++) if (!unresolved[i] && blockers[i] == 0) queue[tail++] = i;
        while (head < tail) {
            int w = queue[head++];
            for (int e = rowStart[w]; e < rowStart[w + 1]; e++) {
                int r = readers[e];
                if (unresolved[r]) continue;
                level[r] = Math.max(level[r], level[w]);
                if (--blockers[r] == 0) queue[tail++] = r;
            }
        }
        // candidates that wait only on one another (a cycle of reads, and whatever reads only from it): the largest set of
        // the rest whose reads all resolve within it, the retained and the admitted is read-from closed too. Admitting
        // it lets the check see the cycle (G1c) instead of waiting for writes that have all arrived.
        int queued = tail;
        if (queued < n) {
            boolean[] settled = new boolean[n], out = new boolean[n];
            for (int j = 0; j < queued; j++) settled[queue[j]] = true;
            int[] stack = new int[n];
            int sp = 0;
            for (int i = 0; i < n; i++) if (!settled[i] && unresolved[i]) { out[i] = true; stack[sp++] = i; }
            while (sp > 0) {
                int w = stack[--sp];
                for (int e = rowStart[w]; e < rowStart[w + 1]; e++) {
                    int r = readers[e];
                    if (!settled[r] && !out[r]) { out[r] = true; stack[sp++] = r; }
                }
            }
            int top = 0;
            for (int i = 0; i < n; i++) if (!settled[i] && !out[i]) top = Math.max(top, level[i]);
            for (int i = 0; i < n; i++) if (!settled[i] && !out[i]) { level[i] = top; queue[tail++] = i; }
        }
        List<Transaction> admitted = new ArrayList<>(tail);
        int[] levels = new int[tail];
        for (int j = 0; j < tail; j++) { admitted.add(candidates.get(queue[j])); levels[j] = level[queue[j]]; }
        return new Admission(admitted, levels, heldReads);
    }

    /**
     * Per round {@code i} of a batch: the checked-transaction total and the number waiting after it, had the rounds been
     * decided one by one. A waiting transaction is checked by round {@code i} when its level is at most {@code i}: its level
     * is the later of its arrival's and its writers' (a transaction admitted with the batch waits only on writers of
     * the batch, this class); transactions still waiting, or checked as they are on the last round, count as
     * arrived but not checked.
     */
    static long[][] batchCounts(int[] arrival, int[] admittedLevel, int batchRounds, long checkedBefore) {
        long[] arrivedBy = new long[batchRounds], checkedBy = new long[batchRounds];
        for (int a : arrival) arrivedBy[a]++;
        for (int l : admittedLevel) checkedBy[l]++;
        long[][] out = new long[batchRounds][];
        long arrived = 0, checked = 0;
        for (int i = 0; i < batchRounds; i++) {
            arrived += arrivedBy[i];
            checked += checkedBy[i];
            out[i] = new long[] {checkedBefore + checked, arrived - checked};
        }
        return out;
    }
}
