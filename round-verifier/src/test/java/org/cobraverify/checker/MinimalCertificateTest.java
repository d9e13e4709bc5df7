package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cobraverify.history.History;
import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.solver.Budget;
import org.cobraverify.solver.ExhaustiveSolver;
import org.cobraverify.solver.Sat4jSolver;
import org.cobraverify.solver.Solver;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.synth.SimulatedStore.Isolation;
import org.cobraverify.testkit.ExhaustiveSerializability;
import org.cobraverify.testkit.Histories;
import org.junit.jupiter.api.Test;

/**
 * Minimal certificates: every minimal sub-history is itself rejected, is closed under read-from, and
 * becomes serializable (by exhaustive search) when any one of its transactions is removed together
 * with the transactions that read from it.
 */
class MinimalCertificateTest {
    private static void assertMinimal(History h, int[] sub, String ctx) {
        assertEquals(Verdict.Outcome.REJECT, Checker.check(h.restrict(sub)).outcome(), ctx);
        Minimizer m = new Minimizer(h, Checker.subHistories(CheckOptions.defaults()), Budget.unlimited());
        boolean[] closed = m.close(sub);
        assertEquals(sub.length, Minimizer.members(closed).length, ctx + ": not closed under read-from");
        for (int t : sub) {
            int[] rest = m.without(sub, t);
            if (rest.length == 0) continue;
            History smaller = h.restrict(rest);
            assertTrue(ExhaustiveSerializability.isSerializable(smaller), ctx + ": still not serializable without T" + h.name(t));
        }
    }

    @Test
    void minimizerYieldsOneMinimalProofs() {
        Random rnd = new Random(11);
        int checked = 0;
        for (int run = 0; run < 3000 && checked < 300; run++) {
            Isolation iso = run % 2 == 0 ? Isolation.STALE_READS : Isolation.READ_COMMITTED;
            History h = SimulatedStore.run(iso, new SimulatedStore.Workload(3 + rnd.nextInt(3), 2 + rnd.nextInt(3), 2 + rnd.nextInt(3), 3, 0.5, 0.1, 0.05), rnd);
            if (Checker.check(h).outcome() != Verdict.Outcome.REJECT) continue;
            int[] all = new int[h.size()];
            for (int t = 0; t < all.length; t++) all[t] = t;
            Minimizer m = new Minimizer(h, Checker.subHistories(CheckOptions.defaults()), Budget.unlimited());
            int[] sub = m.minimize(all);
            if (sub.length > 9) continue; // exhaustive search in the assertion would be too slow
            assertMinimal(h, sub, "run " + run + "\n" + SimulatedStorePropertyTest.dump(h));
            checked++;
        }
        assertTrue(checked >= 100, "too few rejected histories: " + checked);
    }

    /**
     * Two blind-write orders, x (writers a, b; readers ra, rb) and y (c, d; rc, rd), with a and b
     * visible to rc and rd, and c and d visible to ra and rb. No single order is impossible, so pruning
     * decides nothing; but each of the four combinations closes a cycle, e.g. ra -rw(x)-> b -wr-> rc
     * -rw(y)-> d -wr-> ra. Only search proves it.
     */
    static final String[] CROSSED = {
            "{\"id\":\"a\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"w\",\"k1\",1],[\"w\",\"k3\",1]]}",
            "{\"id\":\"b\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",2],[\"w\",\"k2\",1],[\"w\",\"k4\",1]]}",
            "{\"id\":\"c\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"w\",\"y\",1],[\"w\",\"k5\",1],[\"w\",\"k7\",1]]}",
            "{\"id\":\"d\",\"session\":4,\"status\":\"committed\",\"ops\":[[\"w\",\"y\",2],[\"w\",\"k6\",1],[\"w\",\"k8\",1]]}",
            "{\"id\":\"ra\",\"session\":5,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1],[\"r\",\"k5\",1],[\"r\",\"k6\",1]]}",
            "{\"id\":\"rb\",\"session\":6,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",2],[\"r\",\"k7\",1],[\"r\",\"k8\",1]]}",
            "{\"id\":\"rc\",\"session\":7,\"status\":\"committed\",\"ops\":[[\"r\",\"y\",1],[\"r\",\"k1\",1],[\"r\",\"k2\",1]]}",
            "{\"id\":\"rd\",\"session\":8,\"status\":\"committed\",\"ops\":[[\"r\",\"y\",2],[\"r\",\"k3\",1],[\"r\",\"k4\",1]]}",
            "{\"id\":\"noise\",\"session\":9,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1],[\"w\",\"z\",1]]}",
            "{\"id\":\"noise2\",\"session\":9,\"status\":\"committed\",\"ops\":[[\"r\",\"z\",1],[\"w\",\"k9\",1]]}"};

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    @Test
    void searchProvedViolationComesWithAMinimalSubHistoryAndCases() throws Exception {
        History h = Histories.jsonl(dir, CROSSED);
        assertFalse(ExhaustiveSerializability.isSerializable(h));
        for (Solver solver : List.of(new AcyclicitySolver(),
                new Sat4jSolver(), new ExhaustiveSolver())) {
            Verdict v = Checker.check(h, CheckOptions.defaults().withSolver(solver));
            assertEquals(Verdict.Outcome.REJECT, v.outcome(), solver.name());
            Certificate c = v.certificate();
            assertEquals(AnomalyKind.UNSERIALIZABLE, c.kind(), solver.name() + ": " + c.summary());
            assertEquals(List.of("a", "b", "c", "d", "ra", "rb", "rc", "rd"), c.subHistory(), "the noise is not part of the proof");
            int[] sub = c.subHistory().stream().mapToInt(id -> {
                for (int t = 0; t < h.size(); t++) if (h.name(t).equals(id)) return t;
                throw new AssertionError(id);
            }).sorted().toArray();
            assertMinimal(h, sub, solver.name());
            // either order of x closes a cycle once pruning has followed it through y
            assertEquals(List.of("if a's write of x precedes b's: long fork (G2): b -wr(k4)-> rd -rw(y)*-> c -wr(k5)-> ra -rw(x)-> b",
                    "if b's write of x precedes a's: long fork (G2): a -wr(k3)-> rd -rw(y)*-> c -wr(k7)-> rb -rw(x)-> a"), c.cases());
        }
    }
}
