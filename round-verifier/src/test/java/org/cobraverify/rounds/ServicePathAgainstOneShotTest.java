package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
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
        long rounds = 0, unknown = 0, accepted = 0, rejected = 0, collected = 0, transactions = 0;
        Map<String, Integer> reasons = new TreeMap<>();
        for (int i = 0; i < RUNS; i++) {
            RoundsDifferential.Result r = RoundsDifferential.run(SEED + i);
            assertNull(r.problem(), r.problem());
            rounds += r.rounds();
            unknown += r.unknown();
            accepted += r.accepted();
            rejected += r.rejected();
            transactions += r.transactions();
            if (r.collected()) collected++;
            r.unknownReasons().forEach((k, c) -> reasons.merge(k, c, Integer::sum));
        }
        double share = (double) unknown / Math.max(1, unknown + accepted + rejected);
        System.out.printf("service path: %d histories (%d transactions), %d verdicts: %d accept, %d reject, %d unknown (%.2f%%); collected in %d histories%n",
                RUNS, transactions, unknown + accepted + rejected, accepted, rejected, unknown, 100 * share, collected);
        reasons.forEach((k, c) -> System.out.println("  unknown " + c + "x: " + k));
        assertTrue(collected > RUNS / 4, "garbage collection must run in a good share of the histories: " + collected);
        assertTrue(rejected > RUNS / 10 && accepted > RUNS, accepted + " accepted and " + rejected + " rejected verdicts: both must be exercised");
        assertTrue(share < 0.02, "unknown verdicts must stay under 2%: " + unknown + " of " + (unknown + accepted + rejected));
    }
}
