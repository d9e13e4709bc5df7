package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/** What {@code cobra verdicts} prints with {@code --json}, and the Prometheus text {@code --metrics-port} serves. */
class VerdictsMetricsTest {
    static Verdict v(long round, Outcome o) {
        return Verdict.newBuilder().setRound(round).setOutcome(o).setReason("r").setRoundTxns(10).setCheckedTxns(100 * (round + 1))
                .setPendingTxns(2).setFirstEpoch(0).setLastEpoch(1).setConstraints(0).setConstraintsAfterPruning(0).setBuildMs(0)
                .setConstructMs(0).setPruneMs(0).setSolveMs(0).setTotalMs(40 + round).setVerifiedAt(10_000).setRoundLatestEnd(7_500_000_000L)
                .setRetainedTxns(1000 + round).setCollectedTxns(50 * round).setVerifierRestarts(round / 2).build();
    }

    /** The value of one sample in Prometheus text, e.g. {@code cobra_last_round} or {@code cobra_verdicts_total{outcome="accept"}}. */
    static double sample(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith("#")) continue;
            int sp = line.lastIndexOf(' ');
            if (line.substring(0, sp).equals(name)) return Double.parseDouble(line.substring(sp + 1));
        }
        throw new AssertionError("no sample " + name + " in\n" + text);
    }

    @Test
    void countsVerdictsByOutcomeAndReportsTheLastRoundAndTheVerifiersState() {
        VerdictsCommand c = new VerdictsCommand();
        c.count(v(0, Outcome.ACCEPT));
        c.count(v(1, Outcome.ACCEPT));
        c.count(v(2, Outcome.REJECT));
        String m = c.metrics();
        assertEquals(2, sample(m, "cobra_verdicts_total{outcome=\"accept\"}"));
        assertEquals(1, sample(m, "cobra_verdicts_total{outcome=\"reject\"}"));
        assertEquals(0, sample(m, "cobra_verdicts_total{outcome=\"unknown\"}"));
        assertEquals(2, sample(m, "cobra_last_round"));
        assertEquals(300, sample(m, "cobra_checked_transactions"));
        assertEquals(2, sample(m, "cobra_pending_transactions"));
        assertEquals(2.5, sample(m, "cobra_verdict_lag_seconds"));
        assertEquals(1002, sample(m, "cobra_verifier_retained_transactions"));
        assertEquals(100, sample(m, "cobra_verifier_collected_transactions"));
        assertEquals(1, sample(m, "cobra_verifier_restarts"));
        assertEquals(0, sample(m, "cobra_unchecked_transactions"));
        Verdict u = v(3, Outcome.ACCEPT);
        u.setUncheckedTxns(8);
        c.count(u);
        assertEquals(8, sample(c.metrics(), "cobra_unchecked_transactions"), "the unchecked so far, as the last verdict counts them");
        assertTrue(m.contains("# TYPE cobra_verdicts_total counter"), m);
        assertTrue(m.contains("# TYPE cobra_verifier_retained_transactions gauge"), m);
        assertEquals(1, sample(m, "cobra_isolation{level=\"serializable\"}"), "the level the verdicts are about");
        assertEquals(0, sample(m, "cobra_isolation{level=\"strict-serializable\"}"));
        Verdict s = v(4, Outcome.ACCEPT);
        s.setIsolation("strict-serializable");
        c.count(s);
        assertEquals(1, sample(c.metrics(), "cobra_isolation{level=\"strict-serializable\"}"));
        assertEquals(0, sample(c.metrics(), "cobra_isolation{level=\"serializable\"}"));
    }

    /** A round of a verifier of version 4 after the history's first violation in round 2: {@code fresh} new ones, {@code own} its own. */
    static Verdict after(long round, Outcome own, int fresh, long soFar) {
        Verdict x = v(round, Outcome.REJECT);
        x.setOwnOutcome(own);
        x.setNewViolations(fresh);
        x.setViolations(soFar);
        x.setFirstViolationRound(2);
        if (fresh > 0) x.setCertificate(new Certificate("lost update", "T1 and T2 both read x", List.of(), List.of(), "text " + round));
        return x;
    }

    /**
     * Life after a violation: every verdict from the first violation on is a reject of the history, but the violation
     * counter moves only when a round finds a new one (what the alert rule watches), and rounds are counted by what their
     * own transactions came to.
     */
    @Test
    void violationsAreCountedOnceEachAndRoundsByTheirOwnOutcome() throws Exception {
        VerdictsCommand c = new VerdictsCommand();
        c.count(v(0, Outcome.ACCEPT));
        c.count(v(1, Outcome.ACCEPT));
        c.count(after(2, Outcome.REJECT, 1, 1));
        for (int r = 3; r < 9; r++) c.count(after(r, Outcome.ACCEPT, 0, 1));
        c.count(after(9, Outcome.UNKNOWN, 0, 1));
        c.count(after(10, Outcome.REJECT, 2, 3));
        String m = c.metrics();
        assertEquals(3, sample(m, "cobra_violations_total"), "one per new violation, not one per rejected round");
        assertEquals(10, sample(m, "cobra_last_violation_round"));
        assertEquals(9, sample(m, "cobra_verdicts_total{outcome=\"reject\"}"), "the history stays rejected");
        assertEquals(8, sample(m, "cobra_rounds_total{own=\"clean\"}"));
        assertEquals(2, sample(m, "cobra_rounds_total{own=\"violation\"}"));
        assertEquals(1, sample(m, "cobra_rounds_total{own=\"unknown\"}"));
        assertFalse(VerdictsCommand.isNewViolation(after(5, Outcome.ACCEPT, 0, 1)));
        assertTrue(VerdictsCommand.isNewViolation(after(10, Outcome.REJECT, 2, 3)));
        assertTrue(VerdictsCommand.isNewViolation(v(4, Outcome.REJECT)), "a verdict of an older verifier: any reject is one");
        JsonNode j = new ObjectMapper().readTree(VerdictLines.json(after(5, Outcome.ACCEPT, 0, 1)));
        assertEquals("clean", j.get("own").asText());
        assertEquals(0, j.get("newViolations").asInt());
        assertEquals(1, j.get("violations").asLong());
        assertEquals(2, j.get("firstViolationRound").asLong());
        assertTrue(VerdictLines.line(after(5, Outcome.ACCEPT, 0, 1)).contains("this round: clean; 1 violation so far, the first in round 2"),
                VerdictLines.line(after(5, Outcome.ACCEPT, 0, 1)));
        // the alert rule watches the counter, not the rejected verdicts
        String rules = java.nio.file.Files.readString(java.nio.file.Path.of("config/alerts.yml"));
        assertTrue(rules.contains("increase(cobra_violations_total[5m]) > 0"), rules);
        assertTrue(rules.contains("group_left(level) (cobra_isolation == 1)") && rules.contains("{{ $labels.level }}"), "the alert names the level broken: " + rules);
        assertFalse(rules.contains("cobra_verdicts_total{outcome=\"reject\"}"), rules);
    }

    @Test
    void jsonLinesCarryTheVerdictAndOnARejectItsCertificate() throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode a = json.readTree(VerdictLines.json(v(3, Outcome.ACCEPT)));
        assertEquals(3, a.get("round").asLong());
        assertEquals("accept", a.get("verdict").asText());
        assertEquals(10, a.get("transactions").asInt());
        assertEquals(1003, a.get("retained").asLong());
        assertEquals(43, a.get("millis").asLong());
        assertEquals(1, a.get("verifierRestarts").asLong());
        assertFalse(a.has("certificate"));
        assertFalse(a.has("unchecked"));

        // a round that left transactions unchecked (docs/DESIGN.md 7.6) names them, in the line and in the JSON
        Verdict u = v(5, Outcome.ACCEPT);
        u.setUnchecked(List.of(new org.cobraverify.schemas.UncheckedTxn("nf1", "its session ran no fence before it")));
        u.setUncheckedNow(1);
        u.setUncheckedTxns(3);
        JsonNode uj = json.readTree(VerdictLines.json(u));
        assertEquals(1, uj.get("uncheckedNow").asInt());
        assertEquals(3, uj.get("uncheckedTotal").asLong());
        assertEquals("nf1", uj.get("unchecked").get(0).get("id").asText());
        assertTrue(VerdictLines.line(u).contains("1 unchecked (3 so far)"), VerdictLines.line(u));

        Verdict r = v(4, Outcome.REJECT);
        r.setCertificate(new Certificate("G-single", "T1 -rw(x)-> T2 -wr(y)-> T1",
                List.of(new CycleEdge("T1", "T2", "rw", "x", "because"), new CycleEdge("T2", "T1", "wr", "y", null)),
                List.of(new CertTxn("T1", "s1", "r x 1; r y 2"), new CertTxn("T2", "s2", "w x 2; w y 2")), "the text"));
        String line = VerdictLines.json(r);
        assertFalse(line.contains("\n"), "one line per verdict: " + line);
        JsonNode j = json.readTree(line);
        assertEquals("reject", j.get("verdict").asText());
        JsonNode cert = j.get("certificate");
        assertEquals("G-single", cert.get("anomaly").asText());
        assertEquals(2, cert.get("cycle").size());
        assertEquals("x", cert.get("cycle").get(0).get("key").asText());
        assertEquals("T2", cert.get("transactions").get(1).get("id").asText());
        assertEquals("the text", cert.get("text").asText());
        assertNull(cert.get("meaning"), "an anomaly that names no kind has no meaning to add");
        // the live page and the JSON lines take an anomaly's class and meaning from its kind
        r.getCertificate().setAnomaly(AnomalyKind.WRITE_SKEW.displayName());
        JsonNode known = json.readTree(VerdictLines.json(r)).get("certificate");
        assertEquals("G2-item", known.get("adya").asText());
        assertEquals(AnomalyKind.WRITE_SKEW.meaning(), known.get("meaning").asText());
    }
}
