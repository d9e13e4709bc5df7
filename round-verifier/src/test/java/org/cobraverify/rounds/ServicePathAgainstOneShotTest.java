package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link RoundsDifferential} at CI size: generated histories with aborted and unknown transactions, dirty,
 * intermediate and long-past reads, delivered to a {@link RoundVerifier} in the orders the topology allows and
 * decided in batches as the service decides them; every round's verdict must equal the one-shot check of what it
 * could check, or be unknown. {@code -Dcobra.propertySeed=S} moves the seeds, {@code -Dcobra.propertyRuns=N} sets
 * how many (a failure names its seed: {@code -Dcobra.propertySeed=<seed> -Dcobra.propertyRuns=1} reruns it alone);
 * {@code cobra bench --differential N} runs the same at campaign size.
 */
class ServicePathAgainstOneShotTest {
    private static final int RUNS = Integer.getInteger("cobra.propertyRuns", 2000);
    private static final long SEED = Long.getLong("cobra.propertySeed", 1);

    @Test
    void everyRoundAgreesWithOneShotOrIsUnknown() {
        RoundsDifferential.Totals all = new RoundsDifferential.Totals();
        for (int i = 0; i < RUNS; i++) {
            RoundsDifferential.Result r = RoundsDifferential.run(SEED + i);
            assertNull(r.problem(), r.problem());
            all.add(r);
        }
        System.out.printf("service path: %d histories (%d transactions), %d verdicts: %d accept, %d reject, %d unknown (%.2f%%); collected in %d histories%n",
                all.histories, all.transactions, all.verdicts(), all.accepted, all.rejected, all.unknown, 100 * all.unknownShare(), all.collected);
        all.unknownReasons.forEach((k, c) -> System.out.println("  unknown " + c + "x: " + k));
        assertTrue(all.collected > RUNS / 4, "garbage collection must run in a good share of the histories: " + all.collected);
        assertTrue(all.rejected > RUNS / 10 && all.accepted > RUNS, all.accepted + " accepted and " + all.rejected + " rejected verdicts: both must be exercised");
        assertTrue(all.unknownShare() < 0.02, "unknown verdicts must stay under 2%: " + all.unknown + " of " + all.verdicts());
    }

    /**
     * Found by the campaign ({@code cobra bench --differential 10000 --seed 200001}): in strict mode the barrier's
     * real-time summary counted the start of an old transaction outside the checked history (aborted, or of unknown
     * outcome and unread), so a fence that ended before it was placed both before and after the collected past, and a
     * serializable history was rejected ("T44 -past-> T44").
     */
    @Test
    void strictBarrierTimesCountOnlyCheckedTransactions() {
        RoundsDifferential.Result r = RoundsDifferential.run(203050);
        assertNull(r.problem(), r.problem());
        assertTrue(r.accepted() > 0, "accepted rounds: " + r.accepted());
    }
}
