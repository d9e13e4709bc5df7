package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.junit.jupiter.api.Test;

/**
 * The ladder on the anomalies that tell its rungs apart: each history is accepted up to one level and rejected from the
 * next, with the anomaly's name in the certificate of the first level it breaks.
 */
class IsolationLevelsTest {
    private static final CheckOptions OPTIONS = CheckOptions.defaults().withStrict(0);

    /** A tiny history language: {@code "T1 s1 [r x 1] [w y 2]"}, one transaction per string; {@code nil} reads the initial state. */
    static History history(String... txns) {
        HistoryBuilder b = new HistoryBuilder();
        for (String line : txns) {
            String[] p = line.split(" ");
            byte status = History.COMMITTED;
            long start = History.NO_TIME, end = History.NO_TIME;
            int i = 2;
            for (; i < p.length && !p[i].equals("r") && !p[i].equals("w"); i++) {
                if (p[i].equals("aborted")) status = History.ABORTED;
                else if (p[i].equals("unknown")) status = History.UNKNOWN;
                else if (p[i].startsWith("@")) { String[] se = p[i].substring(1).split("-"); start = Long.parseLong(se[0]); end = Long.parseLong(se[1]); }
            }
            b.begin(p[0], b.session(p[1]), status, start, end, -1);
            for (; i < p.length; i += 3) {
                int k = b.key(p[i + 1]);
                if (p[i].equals("w")) b.write(k, b.value(Long.parseLong(p[i + 2])));
                else b.read(k, p[i + 2].equals("nil") ? History.NIL : b.value(Long.parseLong(p[i + 2])));
            }
            b.end();
        }
        return b.build();
    }

    /** Accepted at every level up to {@code strongest}, rejected above it; the first rejection names {@code kind}. */
    private static void ladder(History h, IsolationLevel strongest, AnomalyKind kind) {
        Isolation.Ladder l = Isolation.checkAll(h, OPTIONS);
        assertEquals(strongest, l.strongest(), () -> "verdicts: " + l.verdicts());
        assertTrue(l.consistent());
        IsolationLevel broken = l.weakestViolated();
        if (kind == null) { assertEquals(null, broken); return; }
        Verdict v = l.verdicts().get(broken);
        assertNotNull(v.certificate());
        assertEquals(kind, v.certificate().kind(), v.certificate().summary());
    }

    @Test
    void dirtyReadBreaksEveryLevel() {
        ladder(history("T1 a aborted w x 1", "T2 b r x 1"), null, AnomalyKind.G1A);
    }

    @Test
    void readingAnOlderVersionAfterANewerOneBreaksReadCommitted() {
        // T3 saw T2's y, then read x older than T2's x: T2 is visible by an earlier read
        ladder(history("T1 a w x 1", "T2 b r x 1 w x 2 w y 2", "T3 c r y 2 r x 1"), null, AnomalyKind.NON_MONOTONIC_READ);
    }

    @Test
    void missingItsSessionsEarlierWriteIsReadCommittedOnly() {
        // Biswas and Enea's read committed has no session premise; strong session read committed adds read-your-writes
        ladder(history("T1 a w x 1", "T2 a r x nil"), IsolationLevel.READ_COMMITTED, AnomalyKind.READ_YOUR_WRITES);
    }

    @Test
    void nonRepeatableReadIsReadCommittedOnly() {
        ladder(history("T1 a w x 1", "T2 b r x nil r x 1"), IsolationLevel.STRONG_SESSION_READ_COMMITTED, AnomalyKind.NON_REPEATABLE_READ);
    }

    @Test
    void fracturedReadIsReadCommittedOnly() {
        // T3 read x from T2 before it read y from T1: read committed orders only T2's y before T1's; read atomic sees T1 too
        ladder(history("T1 a w x 1 w y 1", "T2 b w x 2 w y 2", "T3 c r x 2 r y 1"), IsolationLevel.STRONG_SESSION_READ_COMMITTED, AnomalyKind.FRACTURED_READ);
    }

