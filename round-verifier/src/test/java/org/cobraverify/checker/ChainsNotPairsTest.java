package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import java.util.stream.LongStream;
import org.cobraverify.history.History;
import org.cobraverify.solver.Budget;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Snapshot isolation's shortcuts (docs/DESIGN.md §11.4), "chains, not pairs" and the forward sides taken before the solver,
 * decide as the reference encoding, with a constraint for every pair of a key's chains and the solver alone: on
 * blind-write-heavy histories of hot keys from stores at each of the simulated levels (with aborted and unknown
 * transactions, fences, late commits), both give one verdict, and the shortcuts never ask more constraints.
 */
class ChainsNotPairsTest {
    private static final int[] totals = new int[5]; // accepted, rejected, constraints asked, constraints of every pair, accepted with open constraints

    static LongStream seeds() { return Seeds.of(400); }

    @ParameterizedTest(name = Seeds.NAME)
    @MethodSource("seeds")
    void decidesAsEveryPairDoes(long seed) {
        Random rnd = new Random(seed * 0x9E3779B97F4A7C15L); // (consecutive seeds, mixed: their first draws differ)
        SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[rnd.nextInt(SimulatedStore.Isolation.values().length)];
        SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(6), 5 + rnd.nextInt(60), 1 + rnd.nextInt(12), 1 + rnd.nextInt(5),
                0.2 + 0.6 * rnd.nextDouble(), rnd.nextDouble() * 0.1, rnd.nextDouble() * 0.1);
        boolean fenced = rnd.nextBoolean();
        int fenceEvery = fenced ? 1 + rnd.nextInt(8) : 0;
        SimulatedStore.Skew hot = rnd.nextBoolean() ? new SimulatedStore.Skew(1 + rnd.nextInt(3), 0.1 + 0.5 * rnd.nextDouble(), 0.5 + 0.5 * rnd.nextDouble(),
                1 + rnd.nextInt(2), Math.max(1, fenceEvery) * (4 + rnd.nextInt(8)), new Random(seed * 17)) : null;
        History h = SimulatedStore.run(iso, w, rnd, false, fenceEvery, rnd.nextBoolean() ? new Random(seed * 31) : null, hot);
        Verdict chains = SnapshotIsolationCheck.check(h, CheckOptions.defaults(), Budget.unlimited(), false);
        Verdict pairs = SnapshotIsolationCheck.check(h, CheckOptions.defaults(), Budget.unlimited(), true); // the reference
        String ctx = Seeds.rerun(seed) + ", " + iso + ", " + h.size() + " transactions";
        assertEquals(pairs.outcome(), chains.outcome(), ctx + ": every pair says " + pairs.outcome() + (pairs.certificate() == null ? "" : " (" + pairs.certificate().summary() + ")")
                + ", chains say " + chains.outcome() + (chains.certificate() == null ? "" : " (" + chains.certificate().summary() + ")"));
        if (chains.outcome() == Verdict.Outcome.REJECT) assertNotNull(chains.certificate(), ctx);
        if (chains.stats() != null && pairs.stats() != null) {
            assertTrue(chains.stats().constraintsBefore <= pairs.stats().constraintsBefore,
                    ctx + ": " + chains.stats().constraintsBefore + " constraints asked, more than the " + pairs.stats().constraintsBefore + " of every pair");
            synchronized (totals) {
                totals[2] += chains.stats().constraintsBefore;
                totals[3] += pairs.stats().constraintsBefore;
            }
        }
        synchronized (totals) {
            totals[chains.outcome() == Verdict.Outcome.ACCEPT ? 0 : 1]++;
            if (chains.outcome() == Verdict.Outcome.ACCEPT && chains.stats() != null && chains.stats().constraintsAfterPrune > 0) totals[4]++;
        }
    }

    @AfterAll
    static void bothOutcomesSeen() {
        if (System.getProperty(Seeds.PROPERTY) != null) return;
        System.out.printf("ChainsNotPairsTest: %d accepted (%d with constraints open after pruning), %d rejected, as the reference decides; %d constraints asked where every pair asks %d%n",
                totals[0], totals[4], totals[1], totals[2], totals[3]);
        assertTrue(totals[0] > 20 && totals[1] > 20, "both outcomes: " + totals[0] + " accepted, " + totals[1] + " rejected");
        assertTrue(totals[2] < totals[3], "the graph orders some pairs: " + totals[2] + " of " + totals[3]);
        assertTrue(totals[4] > 10, "accepts that needed the forward sides or the solver: " + totals[4]);
    }
}
