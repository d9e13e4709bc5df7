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
 * Snapshot isolation's encoding "chains, not pairs" (docs/DESIGN.md §11.4) decides as the encoding with a constraint for every
 * pair of a key's chains: on blind-write-heavy histories of hot keys from stores at each of the simulated levels (with
 * aborted and unknown transactions, fences, late commits), both give one verdict, and the first never asks more.
 */
class ChainsNotPairsTest {
    private static final int[] totals = new int[4]; // accepted, rejected, constraints asked, constraints of every pair

    static LongStream seeds() { return Seeds.of(400); }

    @ParameterizedTest(name = Seeds.NAME)
    @MethodSource("seeds")
    void decidesAsEveryPairDoes(long seed) {
        Random rnd = new Random(seed);
        SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[rnd.nextInt(SimulatedStore.Isolation.values().length)];
        SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(6), 5 + rnd.nextInt(60), 1 + rnd.nextInt(12), 1 + rnd.nextInt(5),
                0.2 + 0.6 * rnd.nextDouble(), rnd.nextDouble() * 0.1, rnd.nextDouble() * 0.1);
        boolean fenced = rnd.nextBoolean();
        History h = SimulatedStore.run(iso, w, rnd, false, fenced ? 1 + rnd.nextInt(8) : 0, rnd.nextBoolean() ? new Random(seed * 31) : null);
        Verdict chains = SnapshotIsolationCheck.check(h, CheckOptions.defaults(), Budget.unlimited(), false);
        Verdict pairs = SnapshotIsolationCheck.check(h, CheckOptions.defaults(), Budget.unlimited(), true);
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
        synchronized (totals) { totals[chains.outcome() == Verdict.Outcome.ACCEPT ? 0 : 1]++; }
    }

    @AfterAll
    static void bothOutcomesSeen() {
        if (System.getProperty(Seeds.PROPERTY) != null) return;
        System.out.printf("ChainsNotPairsTest: %d accepted, %d rejected, as every pair decides; %d constraints asked where every pair asks %d%n",
                totals[0], totals[1], totals[2], totals[3]);
        assertTrue(totals[0] > 20 && totals[1] > 20, "both outcomes: " + totals[0] + " accepted, " + totals[1] + " rejected");
        assertTrue(totals[2] < totals[3], "the graph orders some pairs: " + totals[2] + " of " + totals[3]);
    }
}
