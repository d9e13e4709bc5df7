package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.synth.SimulatedStore.Isolation;
import org.cobraverify.testkit.ExhaustiveSerializability;
import org.cobraverify.testkit.WitnessReplayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Thousands of small random histories from simulated stores: the checker's verdict must equal an
 * exhaustive search over serial orders, every accept's witness must replay, and every reject must
 * carry a certificate naming at least one transaction.
 */
class SimulatedStorePropertyTest {
    /** Histories per isolation level; raise with -Dcobra.propertyRuns=N for a longer campaign. */
    private static final int RUNS = Integer.getInteger("cobra.propertyRuns", 1500);
    private static final long SEED = Long.getLong("cobra.propertySeed", 0);

    @ParameterizedTest
    @EnumSource(Isolation.class)
    void verdictEqualsExhaustiveSearch(Isolation iso) {
        Random rnd = new Random(SEED + 42 + iso.ordinal());
        int accepted = 0, rejected = 0;
        for (int run = 0; run < RUNS; run++) {
            SimulatedStore.Workload w = smallWorkload(rnd, true);
            History h = SimulatedStore.run(iso, w, rnd);
            if (!smallEnough(h)) continue;
            boolean truth = ExhaustiveSerializability.isSerializable(h);
            Verdict v = Checker.check(h);
            String ctx = iso + " run " + run + ":\n" + dump(h);
            assertEquals(truth ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(), ctx);
            if (truth) {
                accepted++;
                assertNull(WitnessReplayer.problem(h, v.witness()), ctx);
            } else {
                rejected++;
                assertNotNull(v.certificate(), ctx);
                assertTrue(!v.certificate().transactions().isEmpty() || !v.certificate().cycle().isEmpty(), ctx);
            }
        }
        assertTrue(accepted + rejected >= RUNS / 2, "too few histories were small enough: " + (accepted + rejected));
        System.out.printf("%s: %d accepted, %d rejected, all agreeing with exhaustive search%n", iso, accepted, rejected);
        if (iso == Isolation.SERIAL) assertEquals(0, rejected, "serial executions are serializable");
        else assertTrue(rejected > 0 && accepted > 0, iso + " should produce both outcomes: " + accepted + " accepted, " + rejected + " rejected");
    }

    @ParameterizedTest
    @EnumSource(Isolation.class)
    void strictVerdictEqualsExhaustiveSearch(Isolation iso) {
        Random rnd = new Random(SEED + 99 + iso.ordinal());
        int accepted = 0, rejected = 0, strictOnly = 0;
        for (int run = 0; run < RUNS; run++) {
            SimulatedStore.Workload w = smallWorkload(rnd, true);
            History h = SimulatedStore.run(iso, w, rnd);
            if (!smallEnough(h)) continue;
            long drift = rnd.nextInt(3); // in scheduler steps
            boolean truth = ExhaustiveSerializability.isSerializable(h, drift);
            Verdict v = Checker.check(h, CheckOptions.defaults().withStrict(drift));
            String ctx = iso + " strict (drift " + drift + ") run " + run + ":\n" + dump(h);
            assertEquals(truth ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(), ctx);
            if (truth) {
                accepted++;
                assertNull(WitnessReplayer.problem(h, v.witness()), ctx);
                assertTrue(respectsRealTime(h, v.witness(), drift), ctx + ": witness breaks real-time order");
            } else {
                rejected++;
                if (ExhaustiveSerializability.isSerializable(h)) {
                    strictOnly++; // serializable, but not in real-time order: the rt edges made the difference
                    // the real-time order shows in the cycle, or in why one of its edges was derived (or in a search's cases)
                    Certificate c = v.certificate();
                    assertTrue(c.kind() == AnomalyKind.UNSERIALIZABLE || c.cycle().stream().anyMatch(e -> e.kind().equals("rt")
                            || (e.derivedBecause() != null && e.derivedBecause().contains("-rt->"))), ctx + ": " + c.summary());
                }
            }
        }
        assertTrue(accepted + rejected >= RUNS / 2, "too few histories were small enough: " + (accepted + rejected));
        System.out.printf("%s strict: %d accepted, %d rejected (%d only for real-time order), all agreeing with exhaustive search%n",
                iso, accepted, rejected, strictOnly);
        if (iso == Isolation.STALE_READS) assertTrue(strictOnly > 0, "stale reads must give some histories that are serializable but not strictly");
        if (iso == Isolation.SERIAL) assertEquals(0, rejected, "serial executions are strictly serializable");
        else assertTrue(rejected > 0, iso + " should produce violations");
    }

