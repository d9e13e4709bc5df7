package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * Rounds with aborted and unknown-outcome transactions on histories whose one-shot verdict is known, delivered
 * round by round as the pipeline may deliver them. Each case is a regression: on the code before it was fixed,
 * rounds gave the opposite answer to the one-shot check (A: a false reject of an aborted or unknown reader of a
 * collected aborted write; B: a false accept when a waiting reader pinned an unknown-outcome transaction that
 * garbage collection had set aside).
 */
class AbortedAndUnknownInRoundsTest {
    /** A small pipeline: sessions that fence once per round, chained through one fence key. */
    private static final class Rounds implements AutoCloseable {
        final IncrementalVerifier v;
        final List<String> sessions; // those that fence every round
        final Map<String, Long> index = new HashMap<>(), lastFence = new HashMap<>();
        final List<Transaction> all = new ArrayList<>();
        long epoch;
        final List<IncrementalVerifier.RoundResult> results = new ArrayList<>();

        Rounds(IncrementalVerifier.Settings s, String... sessions) {
            this.v = new IncrementalVerifier(s, new InMemoryCollectedWrites());
            this.sessions = new ArrayList<>(List.of(sessions));
        }

        /** The next transaction of {@code session}, in the epoch of its latest fence. */
        Transaction txn(String id, String session, TxnStatus status, String... ops) {
            return add(GarbageCollectionTest.txn(id, session, next(session), lastFence.getOrDefault(session, 0L), false, ops), status);
        }

        /** The next fence of {@code session}: it reads the latest fence's write. */
        Transaction fence(String session) {
            long e = ++epoch;
            lastFence.put(session, e);
            return add(GarbageCollectionTest.txn("f" + e, session, next(session), e, true, "r EPOCH " + (e == 1 ? "-" : "e" + (e - 1)), "w EPOCH e" + e),
                    TxnStatus.COMMITTED);
        }

        private long next(String session) { return index.merge(session, 1L, Long::sum); }

        private Transaction add(Transaction t, TxnStatus status) {
            t.setStatus(status);
            v.add(t);
            all.add(t);
            return t;
        }

        /** Every session fences, then the round ends; epochs up to the agreement minus two are closed. */
        IncrementalVerifier.RoundResult round() {
            for (String s : sessions) fence(s);
            long agree = Long.MAX_VALUE;
            for (String s : sessions) agree = Math.min(agree, lastFence.get(s));
            IncrementalVerifier.RoundResult r = v.endRound(agree - 2, s -> false);
            results.add(r);
            return r;
        }

        /** The one-shot verdict on everything delivered. */
        Verdict.Outcome oneShot() {
            HistoryBuilder b = new HistoryBuilder();
            for (Transaction t : SessionOrder.of(all)) {
                byte st = t.getStatus() == TxnStatus.COMMITTED ? History.COMMITTED : t.getStatus() == TxnStatus.ABORTED ? History.ABORTED : History.UNKNOWN;
                b.begin(t.getId(), b.session(t.getSession()), st, History.NO_TIME, History.NO_TIME, -1);
                for (TxnOp o : t.getOps()) {
                    int k = b.key(o.getKey());
                    if (o.getWrite()) b.write(k, b.value(o.getValue())); else b.read(k, o.getValue() == null ? History.NIL : b.value(o.getValue()));
                }
                b.end();
            }
            return Checker.check(b.build()).outcome();
        }

        @Override
        public void close() { v.close(); }
    }

    /** Case A: X (aborted) writes q; many epochs later a reader of q. Returns the last round's result and the one-shot verdict. */
    private static Object[] readerOfACollectedAbortedWrite(TxnStatus reader) {
        try (Rounds r = new Rounds(IncrementalVerifier.Settings.defaults(), "A", "B")) {
            r.round();
            r.txn("X", "A", TxnStatus.ABORTED, "w q q1");
            for (int i = 0; i < 6; i++) r.round();
            long collected = r.v.collectedCount();
            r.txn("T9", "B", reader, "r q q1");
            IncrementalVerifier.RoundResult last = r.round();
            return new Object[] {last, r.oneShot(), collected};
        }
    }