    @Test
    void fracturedReadOfTheInitialState() {
        ladder(history("T1 a w x 1 w y 1", "T3 c r y nil r x 1"), IsolationLevel.STRONG_SESSION_READ_COMMITTED, AnomalyKind.FRACTURED_READ);
    }

    @Test
    void causalityViolationIsReadAtomicOnly() {
        ladder(history("T1 a w x 1", "T2 b r x 1 w y 1", "T3 c r y 1 r x nil"), IsolationLevel.READ_ATOMIC, AnomalyKind.CAUSALITY_VIOLATION);
    }

    @Test
    void longForkIsCausalOnly() {
        ladder(history("T1 a w x 1", "T2 b w y 1", "T3 c r x 1 r y nil", "T4 d r y 1 r x nil"), IsolationLevel.CAUSAL, AnomalyKind.LONG_FORK);
    }

    @Test
    void lostUpdateIsCausalOnly() {
        ladder(history("T1 a r x nil w x 1", "T2 b r x nil w x 2"), IsolationLevel.CAUSAL, AnomalyKind.LOST_UPDATE);
    }

    /**
     * Every lost update at snapshot isolation, one certificate each, though two share a transaction (T1 lost both); each
     * blames its two overwriters, not the writer of the version they both read (docs/DESIGN.md §7.10).
     */
    @Test
    void everyLostUpdateHasItsOwnCertificate() {
        History h = history("T0 a w x 0 w y 0", "T1 b r x 0 w x 1 r y 0 w y 1", "T2 c r x 0 w x 2", "T3 d r y 0 w y 3", "T4 e r z nil w z 4",
                "T5 f r z nil w z 5");
        Verdict v = Isolation.check(h, IsolationLevel.SNAPSHOT_ISOLATION, OPTIONS);
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        java.util.List<Certificate> all = new java.util.ArrayList<>();
        all.add(v.certificate());
        all.addAll(v.moreViolations());
        java.util.Set<java.util.Set<String>> blamed = new java.util.HashSet<>();
        for (Certificate c : all) {
            assertEquals(AnomalyKind.LOST_UPDATE, c.kind(), c.summary());
            java.util.Set<String> ids = new java.util.TreeSet<>();
            for (int i : c.kind().blamed(c.transactions().size())) ids.add(c.transactions().get(i).id());
            blamed.add(ids);
        }
        assertEquals(java.util.Set.of(java.util.Set.of("T1", "T2"), java.util.Set.of("T1", "T3"), java.util.Set.of("T4", "T5")), blamed,
                all.stream().map(Certificate::summary).toList().toString());
        assertEquals(3, all.size());
    }

    @Test
    void writeSkewIsSnapshotIsolationOnly() {
        ladder(history("T1 a r x nil r y nil w x 1", "T2 b r x nil r y nil w y 2"), IsolationLevel.SNAPSHOT_ISOLATION, AnomalyKind.WRITE_SKEW);
    }

    @Test
    void concurrentBlindWritersAreNotSnapshotIsolation() {
        // T3 saw T1's x and T2's y but the initial z; T1 and T2 both wrote z: one's z must precede the other's start
        History h = history("T1 a w x 1 w z 1", "T2 b w y 2 w z 2", "T3 c r x 1 r y 2 r z nil");
        assertEquals(Verdict.Outcome.REJECT, Isolation.check(h, IsolationLevel.READ_ATOMIC, OPTIONS).outcome());
    }

    @Test
    void staleReadInRealTimeIsSerializableOnly() {
        ladder(history("T1 a @0-10 w x 1", "T2 b @20-30 r x nil"), IsolationLevel.SERIALIZABLE, AnomalyKind.G_SINGLE);
    }

    @Test
    void aSerialHistorySatisfiesEveryLevel() {
        ladder(history("T1 a @0-10 w x 1 w y 1", "T2 b @20-30 r x 1 r y 1 w x 2", "T3 a @40-50 r x 2 w y 3"), IsolationLevel.STRICT_SERIALIZABLE, null);
    }