    /** With pruning unavailable (a graph too wide to index), the solver alone must reach the same verdicts. */
    @Test
    void withoutPruningTheSolverAloneAgrees() {
        Random rnd = new Random(SEED + 5);
        int accepted = 0, rejected = 0;
        CheckOptions unpruned = CheckOptions.defaults().withReachability(ChainCoverReachability.withMaxCells(0));
        for (int run = 0; run < RUNS; run++) {
            Isolation iso = Isolation.values()[run % Isolation.values().length];
            SimulatedStore.Workload w = smallWorkload(rnd, false);
            History h = SimulatedStore.run(iso, w, rnd);
            if (h.size() > 9) continue;
            boolean truth = ExhaustiveSerializability.isSerializable(h);
            Verdict v = Checker.check(h, unpruned);
            String ctx = iso + " unpruned run " + run + ":\n" + dump(h);
            assertEquals(truth ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(), ctx);
            if (truth) {
                accepted++;
                assertNull(WitnessReplayer.problem(h, v.witness()), ctx);
            } else rejected++;
            if (truth && v.stats().constraintsBefore > 0) assertTrue(v.notes().stream().anyMatch(n -> n.contains("pruning skipped")), ctx);
        }
        System.out.printf("without pruning: %d accepted, %d rejected, all agreeing with exhaustive search%n", accepted, rejected);
        assertTrue(accepted > 100 && rejected > 100, accepted + " accepted, " + rejected + " rejected");
    }

    private static boolean respectsRealTime(History h, int[] order, long drift) {
        for (int i = 0; i < order.length; i++)
            for (int j = 0; j < i; j++)
                if (h.status(order[i]) != History.UNKNOWN && h.end(order[i]) + drift < h.start(order[j])) return false; // (an unknown outcome has no end, §1.2)
        return true;
    }

    @ParameterizedTest
    @EnumSource(Isolation.class)
    void listAppendVerdictEqualsExhaustiveSearch(Isolation iso) {
        Random rnd = new Random(SEED + 77 + iso.ordinal());
        int accepted = 0, rejected = 0;
        for (int run = 0; run < RUNS; run++) {
            SimulatedStore.Workload w = smallWorkload(rnd, true);
            History h = SimulatedStore.run(iso, w, rnd, true);
            if (!smallEnough(h)) continue;
            boolean truth = ExhaustiveSerializability.isSerializableLists(h);
            Verdict v = Checker.check(h);
            String ctx = iso + " lists run " + run + ":\n" + dump(h);
            assertEquals(truth ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(), ctx);
            if (truth) {
                accepted++;
                assertNull(WitnessReplayer.problem(h, v.witness()), ctx);
            } else rejected++;
        }
        assertTrue(accepted + rejected >= RUNS / 2, "too few histories were small enough: " + (accepted + rejected));
        System.out.printf("%s lists: %d accepted, %d rejected, all agreeing with exhaustive search%n", iso, accepted, rejected);
        if (iso == Isolation.SERIAL) assertEquals(0, rejected, "serial executions are serializable");
        else assertTrue(rejected > 0, iso + " should produce violations: " + accepted + " accepted, " + rejected + " rejected");
    }

    /** Small enough for exhaustive search: at most 9 transactions, at most 4 of unknown outcome. */
    static boolean smallEnough(History h) {
        int unknown = 0;
        for (int t = 0; t < h.size(); t++) if (h.status(t) == History.UNKNOWN) unknown++;
        return h.size() <= 9 && unknown <= 4;
    }

    /** 2–4 sessions of 1–3 transactions of 1–4 operations on 1–3 keys; with faults, some aborts and unknown outcomes. */
    static SimulatedStore.Workload smallWorkload(Random rnd, boolean faults) {
        return new SimulatedStore.Workload(2 + rnd.nextInt(3), 1 + rnd.nextInt(3), 1 + rnd.nextInt(3), 1 + rnd.nextInt(4),
                0.3 + rnd.nextDouble() * 0.4, faults && rnd.nextDouble() < 0.3 ? 0.2 : 0.0, faults && rnd.nextDouble() < 0.3 ? 0.15 : 0.0);
    }

    static String dump(History h) {
        StringBuilder sb = new StringBuilder();
        for (int t = 0; t < h.size(); t++)
            sb.append("  T").append(h.name(t)).append(" s").append(h.sessionName(h.session(t))).append(' ')
                    .append(History.statusName(h.status(t))).append(' ').append(h.describeOps(t)).append('\n');
        return sb.toString();
    }
}
