package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.cobraverify.checker.Checker;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.api.Test;

class RoundVerifierTest {
    static int sessionIndex;

    static Transaction txn(String id, String session, long index, String... ops) {
        List<TxnOp> l = new ArrayList<>();
        for (String s : ops) {
            String[] f = s.split(" ");
            l.add(new TxnOp(f[0].equals("w"), f[1], f[2].equals("-") ? null : f[2]));
        }
        return Transaction.newBuilder().setId(id).setSession(session).setStatus(TxnStatus.COMMITTED).setStart(0L).setEnd(0L)
                .setOps(l).setSessionIndex(index).build();
    }

    static RoundEnd end(long round) {
        return RoundEnd.newBuilder().setRound(round).setTxns(0).setFirstEpoch(0).setLastEpoch(0).setEpochAgree(1).setCutAt(0).build();
    }

    static Transaction at(Transaction t, long epoch, boolean fence) {
        t.setEpoch(epoch);
        t.setFence(fence);
        return t;
    }

    /**
     * A session its client closed holds garbage collection back only until the topology says every transaction
     * of it has been cut ({@code closedNow}); announced as retired alone (as a silent session is), it holds it
     * back for {@code pendingRoundsLimit} rounds, in case it comes back.
     */
    @Test
    void aClosedSessionStopsHoldingGarbageCollectionBackOnceDrained() {
        long[] retainedWith = run(true), retainedWithout = run(false);
        String both = "with closedNow " + Arrays.toString(retainedWith) + ", without " + Arrays.toString(retainedWithout);
        assertTrue(retainedWith[3] <= retainedWith[1], "with it, the retained set stays flat: " + both);
        assertTrue(retainedWithout[3] > retainedWithout[1], "without it, B's closing fence caps the old epochs for 20 rounds and it grows: " + both);
    }