    @Test
    void anAbortedReaderOfACollectedAbortedWriteIsNothing() {
        Object[] res = readerOfACollectedAbortedWrite(TxnStatus.ABORTED);
        IncrementalVerifier.RoundResult last = (IncrementalVerifier.RoundResult) res[0];
        assertTrue((long) res[2] > 0, "X was collected before its reader came");
        assertEquals(Verdict.Outcome.ACCEPT, res[1], "one-shot: neither transaction is in the serial order");
        assertEquals(Verdict.Outcome.ACCEPT, last.outcome(), last.reason());
    }

    @Test
    void anUnknownReaderOfACollectedAbortedWriteThatNobodyReadsIsNothing() {
        Object[] res = readerOfACollectedAbortedWrite(TxnStatus.UNKNOWN);
        IncrementalVerifier.RoundResult last = (IncrementalVerifier.RoundResult) res[0];
        assertEquals(Verdict.Outcome.ACCEPT, res[1], "one-shot: an unknown transaction nobody read need not have committed");
        assertEquals(Verdict.Outcome.ACCEPT, last.outcome(), last.reason());
    }

    @Test
    void aCommittedReaderOfACollectedAbortedWriteIsStillG1a() {
        Object[] res = readerOfACollectedAbortedWrite(TxnStatus.COMMITTED);
        IncrementalVerifier.RoundResult last = (IncrementalVerifier.RoundResult) res[0];
        assertEquals(Verdict.Outcome.REJECT, res[1]);
        assertEquals(Verdict.Outcome.REJECT, last.outcome(), last.reason());
        assertEquals(AnomalyKind.G1A, last.certificate().kind(), last.certificate().summary());
    }

    @Test
    void anUnknownReaderOfACollectedAbortedWriteIsJudgedOnceALaterReadIncludesIt() {
        try (Rounds r = new Rounds(IncrementalVerifier.Settings.defaults(), "A", "B")) {
            r.round();
            r.txn("X", "A", TxnStatus.ABORTED, "w q q1");
            for (int i = 0; i < 6; i++) r.round();
            r.txn("U9", "B", TxnStatus.UNKNOWN, "r q q1", "w u u9");
            IncrementalVerifier.RoundResult first = r.round();
            assertEquals(Verdict.Outcome.ACCEPT, first.outcome(), "nobody has read U9 yet: " + first.reason());
            r.txn("R", "A", TxnStatus.COMMITTED, "r u u9"); // U9 committed after all, and it read an aborted write
            IncrementalVerifier.RoundResult last = r.round();
            assertEquals(Verdict.Outcome.REJECT, r.oneShot());
            assertNotEquals(Verdict.Outcome.ACCEPT, last.outcome(), "U9's read of X's aborted write must be judged once R includes U9: " + last.reason());
        }
    }

    /**
     * Case B. U (unknown outcome, session A) reads n = c1 and writes m = u; X follows it in A and writes w = x1; C1 (B)
     * reads w = x1 and writes n = c1; C2 (C) overwrites n. P (D) reads m = u, which includes U, and z = z1, which Z
     * writes only rounds later (in a new session): P waits, pinning U. The cycle U -so-> X -wr-> C1 -wr-> U must
 * survive the wait.
     */
    @Test
    void anUnknownTransactionPinnedByAWaitingReaderIsNeverSetAside() {
        IncrementalVerifier.Settings s = IncrementalVerifier.Settings.defaults().withPendingRoundsLimit(3);
        try (Rounds r = new Rounds(s, "A", "B", "C", "D")) {
            r.round();
            r.txn("U", "A", TxnStatus.UNKNOWN, "r n c1", "w m u");
            r.txn("X", "A", TxnStatus.COMMITTED, "w w x1");
            r.txn("C1", "B", TxnStatus.COMMITTED, "r w x1", "w n c1");
            r.txn("C2", "C", TxnStatus.COMMITTED, "r n c1", "w n c2");
            r.round();
            r.round();
            r.txn("P", "D", TxnStatus.COMMITTED, "r m u", "r z z1");
            r.sessions.remove("D"); // D falls silent after P: nothing orders P before later fences
            for (int i = 0; i < 8; i++) r.round(); // U is old and has waited far past the limit; P still waits
            r.fence("E"); // a new session: its first fence follows the collected past, then Z
            r.txn("Z", "E", TxnStatus.COMMITTED, "w z z1");
            IncrementalVerifier.RoundResult last = r.round();
            assertEquals(Verdict.Outcome.REJECT, r.oneShot(), "U -so-> X -wr-> C1 -wr-> U, with U included by P's read");
            assertEquals(Verdict.Outcome.REJECT, last.outcome(), last.reason());
        }
    }
}
