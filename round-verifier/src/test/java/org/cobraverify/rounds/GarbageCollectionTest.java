package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.GarbageCollection;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Garbage collection on hand-made histories whose answer is known: what a careless GC gets wrong, and
 * reads of collected writes.
 */
class GarbageCollectionTest {
    @AfterEach
    void reset() { GarbageCollection.carelessForTests = false; }

    static Transaction txn(String id, String session, long index, long epoch, boolean fence, String... ops) {
        List<TxnOp> l = new ArrayList<>();
        for (String s : ops) {
            String[] f = s.split(" ");
            l.add(new TxnOp(f[0].equals("w"), f[1], f[2].equals("-") ? null : f[2]));
        }
        return Transaction.newBuilder().setId(id).setSession(session).setStatus(TxnStatus.COMMITTED).setStart(0L).setEnd(0L)
                .setOps(l).setSessionIndex(index).setFence(fence).setEpoch(epoch).build();
    }

    /**
     * Sessions A and B, fences f1..f6 chained through EPOCH. F1 writes c; T3 reads it and writes e; T5
     * overwrites e; R reads T3's e and writes c. So F1 ⇝ T3 → R: F1's c precedes R's. After round 1, GC
     * closes epochs ≤ 4: T3 is superseded (T5 overwrote its e; only old transactions reach it). Then T8,
     * after R in session B, reads F1's c: stale, since R overwrote it. The only proof goes through T3: a
     * GC that deletes T3 and forgets the path F1 ⇝ R accepts; ours must reject.
     */
    private static List<List<Transaction>> pathThroughCollected() {
        List<Transaction> r1 = List.of(
                txn("f1", "A", 1, 1, true, "r EPOCH -", "w EPOCH e1"),
                txn("F1", "A", 2, 2, false, "w c c1"),
                txn("f2", "B", 1, 2, true, "r EPOCH e1", "w EPOCH e2"),
                txn("f3", "A", 3, 3, true, "r EPOCH e2", "w EPOCH e3"),
                txn("T3", "A", 4, 4, false, "r c c1", "w e e3"),
                txn("f4", "B", 2, 4, true, "r EPOCH e3", "w EPOCH e4"),
                txn("R", "B", 3, 5, false, "r e e3", "w c cR"),
                txn("T5", "A", 5, 4, false, "w e e5"),
                txn("f5", "A", 6, 5, true, "r EPOCH e4", "w EPOCH e5"),
                txn("f6", "B", 4, 6, true, "r EPOCH e5", "w EPOCH e6"));
        List<Transaction> r2 = List.of(txn("T8", "B", 5, -1, false, "r c c1"));
        return List.of(r1, r2);
    }

    private static IncrementalVerifier.RoundResult[] runTwoRounds(List<List<Transaction>> rounds) {
        try (IncrementalVerifier v = new IncrementalVerifier(IncrementalVerifier.Settings.defaults(), new InMemoryCollectedWrites())) {
            for (Transaction t : rounds.get(0)) v.add(t);
            IncrementalVerifier.RoundResult a = v.endRound(4, s -> false);
            for (Transaction t : rounds.get(1)) v.add(t);
            IncrementalVerifier.RoundResult b = v.endRound(4, s -> false);
            return new IncrementalVerifier.RoundResult[] {a, b};
        }
    }

