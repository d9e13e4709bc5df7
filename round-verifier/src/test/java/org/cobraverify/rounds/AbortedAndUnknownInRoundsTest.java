package org.cobraverify.rounds;

import org.cobraverify.gc.InMemoryCollectedWrites;
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
 * garbage collection had set aside). Case C (settlement) is checked the same way.
 */
class AbortedAndUnknownInRoundsTest {
    /**
     * A small pipeline: sessions that fence once per round, chained through one fence key, and stamp epochs by the
     * rules (a transaction between its session's fences of epochs i and j has max(j − 1, i); one after its session's
     * last fence keeps that fence's epoch, as the topology releases a silent session's).
     */
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

        /** Transactions not stamped yet: each takes its session's next fence's epoch minus one (rule 3), or its last fence's. */
        final Map<String, List<Transaction>> unstamped = new HashMap<>();

        /** The next transaction of {@code session}. */
        Transaction txn(String id, String session, TxnStatus status, String... ops) {
            Transaction t = add(GarbageCollectionTest.txn(id, session, next(session), lastFence.getOrDefault(session, 0L), false, ops), status);
            unstamped.computeIfAbsent(session, x -> new ArrayList<>()).add(t);
            return t;
        }

        /** The next fence of {@code session}: it reads the latest fence's write. */
        Transaction fence(String session) {
            long e = ++epoch;
            long before = lastFence.getOrDefault(session, 0L);
            for (Transaction t : unstamped.getOrDefault(session, List.of())) t.setEpoch(Math.max(e - 1, before));
            unstamped.remove(session);
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

    /**
     * Case C. A1 (A) and C1 (C) write x and y blind; W3 (B) overwrites both later, so the order of A1 and C1 on x is
     * an open constraint that no later read can resolve, and garbage collection settles it on the side the round's
     * solution took. U (unknown outcome, E) reads one of their y's and is followed in E by Q1, which reads the other's
     * x; Q2 (B) reads the first one's x. P (D) reads U's write, and waits for Z. Once P includes U, the edges
     * writer -wr-> U -so-> Q1 order the constraint one way: settling it the other way before, while U was outside the
     * graph, rejects a serializable history. Both variants (U reads C1's y, or A1's) must be accepted, whichever way
     * the solver chose. (Unlike A and B this construction did not fail on the code before the fix: there the solver
     * settled the side U agrees with. It stands as a check that U, while it may still join, keeps the constraint
     * open: it holds its epochs open, so Q1 is not old and stays a source of the future.)
     */
    @Test
    void aConstraintIsNotSettledAgainstEdgesAnUnknownTransactionMayStillBring() {
        for (boolean readsC1 : new boolean[] {true, false}) {
            IncrementalVerifier.Settings s = IncrementalVerifier.Settings.defaults().withPendingRoundsLimit(3);
            try (Rounds r = new Rounds(s, "A", "B", "C", "D", "E")) {
                r.round();
                // start times steer the solver's first guess towards the order that U will contradict (Q1's writer first)
                Transaction a1 = r.txn("A1", "A", TxnStatus.COMMITTED, "w x xa", "w y ya");
                Transaction c1 = r.txn("C1", "C", TxnStatus.COMMITTED, "w x xc", "w y yc");
                r.txn("U", "E", TxnStatus.UNKNOWN, readsC1 ? "r y yc" : "r y ya", "w m u").setStart(readsC1 ? 350 : 150);
                r.txn("Q1", "E", TxnStatus.COMMITTED, readsC1 ? "r x xa" : "r x xc").setStart(200);
                r.txn("Q2", "B", TxnStatus.COMMITTED, readsC1 ? "r x xc" : "r x xa").setStart(400);
                (readsC1 ? a1 : c1).setStart(100);
                (readsC1 ? c1 : a1).setStart(300);
                r.round();
                r.txn("W3", "B", TxnStatus.COMMITTED, "w x x3", "w y y3");
                r.round();
                // after D's fence that follows A1 and C1 (it holds nothing of theirs open), before U is set aside
                r.txn("P", "D", TxnStatus.COMMITTED, "r m u", "r z z1");
                r.sessions.remove("D");
                for (int i = 0; i < 8; i++) r.round();
                r.fence("F");
                r.txn("Z", "F", TxnStatus.COMMITTED, "w z z1");
                IncrementalVerifier.RoundResult last = r.round();
                String what = readsC1 ? "U reads C1's y" : "U reads A1's y";
                assertEquals(Verdict.Outcome.ACCEPT, r.oneShot(), what);
                assertEquals(Verdict.Outcome.ACCEPT, last.outcome(), what + ": " + last.reason());
            }
        }
    }
}
