package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * Sessions that never run a fence (docs/DESIGN.md §7.6, EpochRules rule 5): a client that is not ours, or one that died
 * before its opening fence. Their transactions cannot be checked against the collected past, and the rounds say so, naming
 * them; they never hold back the rest. Before, one such session stopped garbage collection for everyone.
 */
class UnfencedSessionsTest {
    /** The serial fenced history with {@code extra} sessions of two transactions each that never fence, spread over it. */
    static List<Transaction> withUnfencedSessions(List<Transaction> base, int extra) {
        List<Transaction> out = new ArrayList<>();
        Map<String, String> current = new TreeMap<>();
        int next = 0;
        for (int i = 0; i < base.size(); i++) {
            Transaction t = base.get(i);
            out.add(t);
            for (TxnOp o : t.getOps()) if (o.getWrite()) current.put(o.getKey(), o.getValue());
            if (next < extra && i == (next + 1) * base.size() / (extra + 1)) {
                for (int j = 0; j < 2; j++) {
                    String key = "k" + (next + j), id = "nofence" + next + "." + j;
                    out.add(Transaction.newBuilder().setId(id).setSession("nofence" + next).setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0)
                            .setOps(new ArrayList<>(List.of(new TxnOp(false, key, current.get(key)), new TxnOp(true, "fresh" + id, id)))).build());
                }
                next++;
            }
        }
        return out;
    }

    private static RoundsRun rounds(List<Transaction> txns) {
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            return HistoryRounds.run(LifeAfterViolationTest.toHistory(txns), 100, LifeAfterViolationTest.FENCE, v, null);
        }
    }

    @Test
    void sessionsThatNeverFenceAreNamedUncheckedAndHoldNobodyBack() {
        List<Transaction> base = LifeAfterViolationTest.serialHistory(3, 4, 4000, 40);
        List<Transaction> mixed = withUnfencedSessions(base, 4);
        assertEquals(base.size() + 8, mixed.size());
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(LifeAfterViolationTest.toHistory(mixed)).outcome(), "one-shot: serializable");
        RoundsRun clean = rounds(base), run = rounds(mixed);
        for (RoundResult r : run.rounds()) assertEquals(Verdict.Outcome.ACCEPT, r.outcome(), "round " + r.round() + ": " + r.reason());
        List<String> unchecked = new ArrayList<>();
        for (RoundResult r : run.rounds()) for (Unchecked u : r.unchecked()) unchecked.add(u.id());
        assertEquals(8, unchecked.size(), "the 8 are named: " + unchecked);
        assertTrue(unchecked.stream().allMatch(id -> id.startsWith("nofence")), unchecked.toString());
        assertEquals(8, run.last().uncheckedTotal());
        assertEquals(base.size(), run.last().checkedTxns(), "every other transaction is checked");
        // they hold nobody back: garbage collection keeps what it keeps without them
        assertTrue(run.retainedMax() <= 1.5 * clean.retainedMax() + 10,
                "retained at most " + run.retainedMax() + " with them, " + clean.retainedMax() + " without");
        assertTrue(run.last().collectedTotal() >= clean.last().collectedTotal() - 10,
                "collected " + run.last().collectedTotal() + " with them, " + clean.last().collectedTotal() + " without");
    }
}