    /** Snapshot isolation on the small cases snapshot-isolation checkers are commonly tested with, each with its expected verdict. */
    @Test
    void snapshotIsolationOnTheClassicCases() {
        Object[][] cases = {
            // saw T1's y, then x older than T1's, though T1 followed T0 in their session
            {false, new String[] {"T0 a w x 1", "T1 a w x 2 w y 2", "T2 b r y 2 r x 1"}},
            // read x twice, two versions
            {false, new String[] {"T0 a w x 1", "T1 a w x 2", "T2 b r x 1 r x 2"}},
            // missed its own session's write of y
            {false, new String[] {"T0 a w x 1 w y 1", "T1 b r x 1 w y 2", "T2 b r x 1 r y 1"}},
            // fractured: x from T0, y from T1, which overwrote both
            {false, new String[] {"T0 a w x 1 w y 1", "T1 b w x 2 w y 2", "T2 c r x 1 r y 2"}},
            // causality: T3 sees T1, which saw T2's x, yet reads T0's x
            {false, new String[] {"T0 a w x 1", "T1 b r x 2 w y 1", "T2 c r x 1 w x 2", "T3 d r x 1 r y 1"}},
            // prefix: T2 saw T1 after T0's y; T4 saw T3 (after T0's x) yet T0's x
            {false, new String[] {"T0 a w x 1 w y 1", "T1 b r x 1 w x 2", "T2 c r x 2 r y 1", "T3 d r y 1 w y 2", "T4 e r y 2 r x 1"}},
            // lost update
            {false, new String[] {"T0 a w x 1", "T1 b r x 1 w x 2", "T2 c r x 1 w x 3"}},
            // write skew: snapshot isolated
            {true, new String[] {"T0 a w x 1 w y 1", "T1 b r x 1 r y 1 w x 2", "T2 c r x 1 r y 1 w y 2"}},
            // two concurrent writers of z, each missing the other's earlier write
            {false, new String[] {"T0 a w x 0 w y 0 w z 0", "T1 b r x 0 w y 1 w z 1", "T2 c r y 0 w x 1 w z 2"}},
            // three sessions, each transaction reading one another's initial state: a consistent snapshot order exists
            {true, new String[] {"T6 a w w 1", "T5 b w z 1", "T3 c w y 1", "T1 a w x 1 w w 2 r y 1", "T4 b w z 2 r w 1", "T2 c w x 2 w y 2 r z 1"}},
            // internal reads
            {false, new String[] {"T0 a w x 0 w x 1 r x 0"}},
            {false, new String[] {"T0 a w x 0 w x 1 r x 1 r x 0"}},
            {false, new String[] {"T0 a w x 1 r x 0", "T1 b w x 0"}},
            // long fork
            {false, new String[] {"T0 a w x 0 w y 0", "T1 b w x 1", "T2 c w y 1", "T3 d r x 1 r y 0", "T4 e r x 0 r y 1", "T5 a w x 2"}},
        };
        for (Object[] c : cases) {
            History h = history((String[]) c[1]);
            Verdict v = Isolation.check(h, IsolationLevel.SNAPSHOT_ISOLATION, OPTIONS);
            assertEquals((Boolean) c[0] ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(), String.join(" | ", (String[]) c[1]));
        }
    }

