package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lost updates in rounds (docs/DESIGN.md §7.10). A and B both read W's version of x and overwrote it; F read W's x and the
 * initial y that W overwrote (read skew, found only once the lost update is set aside: a check stops at its first lost
 * update). A lost update sets aside its two overwriters, not the writer of the version they read, so W stays and F's read
 * skew is reported too. T lost two updates (of p and of q) with D: both reported, in one check, though they blame the same
 * two transactions.
 */
class LostUpdatesInRoundsTest {
    private static int fences;

    private static Transaction txn(String id, String session, TxnOp... ops) {
        return Transaction.newBuilder().setId(id).setSession(session).setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0).setOps(List.of(ops)).build();
    }

    private static TxnOp r(String k, String v) { return new TxnOp(false, k, v); }

    private static TxnOp w(String k, String v) { return new TxnOp(true, k, v); }

    /** Session {@code s}'s first transaction: a fence after the previous one. */
    private static Transaction fence(String s) {
        int i = fences++;
        return txn("F" + i, s, r(LifeAfterViolationTest.FENCE, i == 0 ? null : "e" + (i - 1)), w(LifeAfterViolationTest.FENCE, "e" + i));
    }

    @ParameterizedTest
    @EnumSource(value = IsolationLevel.class, names = {"SNAPSHOT_ISOLATION", "SERIALIZABLE"})
    void theVersionWriterStaysAndEveryLostUpdateIsReported(IsolationLevel level) {
        fences = 0;
        List<Transaction> h = new ArrayList<>();
        h.add(fence("s0"));
        h.add(txn("W", "s0", w("x", "wx"), w("y", "wy")));
        h.add(fence("s1"));
        h.add(txn("A", "s1", r("x", "wx"), w("x", "a")));
        h.add(fence("s2"));
        h.add(txn("B", "s2", r("x", "wx"), w("x", "b")));
        h.add(fence("s3"));
        h.add(txn("F", "s3", r("x", "wx"), r("y", null)));
        h.add(fence("s4"));
        h.add(txn("T", "s4", r("p", null), w("p", "tp"), r("q", null), w("q", "tq")));
        h.add(fence("s5"));
        h.add(txn("D", "s5", r("p", null), w("p", "dp"), r("q", null), w("q", "dq")));
        for (int s = 0; s < 6; s++) h.add(fence("s" + s));
        RoundsRun run;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults().withLevel(level), new InMemoryCollectedWrites())) {
            run = HistoryRounds.run(LifeAfterViolationTest.toHistory(h), 1000, LifeAfterViolationTest.FENCE, v, null);
        }
        List<Certificate> found = new ArrayList<>();
        for (RoundResult r : run.rounds()) found.addAll(r.violations());
        List<String> pairs = new ArrayList<>();
        for (Certificate c : found) {
            Set<String> blamed = new TreeSet<>();
            for (int i : c.kind().blamed(c.transactions().size())) blamed.add(c.transactions().get(i).id());
            pairs.add(blamed + (c.kind() != AnomalyKind.LOST_UPDATE ? " " + c.kind().adyaClass() : c.summary().contains("key p") ? " p" : c.summary().contains("key q") ? " q" : ""));
        }
        pairs.sort(null);
        assertEquals(List.of("[A, B]", "[D, T] p", "[D, T] q", "[F, W] G-single"), pairs, level + ": " + found.stream().map(Certificate::summary).toList());
    }
}
