package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
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
        assertTrue(m.contains("# TYPE cobra_verdicts_total counter"), m);
        assertTrue(m.contains("# TYPE cobra_verifier_retained_transactions gauge"), m);
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
    }
}
