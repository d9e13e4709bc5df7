package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.junit.jupiter.api.Test;

/**
 * The differential's certificate audit has teeth: a certificate the checker made for a small history passes it, and each way
 * a wrong certificate could be wrong (an edge the history does not justify, a cycle that does not close, an anomaly its edges
 * do not make, a transaction the history lacks, a session edge out of an unknown outcome) is named as a problem.
 */
class CertificateAuditTest {
    /** Write skew: T1 and T2 each read both keys' initial versions and write one. */
    private static History writeSkew() {
        HistoryBuilder b = new HistoryBuilder();
        txn(b, "T1", "s1", "r x x0", "r y y0", "w x x1");
        txn(b, "T2", "s2", "r x x0", "r y y0", "w y y1");
        txn(b, "I", "s0", "w x x0", "w y y0");
        return b.build();
    }

    /** A fractured read: W writes x and y over I's; R reads W's x and I's y. */
    private static History fractured() {
        HistoryBuilder b = new HistoryBuilder();
        txn(b, "I", "s0", "w x x0", "w y y0");
        txn(b, "W", "s0", "r x x0", "w x x1", "w y y1");
        txn(b, "R", "s1", "r x x1", "r y y0");
        return b.build();
    }

    /** A committed transaction without times; each operation "r KEY VALUE" or "w KEY VALUE". */
    private static void txn(HistoryBuilder b, String id, String session, String... ops) {
        b.begin(id, b.session(session), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        for (String op : ops) {
            String[] f = op.split(" ");
            if (f[0].equals("r")) b.read(b.key(f[1]), b.value(f[2])); else b.write(b.key(f[1]), b.value(f[2]));
        }
        b.end();
    }

    private static Certificate certificateOf(History h, IsolationLevel level) {
        Verdict v = Isolation.check(h, level, CheckOptions.defaults());
        assertEquals(Verdict.Outcome.REJECT, v.outcome(), level + " rejects the planted history");
        return RoundVerifier.toAvro(v.certificate(), v.certificate().summary());
    }

    private static CertificateAudit auditOf(History h, IsolationLevel level) {
        return new CertificateAudit(h, false, 0, level.implies(IsolationLevel.SNAPSHOT_ISOLATION));
    }

    private static Certificate withCycle(Certificate c, UnaryOperator<List<CycleEdge>> change) {
        return Certificate.newBuilder(c).setCycle(change.apply(new ArrayList<>(c.getCycle()))).build();
    }

    private static CycleEdge edge(CycleEdge e, String kind, String key, String why) {
        return new CycleEdge(e.getFrom(), e.getTo(), kind, key, why);
    }

    @Test
    void theCheckersOwnCertificatesPass() {
        History skew = writeSkew(), frac = fractured();
        for (IsolationLevel level : new IsolationLevel[] {IsolationLevel.SERIALIZABLE, IsolationLevel.STRICT_SERIALIZABLE}) {
            Certificate c = certificateOf(skew, level);
            assertFalse(c.getCycle().isEmpty(), "write skew is shown by a cycle: " + c);
            assertNull(auditOf(skew, level).problem(c), c.toString());
        }
        for (IsolationLevel level : new IsolationLevel[] {IsolationLevel.READ_ATOMIC, IsolationLevel.CAUSAL, IsolationLevel.SNAPSHOT_ISOLATION,
                IsolationLevel.SERIALIZABLE}) {
            Certificate c = certificateOf(frac, level);
            assertNull(auditOf(frac, level).problem(c), level + ": " + c);
        }
    }

    @Test
    void anEdgeTheHistoryDoesNotJustifyIsNamed() {
        History h = writeSkew();
        Certificate good = certificateOf(h, IsolationLevel.SERIALIZABLE);
        CertificateAudit audit = auditOf(h, IsolationLevel.SERIALIZABLE);
        // an rw edge on the other key: its first end reads it, but its second does not write it
        Certificate wrongKey = withCycle(good, cy -> {
            CycleEdge e = cy.get(0);
            cy.set(0, edge(e, e.getKind(), e.getKey().equals("x") ? "y" : "x", null));
            return cy;
        });
        assertProblem(audit, wrongKey, "the second does not write it");
        // an rw edge made a wr edge: nobody read from the other's final write
        Certificate asWr = withCycle(good, cy -> { cy.set(0, edge(cy.get(0), "wr", cy.get(0).getKey(), null)); return cy; });
        assertProblem(audit, asWr, "did not read the key from the first's final write");
        // a session edge between two sessions
        Certificate asSo = withCycle(good, cy -> { cy.set(0, edge(cy.get(0), "so", null, null)); return cy; });
        assertProblem(audit, asSo, "not session order");
        // a key the history lacks
        Certificate noKey = withCycle(good, cy -> { cy.set(0, edge(cy.get(0), cy.get(0).getKind(), "zz", null)); return cy; });
        assertProblem(audit, noKey, "names a key the history lacks");
        // a real-time edge with no times
        Certificate asRt = withCycle(good, cy -> { cy.set(0, edge(cy.get(0), "rt", null, null)); return cy; });
        assertProblem(audit, asRt, "did not end before the second began");
    }

    @Test
    void aCycleThatDoesNotCloseIsNamed() {
        History h = writeSkew();
        Certificate good = certificateOf(h, IsolationLevel.SERIALIZABLE);
        Certificate open = withCycle(good, cy -> { cy.remove(cy.size() - 1); return cy; });
        assertProblem(auditOf(h, IsolationLevel.SERIALIZABLE), open, "its cycle breaks");
    }

    @Test
    void anAnomalyTheEdgesDoNotMakeIsNamed() {
        History h = writeSkew();
        Certificate good = certificateOf(h, IsolationLevel.SERIALIZABLE);
        CertificateAudit audit = auditOf(h, IsolationLevel.SERIALIZABLE);
        for (AnomalyKind wrong : new AnomalyKind[] {AnomalyKind.G0, AnomalyKind.G1C, AnomalyKind.LONG_FORK, AnomalyKind.SESSION_CYCLE}) {
            Certificate misnamed = Certificate.newBuilder(good).setAnomaly(wrong.displayName()).build();
            assertProblem(audit, misnamed, "do not make");
        }
        assertProblem(audit, Certificate.newBuilder(good).setAnomaly("no such anomaly").build(), "names an anomaly no kind has");
    }

    @Test
    void aTransactionTheHistoryLacksIsNamed() {
        History h = writeSkew();
        Certificate good = certificateOf(h, IsolationLevel.SERIALIZABLE);
        List<CertTxn> txns = new ArrayList<>(good.getTransactions());
        txns.add(new CertTxn("T9", "s9", "w(x)=x9"));
        assertProblem(auditOf(h, IsolationLevel.SERIALIZABLE), Certificate.newBuilder(good).setTransactions(txns).build(), "which the history lacks");
    }

    @Test
    void sessionOrderOutOfAnUnknownOutcomeIsNoFact() {
        HistoryBuilder b = new HistoryBuilder();
        int x = b.key("x");
        b.begin("U", b.session("s"), History.UNKNOWN, History.NO_TIME, History.NO_TIME, -1);
        b.write(x, b.value("1"));
        b.end();
        b.begin("N", b.session("s"), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        b.read(x, b.value("1"));
        b.end();
        History h = b.build();
        CertificateAudit audit = auditOf(h, IsolationLevel.CAUSAL);
        Certificate claimed = Certificate.newBuilder().setAnomaly(AnomalyKind.SESSION_CYCLE.displayName()).setSummary("s")
                .setText("s").setTransactions(List.of()).setCycle(List.of(new CycleEdge("U", "N", "so", null, null),
                        new CycleEdge("N", "U", "so", null, null))).build();
        assertProblem(audit, claimed, "not session order");
    }

    private static void assertProblem(CertificateAudit audit, Certificate c, String expected) {
        String p = audit.problem(c);
        assertNotNull(p, "the audit let a wrong certificate pass: " + c);
        assertTrue(p.contains(expected), "problem '" + p + "' should say '" + expected + "'");
    }
}