    /**
     * A client that dies leaves transactions after its session's last fence, and no closing fence. The topology
     * retires the session after its timeout (retired, not closed) and releases them with its last epoch; the
     * verifier holds collection back at that fence for {@code pendingRoundsLimit} rounds, in case the session
     * comes back, and then collects as before: the retained set grows for those rounds and then falls back and
     * stays flat (measured: 10, 16, .. 130, then 7 from round 21 on).
     */
    @Test
    void aDeadClientsLastTransactionsDoNotStopGarbageCollection() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        int ai = 0;
        v.add(at(txn("fA1", "A", ++ai, "r EPOCH -", "w EPOCH e1"), 1, true));
        v.add(at(txn("fB2", "B", 1, "r EPOCH e1", "w EPOCH e2"), 2, true));
        v.add(at(txn("b1", "B", 2, "w y b1"), 2, false)); // after B's last fence: B dies here
        v.add(at(txn("b2", "B", 3, "r x -", "w y b2"), 2, false));
        long epoch = 2;
        long[] retained = new long[40];
        for (int round = 0; round < retained.length; round++) {
            for (int k = 0; k < 3; k++) {
                epoch++;
                v.add(at(txn("fA" + epoch, "A", ++ai, "r EPOCH e" + (epoch - 1), "w EPOCH e" + epoch), epoch, true));
                v.add(at(txn("a" + epoch, "A", ++ai, "w x a" + epoch), epoch, false));
            }
            RoundEnd.Builder e = RoundEnd.newBuilder().setRound(round).setTxns(0).setFirstEpoch(0).setLastEpoch(epoch).setEpochAgree(epoch).setCutAt(0);
            if (round == 1) e.setRetiredNow(List.of("B")); // silent past the timeout: retired, not closed
            Verdict r = v.endRound(e.build(), true);
            assertEquals(Outcome.ACCEPT, r.getOutcome(), r.getReason());
            retained[round] = r.getRetainedTxns();
        }
        int limit = RoundSettings.defaults().pendingRoundsLimit();
        assertTrue(retained[limit - 1] > 3 * retained[retained.length - 1], "B held collection back while it might come back: " + Arrays.toString(retained));
        assertTrue(retained[retained.length - 1] <= retained[limit + 5] + 2,
                "after B is long over, the retained set falls back and stays flat: " + Arrays.toString(retained));
    }

    /**
     * Retained counts after each of four rounds. Fences chain A, B, A, B (B's second is its closing fence), then
     * A alone, one fence and one transaction per epoch; an ordinary transaction between fences of epochs i and
     * i + 1 has epoch i. B ends in round 0.
     */
    private static long[] run(boolean closedNow) {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        long[] retained = new long[4];
        int ai = 0;
        v.add(at(txn("fA1", "A", ++ai, "r EPOCH -", "w EPOCH e1"), 1, true));
        v.add(at(txn("a1", "A", ++ai, "w x a1"), 2, false));
        v.add(at(txn("fB2", "B", 1, "r EPOCH e1", "w EPOCH e2"), 2, true));
        v.add(at(txn("b1", "B", 2, "w y b1"), 3, false));
        v.add(at(txn("fA3", "A", ++ai, "r EPOCH e2", "w EPOCH e3"), 3, true));
        v.add(at(txn("fB4", "B", 3, "r EPOCH e3", "w EPOCH e4"), 4, true)); // B's closing fence
        v.add(at(txn("a3", "A", ++ai, "w x a3"), 4, false));
        long epoch = 4;
        for (int round = 0; round < 4; round++) {
            for (int k = 0; k < 3; k++) {
                epoch++;
                v.add(at(txn("fA" + epoch, "A", ++ai, "r EPOCH e" + (epoch - 1), "w EPOCH e" + epoch), epoch, true));
                v.add(at(txn("a" + epoch, "A", ++ai, "w x a" + epoch), epoch, false));
            }
            RoundEnd.Builder e = RoundEnd.newBuilder().setRound(round).setTxns(0).setFirstEpoch(0).setLastEpoch(epoch).setEpochAgree(epoch).setCutAt(0);
            if (round == 0) {
                e.setRetiredNow(List.of("B"));
                if (closedNow) e.setClosedNow(List.of("B"));
            }
            Verdict r = v.endRound(e.build(), true);
            assertEquals(Outcome.ACCEPT, r.getOutcome(), r.getReason());
            retained[round] = r.getRetainedTxns();
        }
        return retained;
    }

    @Test
    void aReadOfAWriteFromALaterRoundWaitsInsteadOfBeingRejected() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        v.add(txn("t2", "b", 1, "r x w1", "w y w2"));
        v.add(txn("t3", "b", 2, "r y w2")); // reads t2, itself waiting
        Verdict r0 = v.endRound(end(0), true);
        assertEquals(Outcome.ACCEPT, r0.getOutcome());
        assertEquals(2, r0.getPendingTxns());
        assertEquals(0, r0.getCheckedTxns());
        assertTrue(r0.getReason().contains("oldest: t2 reads x = w1, which nobody has written yet"), r0.getReason());
        v.add(txn("t1", "a", 1, "w x w1"));
        Verdict r1 = v.endRound(end(1), true);
        assertEquals(Outcome.ACCEPT, r1.getOutcome());
        assertEquals(0, r1.getPendingTxns());
        assertEquals(3, r1.getCheckedTxns());
    }

    @Test
    void everyVerdictSaysWhichLevelItIsAbout() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        v.add(txn("t1", "a", 1, "w x 1"));
        Verdict plain = v.endRound(end(0), true);
        assertEquals("serializable", plain.getIsolation().toString());
        RoundVerifier s = new RoundVerifier(RoundSettings.defaults().withCheck(RoundSettings.defaults().check().withStrict(2)));
        s.add(txn("t1", "a", 1, "w x 1"));
        Verdict strict = s.endRound(end(0), true);
        assertEquals("strict-serializable", strict.getIsolation().toString());
        assertTrue(strict.getStrict());
    }

    @Test
    void aWriteSkewSplitAcrossRoundsIsRejectedWithItsCycle() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        v.add(txn("init", "s0", 1, "w x x0", "w y y0"));
        v.add(txn("a", "s1", 1, "r x x0", "r y y0", "w x x1"));
        assertEquals(Outcome.ACCEPT, v.endRound(end(0), true).getOutcome());
        v.add(txn("b", "s2", 1, "r x x0", "r y y0", "w y y1"));
        Verdict r = v.endRound(end(1), true);
        assertEquals(Outcome.REJECT, r.getOutcome());
        assertNotNull(r.getCertificate());
        assertEquals(List.of("a", "b"), r.getCertificate().getCycle().stream().map(e -> e.getFrom()).sorted().toList());
        assertTrue(r.getCertificate().getCycle().stream().allMatch(e -> e.getKind().equals("rw")));
        assertTrue(r.getCertificate().getText().contains("rw"), r.getCertificate().getText());
    }

    @Test
    void aReadOfAWriteThatNeverArrivesEndsAsUnknownNeverAccept() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults().withPendingRoundsLimit(3));
        v.add(txn("t", "a", 1, "r x ghost"));
        assertEquals(Outcome.ACCEPT, v.endRound(end(0), true).getOutcome());
        assertEquals(Outcome.ACCEPT, v.endRound(end(1), true).getOutcome());
        Verdict r = v.endRound(end(2), true);
        assertEquals(Outcome.UNKNOWN, r.getOutcome());
        assertTrue(r.getReason().startsWith("1 transactions read writes that have not arrived after 3 rounds"), r.getReason());
    }

    @Test
    void aDuplicateDeliveryIsIgnored() {
        RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
        v.add(txn("t1", "a", 1, "w x 1"));
        v.add(txn("t1", "a", 1, "w x 1"));
        assertEquals(Outcome.ACCEPT, v.endRound(end(0), true).getOutcome());
        assertEquals(1, v.duplicates());
        assertEquals(1, v.checkedCount());
    }

    /**
     * Ground truth: random histories from a simulated store (serial, snapshot isolation, read committed,
     * stale reads), delivered in random rounds, each round's transactions in a random order. After the last
     * round, the verdict equals one-shot verification of the whole history; and no round rejects a history
     * that one-shot verification accepts.
     */
    @Test
    void roundByRoundAgreesWithOneShotOnSimulatedStores() {
        Random rnd = new Random(Long.getLong("cobra.propertySeed", 7));
        int runs = Integer.getInteger("cobra.propertyRuns", 300);
        int rejects = 0;
        for (int run = 0; run < runs; run++) {
            SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[run % 4];
            History h = SimulatedStore.run(iso, new SimulatedStore.Workload(2 + rnd.nextInt(3), 2 + rnd.nextInt(5), 2 + rnd.nextInt(4), 3,
                    0.5, 0.1, 0.05), rnd);
            org.cobraverify.checker.Verdict oneShot = Checker.check(h);
            List<Transaction> txns = toTransactions(h);
            Collections.shuffle(txns, rnd);
            RoundVerifier v = new RoundVerifier(RoundSettings.defaults());
            int i = 0;
            long round = 0;
            Verdict last = null;
            while (i < txns.size()) {
                int n = 1 + rnd.nextInt(Math.max(1, txns.size() / 2));
                for (int k = 0; k < n && i < txns.size(); k++) v.add(txns.get(i++));
                last = v.endRound(end(round++), true);
                if (oneShot.outcome() == org.cobraverify.checker.Verdict.Outcome.ACCEPT)
                    assertNotEquals(Outcome.REJECT, last.getOutcome(), iso + " run " + run + ": a round rejected an accepted history");
            }
            Outcome expected = switch (oneShot.outcome()) {
                case ACCEPT -> Outcome.ACCEPT;
                case REJECT -> Outcome.REJECT;
                case UNKNOWN -> Outcome.UNKNOWN;
            };
            assertEquals(expected, last.getOutcome(), iso + " run " + run + ": " + last.getReason() + " / one-shot: "
                    + (oneShot.certificate() == null ? "" : oneShot.certificate().summary()));
            if (expected == Outcome.REJECT) rejects++;
        }
        assertTrue(rejects > runs / 10, "the campaign must include violations, had " + rejects);
    }

    /**
     * Deciding several rounds at once (a verifier catching up) gives the same outcomes, counts and order
     * as deciding them one by one, on the same simulated histories.
     */
    @Test
    void decidingRoundsInABatchEqualsDecidingThemOneByOne() {
        Random rnd = new Random(11);
        int rejects = 0;
        for (int run = 0; run < 200; run++) {
            SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[run % 4];
            History h = SimulatedStore.run(iso, new SimulatedStore.Workload(3, 2 + rnd.nextInt(5), 3, 3, 0.5, 0.1, 0.05), rnd);
            List<Transaction> txns = toTransactions(h);
            Collections.shuffle(txns, rnd);
            List<List<Transaction>> rounds = new ArrayList<>();
            for (int i = 0; i < txns.size(); ) {
                int n = 1 + rnd.nextInt(4);
                rounds.add(new ArrayList<>(txns.subList(i, Math.min(txns.size(), i + n))));
                i += n;
            }
            RoundVerifier one = new RoundVerifier(RoundSettings.defaults()), batch = new RoundVerifier(RoundSettings.defaults());
            List<Verdict> a = new ArrayList<>(), b = new ArrayList<>();
            for (int r = 0; r < rounds.size(); r++) {
                for (Transaction t : rounds.get(r)) one.add(t);
                a.add(one.endRound(end(r), true));
            }
            // the batch verifier sees the same rounds, several at a time (its add calls interleave with round ends as a poll would)
            int r = 0;
            while (r < rounds.size()) {
                int k = 1 + rnd.nextInt(3);
                List<RoundVerifier.Closed> closed = new ArrayList<>();
                for (int j = 0; j < k && r < rounds.size(); j++, r++) {
                    for (Transaction t : rounds.get(r)) batch.add(t);
                    closed.add(batch.closeRound(end(r)));
                }
                b.addAll(batch.decide(closed));
            }
            assertEquals(a.size(), b.size());
            for (int i = 0; i < a.size(); i++) {
                assertEquals(a.get(i).getOutcome(), b.get(i).getOutcome(), iso + " run " + run + " round " + i + ": " + b.get(i).getReason());
                assertEquals(a.get(i).getCheckedTxns(), b.get(i).getCheckedTxns());
                assertEquals(a.get(i).getPendingTxns(), b.get(i).getPendingTxns());
                assertEquals(a.get(i).getRoundTxns(), b.get(i).getRoundTxns());
            }
            if (a.get(a.size() - 1).getOutcome() == Outcome.REJECT) rejects++;
        }
        assertTrue(rejects > 10, "violations among the runs: " + rejects);
    }

    /** A history's transactions as the pipeline delivers them (session positions kept). */
    static List<Transaction> toTransactions(History h) {
        List<Transaction> out = new ArrayList<>();
        int[] idx = new int[h.sessionCount()];
        for (int t = 0; t < h.size(); t++) {
            List<TxnOp> ops = new ArrayList<>();
            for (int o = h.opStart(t); o < h.opEnd(t); o++) {
                Object val = h.valueName(h.value(o));
                ops.add(new TxnOp(h.kind(o) == History.WRITE, String.valueOf(h.keyName(h.key(o))), val == null ? null : String.valueOf(val)));
            }
            TxnStatus st = h.status(t) == History.COMMITTED ? TxnStatus.COMMITTED : h.status(t) == History.ABORTED ? TxnStatus.ABORTED : TxnStatus.UNKNOWN;
            out.add(Transaction.newBuilder().setId(h.name(t)).setSession(String.valueOf(h.sessionName(h.session(t)))).setStatus(st)
                    .setStart(h.start(t) == History.NO_TIME ? 0 : h.start(t)).setEnd(h.end(t) == History.NO_TIME ? 0 : h.end(t))
                    .setOps(ops).setSessionIndex(++idx[h.session(t)]).build());
        }
        return out;
    }
}
