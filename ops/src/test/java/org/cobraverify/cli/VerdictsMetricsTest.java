package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/** The Prometheus text that {@code cobra verdicts --metrics-port} serves. */
class VerdictsMetricsTest {
    static Verdict v(long round, Outcome o) {
        return Verdict.newBuilder().setRound(round).setOutcome(o).setReason("r").setRoundTxns(10).setCheckedTxns(100 * (round + 1))
                .setPendingTxns(2).setFirstEpoch(0).setLastEpoch(1).setConstraints(0).setConstraintsAfterPruning(0).setBuildMs(0)
                .setConstructMs(0).setPruneMs(0).setSolveMs(0).setTotalMs(0).setVerifiedAt(10_000).setRoundLatestEnd(7_500_000_000L).build();
    }

    @Test
    void countsVerdictsByOutcomeAndReportsTheLastRound() {
        VerdictsCommand c = new VerdictsCommand();
        for (Outcome o : Outcome.values()) c.counts.put(o, new java.util.concurrent.atomic.AtomicLong());
        c.count(v(0, Outcome.ACCEPT));
        c.count(v(1, Outcome.ACCEPT));
        c.count(v(2, Outcome.REJECT));
        String m = c.metrics();
        assertTrue(m.contains("cobra_verdicts_total{outcome=\"accept\"} 2\n"), m);
        assertTrue(m.contains("cobra_verdicts_total{outcome=\"reject\"} 1\n"), m);
        assertTrue(m.contains("cobra_verdicts_total{outcome=\"unknown\"} 0\n"), m);
        assertTrue(m.contains("cobra_last_round 2\n"), m);
        assertTrue(m.contains("cobra_checked_transactions 300\n"), m);
        assertTrue(m.contains("cobra_pending_transactions 2\n"), m);
        assertTrue(m.contains("cobra_verdict_lag_seconds 2.5\n"), m);
        assertTrue(m.contains("# TYPE cobra_verdicts_total counter"), m);
    }
}
