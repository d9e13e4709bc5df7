package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/**
 * Strict serializability in rounds when an old transaction has no times (docs/DESIGN.md §7.3): the collected past's
 * real-time order may place before a later transaction only what the history times. The history, delivered as the
 * topology delivers it: session a fences, writes k in {@code u} and falls silent (retired, {@code u} released with a's
 * epoch); session b fences on; session c fences once, is retired, and comes back with {@code x}, which reads k's initial
 * value and started well after every old transaction that has an end ended. One-shot: {@code x -rw(k)-> u}, and nothing
 * orders {@code u} before {@code x} when {@code u} has no times (strictly serializable: x, then u); when {@code u} ended
 * before {@code x} began, real time does (a G-single). Before the fix the barrier stood for {@code u} as well, and
 * {@code x -rw(k)-> u -past-> x} rejected the untimed history in rounds.
 */
class UntimedInStrictRoundsTest {
    private static final long MS = 1_000_000L;

    private static Transaction txn(String id, String session, long index, long epoch, boolean fence, long start, long end, String... ops) {
        List<TxnOp> l = new ArrayList<>();
        for (String s : ops) {
            String[] f = s.split(" ");
            l.add(new TxnOp(f[0].equals("w"), f[1], f[2].equals("-") ? null : f[2]));
        }
        return Transaction.newBuilder().setId(id).setSession(session).setStatus(TxnStatus.COMMITTED).setStart(start).setEnd(end)
                .setOps(l).setSessionIndex(index).setFence(fence).setEpoch(epoch).build();
    }

    private static Transaction fence(String session, long index, int epoch, long atMs) {
        return txn("f" + epoch, session, index, epoch, true, atMs * MS, atMs * MS + MS / 2, "r EPOCH " + (epoch == 1 ? "-" : "e" + (epoch - 1)), "w EPOCH e" + epoch);
    }

    private static RoundEnd end(long round, long agree, List<String> retired, List<String> revived) {
        return RoundEnd.newBuilder().setRound(round).setTxns(0).setFirstEpoch(-1).setLastEpoch(-1).setEpochAgree(agree)
                .setRetiredNow(new ArrayList<>(retired)).setRevivedNow(new ArrayList<>(revived)).setClosedNow(new ArrayList<>()).setCutAt(0).build();
    }

    /** The rounds' verdicts, and the one-shot verdict on the whole history (strict, no drift). */
    private record Run(List<Verdict> rounds, org.cobraverify.checker.Verdict.Outcome oneShot) {}

    private static Run run(boolean uTimed) {
        long us = uTimed ? 12 * MS : 0, ue = uTimed ? 13 * MS : 0;
        List<List<Transaction>> rounds = List.of(
                List.of(fence("a", 1, 1, 10), fence("b", 1, 2, 20), fence("c", 1, 3, 30)),
                List.of(fence("b", 2, 4, 40), fence("b", 3, 5, 50)),
                List.of(txn("u", "a", 2, 9, false, us, ue, "w k u1"), fence("b", 4, 6, 60), fence("b", 5, 7, 70), fence("b", 6, 8, 80), fence("b", 7, 9, 90)),
                // a's next fence runs long (95 to 1000 ms), and a fences once more and waits: epochs up to 9 close, so u is old
                // and its next fence is not, and the old transactions that have an end all ended by 90.5 ms
                List.of(txn("f10", "a", 3, 10, true, 95 * MS, 1000 * MS, "r EPOCH e9", "w EPOCH e10"), fence("a", 4, 11, 1010), fence("b", 8, 12, 1020)),
                List.of(fence("b", 9, 13, 1030)),
                List.of(fence("b", 10, 14, 1040)),
                List.of(fence("b", 11, 15, 1050)),
                // c comes back with x, which ran from 500 to 510 ms: after every old transaction with an end had ended
                List.of(txn("x", "c", 2, 3, false, 500 * MS, 510 * MS, "r k -"), fence("b", 12, 16, 1060)),
                List.of(fence("b", 13, 17, 1070)));
        long[] agree = {1, 1, 1, 11, 11, 11, 11, 11, 11};
        RoundSettings s = RoundSettings.defaults().withCheck(CheckOptions.defaults().withStrict(0)).withPendingRoundsLimit(2);
        List<Verdict> verdicts = new ArrayList<>();
        List<Transaction> all = new ArrayList<>();
        try (RoundVerifier v = new RoundVerifier(s, new InMemoryCollectedWrites())) {
            for (int r = 0; r < rounds.size(); r++) {
                for (Transaction t : rounds.get(r)) { v.add(t); all.add(t); }
                List<String> retired = r == 1 || r == 8 ? List.of("c") : List.of(), revived = r == 7 ? List.of("c") : List.of();
                verdicts.addAll(v.decide(List.of(v.closeRound(end(r, agree[r], retired, revived)))));
            }
        }
        HistoryBuilder hb = new HistoryBuilder();
        for (Transaction t : SessionOrder.of(all)) {
            hb.begin(t.getId(), hb.session(t.getSession()), History.COMMITTED, t.getStart() == 0 ? History.NO_TIME : t.getStart(),
                    t.getEnd() == 0 ? History.NO_TIME : t.getEnd(), -1);
            for (TxnOp o : t.getOps()) {
                int k = hb.key(o.getKey());
                if (o.getWrite()) hb.write(k, hb.value(o.getValue())); else hb.read(k, o.getValue() == null ? History.NIL : hb.value(o.getValue()));
            }
            hb.end();
        }
        return new Run(verdicts, Checker.check(hb.build(), CheckOptions.defaults().withStrict(0)).outcome());
    }

    @Test
    void anUntimedOldWriterIsNotPlacedBeforeALaterReaderByRealTime() {
        Run r = run(false);
        assertEquals(org.cobraverify.checker.Verdict.Outcome.ACCEPT, r.oneShot(), "one-shot: x before u is a strict serial order");
        for (Verdict v : r.rounds())
            assertNotEquals(Outcome.REJECT, v.getOutcome(), "round " + v.getRound() + ": " + v.getReason());
        // u precedes no transaction that ended by 90.5 ms, so real time puts the collected past before nothing: x does not
        // provably follow it, so it cannot be checked against it: it is named unchecked, and the rest is accepted
        Verdict xs = r.rounds().get(7);
        assertEquals(Outcome.ACCEPT, xs.getOutcome(), xs.getReason().toString());
        assertEquals(List.of("x"), xs.getUnchecked().stream().map(u -> u.getId().toString()).toList(), xs.getReason().toString());
        assertTrue(xs.getUnchecked().get(0).getReason().toString().contains("without following the collected past"), xs.getReason().toString());
        for (Verdict v : r.rounds().subList(8, r.rounds().size())) assertEquals(Outcome.ACCEPT, v.getOutcome(), v.getReason().toString());
    }

    @Test
    void aTimedOldWriterIsPlacedBeforeALaterReaderByRealTime() {
        Run r = run(true);
        assertEquals(org.cobraverify.checker.Verdict.Outcome.REJECT, r.oneShot(), "one-shot: u ended before x began, and x read k before u's write");
        Verdict xs = r.rounds().get(7);
        assertEquals(Outcome.REJECT, xs.getOutcome(), xs.getReason().toString());
        assertTrue(xs.getCertificate() != null && xs.getCertificate().getSummary().toString().contains("x -rw(k)->"), xs.getReason().toString());
    }
}
