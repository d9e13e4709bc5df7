package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.testkit.Histories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One hand-written history per anomaly: the verdict, the certificate's kind, and its whole cycle. */
class AnomalyCertificateTest {
    @TempDir
    Path dir;

    private Verdict check(String... lines) throws Exception {
        History h = Histories.jsonl(dir, lines);
        return Checker.check(h);
    }

    private static Certificate rejected(Verdict v, AnomalyKind kind) {
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        Certificate c = v.certificate();
        assertNotNull(c);
        assertEquals(kind, c.kind(), c.summary());
        return c;
    }

    /** The cycle as "A -label-> B -label-> ... -> A", rotated to start at its smallest transaction name. */
    private static String cycle(Certificate c) {
        List<Certificate.Edge> es = c.cycle();
        int start = 0;
        for (int i = 1; i < es.size(); i++) if (es.get(i).from().compareTo(es.get(start).from()) < 0) start = i;
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < es.size(); i++) {
            Certificate.Edge e = es.get((start + i) % es.size());
            parts.add(e.from() + " -" + e.label() + "->");
        }
        return String.join(" ", parts) + " " + es.get(start).from();
    }

    @Test
    void g0WriteCycle() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"w\",\"y\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",2],[\"w\",\"y\",2]]}",
                "{\"id\":\"3\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",2],[\"r\",\"y\",1]]}"), AnomalyKind.G0);
        assertEquals("T1 -ww(x)-> T2 -ww(y)-> T1", cycle(c));
        assertTrue(c.cycle().stream().allMatch(e -> e.derivedBecause() != null), "both ww edges are derived");
    }

    @Test
    void g1aAbortedRead() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"aborted\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1]]}"), AnomalyKind.G1A);
        assertEquals(List.of("1", "2"), c.transactions().stream().map(Certificate.Txn::id).toList());
        assertEquals("aborted", c.transactions().get(0).status());
    }

    @Test
    void g1bIntermediateRead() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"w\",\"x\",2]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1]]}"), AnomalyKind.G1B);
        assertTrue(c.summary().contains("T1 overwrote it"), c.summary());
    }

    @Test
    void g1cCircularInformationFlow() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"r\",\"y\",2]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"y\",2],[\"r\",\"x\",1]]}"), AnomalyKind.G1C);
        assertEquals("T1 -wr(x)-> T2 -wr(y)-> T1", cycle(c));
    }

    @Test
    void gSingleReadSkew() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",2]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"w\",\"y\",2]]}"), AnomalyKind.G_SINGLE);
        assertEquals("T1 -rw(x)-> T2 -wr(y)-> T1", cycle(c));
    }

    @Test
    void writeSkew() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"y\",1]]}"),
                AnomalyKind.WRITE_SKEW);
        assertEquals("T1 -rw(y)-> T2 -rw(x)-> T1", cycle(c));
    }

    @Test
    void g2ThreeTransactions() throws Exception {
        // T1 reads x before T2 writes it, T2 reads y before T3 writes it, T3 reads z before T1 writes it
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"z\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"y\",null],[\"w\",\"x\",1]]}",
                "{\"id\":\"3\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"r\",\"z\",null],[\"w\",\"y\",1]]}"), AnomalyKind.G2);
        assertEquals("T1 -rw(x)-> T2 -rw(y)-> T3 -rw(z)-> T1", cycle(c));
    }

    @Test
    void lostUpdate() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"0\",\"session\":0,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",10]]}",
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",10],[\"w\",\"x\",11]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",10],[\"w\",\"x\",12]]}"), AnomalyKind.LOST_UPDATE);
        assertEquals(List.of("0", "1", "2"), c.transactions().stream().map(Certificate.Txn::id).toList());
    }

    @Test
    void longFork() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"y\",1]]}",
                "{\"id\":\"3\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1],[\"r\",\"y\",null]]}",
                "{\"id\":\"4\",\"session\":4,\"status\":\"committed\",\"ops\":[[\"r\",\"y\",1],[\"r\",\"x\",null]]}"), AnomalyKind.LONG_FORK);
        assertEquals("T1 -wr(x)-> T3 -rw(y)-> T2 -wr(y)-> T4 -rw(x)-> T1", cycle(c));
    }

    @Test
    void readOfNeverWrittenValue() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",7]]}"), AnomalyKind.UNWRITTEN_READ);
        assertEquals(List.of("2"), c.transactions().stream().map(Certificate.Txn::id).toList());
        assertTrue(c.summary().contains("r(x)=7"), c.summary());
    }

    @Test
    void internalInconsistencyOwnWriteNotSeen() throws Exception {
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",2],[\"r\",\"x\",1]]}"), AnomalyKind.INTERNAL);
        assertTrue(c.summary().contains("must see its own writes"), c.summary());
    }

    @Test
    void nonRepeatableRead() throws Exception {
        rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"x\",1]]}"), AnomalyKind.NON_REPEATABLE_READ);
    }

    @Test
    void sessionOrderMatters() throws Exception {
        // a session reads x, then in its next transaction reads an older x: a cycle only through so
        Certificate c = rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1]]}",
                "{\"id\":\"3\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null]]}"), AnomalyKind.G_SINGLE);
        assertEquals("T1 -wr(x)-> T2 -so-> T3 -rw(x)-> T1", cycle(c));
    }

    @Test
    void unknownOutcomeCountsWhenObserved() throws Exception {
        // T1's outcome was lost, but T2 read its write: T1 committed, and the lost update shows
        rejected(check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"unknown\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",2]]}",
                "{\"id\":\"3\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1]]}"), AnomalyKind.LOST_UPDATE);
        // unobserved, it is dropped
        Verdict v = check(
                "{\"id\":\"1\",\"session\":1,\"status\":\"unknown\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",1]]}",
                "{\"id\":\"2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",2]]}");
        assertEquals(Verdict.Outcome.ACCEPT, v.outcome());
    }

    @Test
    void acceptsASerializableHistoryWithAWitness() throws Exception {
        Verdict v = check(
                "{\"format\":\"cobra-jsonl\",\"version\":1}",
                "{\"id\":\"a\",\"session\":\"c1\",\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"b\",\"session\":\"c2\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1],[\"w\",\"x\",2]]}",
                "{\"id\":\"c\",\"session\":\"c1\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",2]]}");
        assertEquals(Verdict.Outcome.ACCEPT, v.outcome());
        assertEquals(3, v.witness().length);
        assertEquals(List.of(0, 1, 2), Arrays.stream(v.witness()).boxed().toList());
    }

    @Test
    void strictSerializabilityUsesRealTimeWithDrift() throws Exception {
        // t2 starts 0.5 s after t1 committed, yet reads x as if t1 had not happened: serializable (t2 first),
        // not strictly serializable
        String[] lines = {
                "{\"id\":\"t1\",\"session\":1,\"status\":\"committed\",\"start\":1000000000,\"end\":1001000000,\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"t2\",\"session\":2,\"status\":\"committed\",\"start\":1500000000,\"end\":1501000000,\"ops\":[[\"r\",\"x\",null]]}"};
        History h = Histories.jsonl(dir, lines);
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(h).outcome());
        Verdict strict = Checker.check(h, CheckOptions.defaults().withStrict(100_000_000L));
        Certificate c = rejected(strict, AnomalyKind.G_SINGLE);
        assertEquals("t1 -rt-> t2 -rw(x)-> t1", cycle(c));
        assertTrue(c.summary().contains("not strictly serializable"), c.summary());
        assertTrue(c.cycle().get(0).derivedBecause().contains("t1 ended at 1001000000 ns"), c.cycle().get(0).derivedBecause());
        // within the drift allowance the two overlap: accepted
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(h, CheckOptions.defaults().withStrict(600_000_000L)).outcome());
    }
}