    @Test
    void aCycleThroughACollectedTransactionIsStillFound() {
        List<List<Transaction>> rounds = pathThroughCollected();
        // ground truth: the whole history, one-shot
        HistoryBuilder b = new HistoryBuilder();
        List<Transaction> all = new ArrayList<>(rounds.get(0));
        all.addAll(rounds.get(1));
        for (Transaction t : SessionOrder.of(all)) {
            b.begin(t.getId(), b.session(t.getSession()), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            for (TxnOp o : t.getOps()) {
                int k = b.key(o.getKey());
                if (o.getWrite()) b.write(k, b.value(o.getValue())); else b.read(k, o.getValue() == null ? History.NIL : b.value(o.getValue()));
            }
            b.end();
        }
        assertEquals(Verdict.Outcome.REJECT, Checker.check(b.build()).outcome());

        IncrementalVerifier.RoundResult[] ours = runTwoRounds(rounds);
        assertEquals(Verdict.Outcome.ACCEPT, ours[0].outcome(), ours[0].reason());
        assertTrue(ours[0].collectedNow() >= 1, "T3 (and old fences) were collected: " + ours[0].collectedNow() + "; " + ours[0].gcNote());
        assertEquals(Verdict.Outcome.REJECT, ours[1].outcome(), ours[1].reason());
        String cycle = ours[1].certificate().summary();
        assertTrue(cycle.contains("R") && cycle.contains("F1"), cycle);
        String why = ours[1].certificate().cycle().stream().map(e -> String.valueOf(e.derivedBecause())).reduce("", String::concat);
        assertTrue(why.contains("T8") && why.contains("garbage-collected"), "the proof names T8 and the path through collected T3: " + why);

        GarbageCollection.carelessForTests = true;
        IncrementalVerifier.RoundResult[] careless = runTwoRounds(rounds);
        assertEquals(Verdict.Outcome.ACCEPT, careless[0].outcome());
        assertEquals(Verdict.Outcome.ACCEPT, careless[1].outcome(), "a careless GC loses the path F1 ⇝ R and accepts: this test has teeth");
    }

    @Test
    void aReadOfACollectedWriteIsAStaleReadNamingWriterAndSuperseder() {
        List<List<Transaction>> rounds = pathThroughCollected();
        List<Transaction> r2 = List.of(txn("T9", "A", 7, -1, false, "r e e3")); // T3's e, which T5 superseded; T9 follows f5
        IncrementalVerifier.RoundResult[] res = runTwoRounds(List.of(rounds.get(0), r2));
        assertEquals(Verdict.Outcome.REJECT, res[1].outcome(), res[1].reason());
        assertEquals(AnomalyKind.STALE_READ, res[1].certificate().kind());
        String s = res[1].certificate().summary();
        assertTrue(s.contains("T9") && s.contains("T3") && s.contains("T5"), s);
        assertEquals(2, res[1].certificate().cycle().size());
    }

    @Test
    void aReadOfACollectedAbortedWriteIsG1a() {
        List<Transaction> r1 = new ArrayList<>(pathThroughCollected().get(0));
        Transaction ab = txn("X", "A", 0, 1, false, "w q q1");
        ab.setStatus(TxnStatus.ABORTED);
        r1.add(0, ab);
        IncrementalVerifier.RoundResult[] res = runTwoRounds(List.of(r1, List.of(txn("T9", "A", 7, -1, false, "r q q1"))));
        assertEquals(Verdict.Outcome.REJECT, res[1].outcome(), res[1].reason());
        assertEquals(AnomalyKind.G1A, res[1].certificate().kind());
    }

    @Test
    void aStaleReaderThatDoesNotFollowTheCollectedPastIsUnknownNotRejected() {
        List<List<Transaction>> rounds = pathThroughCollected();
        // a new session with no fence reads T3's e: it could be serialized before T5, so nothing is proved
        IncrementalVerifier.RoundResult[] res = runTwoRounds(List.of(rounds.get(0), List.of(txn("N1", "C", 1, -1, false, "r e e3"))));
        assertEquals(Verdict.Outcome.UNKNOWN, res[1].outcome(), res[1].reason());
        assertTrue(res[1].reason().contains("cannot be judged"), res[1].reason());
    }

    @Test
    void fencesChainIntoEpochsAndTransactionsTakeTheNextFenceLessOne() {
        HistoryBuilder b = new HistoryBuilder();
        int e = b.key("EPOCH"), x = b.key("x");
        int s1 = b.session("s1"), s2 = b.session("s2");
        b.begin("a", s1, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.write(x, b.value("1")); b.end();
        b.begin("f1", s1, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(e, History.NIL); b.write(e, b.value("e1")); b.end();
        b.begin("f2", s2, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(e, b.value("e1")); b.write(e, b.value("e2")); b.end();
        b.begin("c", s2, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(x, b.value("1")); b.end();
        b.begin("f3", s2, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(e, b.value("e2")); b.write(e, b.value("e3")); b.end();
        b.begin("d", s1, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(x, b.value("1")); b.end();
        b.begin("bad", s1, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1); b.read(e, b.value("zz")); b.write(e, b.value("e9")); b.end();
        History h = b.build();
        EpochAssigner ep = new EpochAssigner(h, "EPOCH");
        assertEquals(3, ep.fenceCount(), "'bad' read a value no fence wrote: not a fence");
        assertEquals(0, ep.epoch(0)); // a: before f1 (epoch 1)
        assertEquals(1, ep.epoch(1));
        assertEquals(2, ep.epoch(2));
        assertEquals(2, ep.epoch(3)); // c: between f2 and f3
        assertEquals(3, ep.epoch(4));
        assertEquals(EpochAssigner.OPEN, ep.epoch(5)); // d: after s1's last fence
        assertEquals(1, ep.previousFence(5));
        assertEquals(0, ep.previousFence(0));
        assertFalse(ep.isFence(6));
    }

    @Test
    void sessionsThatEndNeedNoEntryFence() {
        // after round 1 session A is over; B goes on: GC still runs (A needs no entry)
        List<Transaction> r1 = pathThroughCollected().get(0);
        try (IncrementalVerifier v = new IncrementalVerifier(IncrementalVerifier.Settings.defaults(), new InMemoryCollectedWrites())) {
            for (Transaction t : r1) v.add(t);
            IncrementalVerifier.RoundResult a = v.endRound(4, Set.of("A")::contains);
            assertNull(a.gcNote(), a.gcNote());
            assertTrue(a.collectedNow() > 0);
        }
    }
}
