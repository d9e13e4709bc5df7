package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * The keys a violation leaves tainted (docs/DESIGN.md §7.10): a read of a write made after the violation is checked as
 * usual whether its writer is still held or collected since; a key is cleared once a write made since is collected with
 * every earlier write of it before it; and past the bound, the oldest tainted keys are remembered only as possibly
 * tainted, and verification goes on.
 */
class TaintedKeysTest {
    /**
     * The serial history of {@link LifeAfterViolationTest} on {@code keys} keys, with a lost update on one of them planted in
     * two of its sessions at transaction {@code at}: both read the key's current value and both write it. With 100 keys each
     * is written every 120 transactions or so, and read in between: a value often outlives its writer, which garbage collection
     * takes, so later reads of the key read collected writes, made after the violation.
     */
    static List<Transaction> withLostUpdateOnAHotKey(int at, int keys) {
        List<Transaction> base = LifeAfterViolationTest.serialHistory(7, 4, 3000, keys);
        // the key and its current value at the planting point
        String key = "k0", current = null;
        for (Transaction t : base.subList(0, at))
            for (TxnOp o : t.getOps()) if (o.getWrite() && o.getKey().equals(key)) current = o.getValue();
        List<Transaction> out = new ArrayList<>();
        Set<String> planted = new HashSet<>();
        for (Transaction t : base) {
            out.add(t);
            int i = out.size() - 1;
            if (i >= at && planted.size() < 2 && !planted.contains(t.getSession()) && !isFence(t)) {
                String id = "lost" + planted.size();
                out.add(Transaction.newBuilder().setId(id).setSession(t.getSession()).setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0)
                        .setOps(new ArrayList<>(List.of(new TxnOp(false, key, current), new TxnOp(true, key, id)))).build());
                planted.add(t.getSession());
            }
        }
        return out;
    }

    private static boolean isFence(Transaction t) { return t.getOps().get(0).getKey().equals(LifeAfterViolationTest.FENCE); }

    @Test
    void aKeyIsTestedAgainOnceWrittenSinceAndItsTaintIsCleared() {
        int roundSize = 100;
        List<Transaction> planted = withLostUpdateOnAHotKey(400, 100);
        RoundsRun run;
        long tainted, forgotten;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            run = HistoryRounds.run(LifeAfterViolationTest.toHistory(planted), roundSize, LifeAfterViolationTest.FENCE, v, null);
            tainted = v.taintedKeysCount();
            forgotten = v.forgottenTaintedKeysCount();
        }
        List<Long> found = LifeAfterViolationTest.violationRounds(run);
        assertEquals(1, found.size(), "one violation: " + found);
        long at = found.get(0);
        // until k0 is written again, a read of it reads its value from before the violation: untestable, rightly; after that,
        // every read of it reads a write made since, held or collected, and every round is decided
        List<Long> unknown = new ArrayList<>();
        for (RoundResult r : run.rounds()) {
            if (r.round() <= at) continue;
            if (r.own() != Verdict.Outcome.ACCEPT) unknown.add(r.round());
        }
        assertTrue(run.rounds().size() > at + 15, "rounds after the violation: " + (run.rounds().size() - at - 1));
        assertTrue(unknown.size() <= 2 && unknown.stream().allMatch(r -> r <= at + 3),
                "rounds after the violation in round " + at + " whose own outcome was not verified: " + unknown);
        assertEquals(0, tainted, "k0 was written since, and that write was collected with every earlier one before it: the taint is cleared");
        assertEquals(0, forgotten);
    }

    @Test
    void pastTheBoundTheOldestTaintedKeysAreForgottenOneByOneButNotAsTainted() {
        HeldTransactions held = new HeldTransactions();
        int n = TaintedKeys.MAX_KEYS + 10;
        for (int i = 0; i < n; i++) {
            held.tainted().taint("key" + i, i);
            held.tainted().addWriterBefore("key" + i, "w" + i);
        }
        int moved = SetAside.bound(held);
        assertTrue(moved > 0 && held.tainted().size() <= TaintedKeys.MAX_KEYS * 3 / 4, "moved " + moved + ", left " + held.tainted().size());
        assertEquals(moved, held.tainted().forgotten());
        assertTrue(held.tainted().since("key" + (n - 1)) != null, "the newest stay remembered one by one");
        assertTrue(held.tainted().since("key0") == null && held.tainted().mayBeForgotten("key0"), "the oldest went to the filter");
        assertTrue(held.invariantsHold());
        // a read of a forgotten key's initial value is untestable; a read of a key never tainted is not (barring the filter's
        // rare false positive: these are the ones the test checks)
        Transaction r0 = reader("r0", "key0"), other = reader("r1", "fresh-key");
        java.util.function.BiFunction<String, String, CollectedWrites.Entry> none = (k, val) -> null;
        String why = SetAside.untestableRead(List.of(r0), held, none);
        assertNotNull(why);
        assertTrue(why.contains("no longer remembered one by one"), why);
        assertNull(SetAside.untestableRead(List.of(other), held, none));
        // and the filter travels with a copy (a snapshot) and a checkpoint
        HeldTransactions copy = held.copy();
        assertTrue(copy.tainted().mayBeForgotten("key0"));
        TaintOverflow back = TaintOverflow.decode(held.tainted().overflowBytes());
        assertTrue(back.mightContain("key1") && back.keys() == moved);
    }

    private static Transaction reader(String id, String key) {
        return Transaction.newBuilder().setId(id).setSession("s").setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0)
                .setOps(new ArrayList<>(List.of(new TxnOp(false, key, null)))).build();
    }
}