    /** A second list read of a key must repeat the first element by element: the same length and last element are not enough. */
    @Test
    void aRepeatedListReadIsComparedWhole() {
        HistoryBuilder b = new HistoryBuilder();
        int x = b.key("x");
        b.begin("T1", b.session("a"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.append(x, b.value(1));
        b.append(x, b.value(2));
        b.end();
        b.begin("T2", b.session("b"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.readList(x, new int[] {b.value(1), b.value(2)});
        b.readList(x, new int[] {b.value(9), b.value(2)});
        b.end();
        History h = b.build();
        for (IsolationLevel l : IsolationLevel.values())
            assertEquals(Verdict.Outcome.REJECT, Isolation.check(h, l, OPTIONS).outcome(), l.longName());
    }

    /** Issue 65, B: a list read observes every append in it, not only the last; missing another key its first appender wrote is fractured. */
    @Test
    void aListReadObservesEveryAppenderInIt() {
        // T3 saw T1's append of k first (a read committed premise for its later read of y), so y = [] breaks every level
        ladder(listFracture(true), null, AnomalyKind.NON_MONOTONIC_READ);
        // read in the other order it is read committed (the premise is an earlier read) and a fractured read above
        ladder(listFracture(false), IsolationLevel.STRONG_SESSION_READ_COMMITTED, AnomalyKind.FRACTURED_READ);
    }

    /** T1 appends 1 to k and 11 to y; T2 appends 2 to k; T3 reads k = [1 2] and y = [], k first or y first. */
    private static History listFracture(boolean kFirst) {
        HistoryBuilder b = new HistoryBuilder();
        int k = b.key("k"), y = b.key("y");
        b.begin("T1", b.session("a"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.append(k, b.value(1));
        b.append(y, b.value(11));
        b.end();
        b.begin("T2", b.session("b"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.append(k, b.value(2));
        b.end();
        b.begin("T3", b.session("c"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        if (!kFirst) b.readList(y, new int[0]);
        b.readList(k, new int[] {b.value(1), b.value(2)});
        if (kFirst) b.readList(y, new int[0]);
        b.end();
        return b.build();
    }

    /** Issue 65, C: at read committed a statement after an own append may see a newer committed state; no level above allows it. */
    @Test
    void readCommittedMaySeeANewerStateUnderItsOwnAppend() {
        HistoryBuilder b = new HistoryBuilder();
        int k = b.key("k");
        b.begin("T1", b.session("a"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.append(k, b.value(1));
        b.end();
        b.begin("T2", b.session("b"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.readList(k, new int[0]);
        b.append(k, b.value(2));
        b.readList(k, new int[] {b.value(1), b.value(2)});
        b.end();
        History h = b.build();
        ladder(h, IsolationLevel.STRONG_SESSION_READ_COMMITTED, AnomalyKind.NON_REPEATABLE_READ);
        Certificate c = Isolation.check(h, IsolationLevel.READ_ATOMIC, OPTIONS).certificate();
        assertTrue(c.summary().contains("with only its own appends between") && !c.summary().contains("no other transaction's write"), c.summary());
    }

    /** Issue 65, D: a transaction of unknown outcome need not precede its session's later ones (its commit may land late). */
    @Test
    void aLateCommitOfUnknownOutcomeIsNoViolation() {
        // U's write of x is read by another session, while U's own session's next transaction read x's initial state
        ladder(history("U s1 unknown w x 1", "T s1 r x nil", "R s2 r x 1"), IsolationLevel.STRICT_SERIALIZABLE, null);
        // a committed one is still followed by its session's next transactions, past an unknown one between them
        ladder(history("C s1 w x 1", "U s1 unknown w y 2", "T s1 r x nil", "R s2 r y 2"), IsolationLevel.READ_COMMITTED, AnomalyKind.READ_YOUR_WRITES);
    }

    /** Issue 65, H: read committed as Biswas and Enea define it has no session premise; dbcop accepts this history. */
    @Test
    void readCommittedAllowsASessionToReadOlderThanItsOwnWrite() {
        History h = history("T1 s1 w x 1", "T2 s1 r x nil");
        assertEquals(Verdict.Outcome.ACCEPT, Isolation.check(h, IsolationLevel.READ_COMMITTED, OPTIONS).outcome());
        assertEquals(Verdict.Outcome.REJECT, Isolation.check(h, IsolationLevel.STRONG_SESSION_READ_COMMITTED, OPTIONS).outcome());
        // and reading a write the session itself overwrote since
        History overwritten = history("T1 s1 w x 1", "T2 s1 w x 2", "T3 s1 r x 1");
        assertEquals(Verdict.Outcome.ACCEPT, Isolation.check(overwritten, IsolationLevel.READ_COMMITTED, OPTIONS).outcome());
        assertEquals(Verdict.Outcome.REJECT, Isolation.check(overwritten, IsolationLevel.STRONG_SESSION_READ_COMMITTED, OPTIONS).outcome());
    }
}
