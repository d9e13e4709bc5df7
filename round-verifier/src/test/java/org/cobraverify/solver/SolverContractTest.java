package org.cobraverify.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.cobraverify.history.IntVec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every {@link Solver} must meet, run against each implementation: on thousands of random
 * constraint systems, satisfiable and not, it agrees with brute force, and every SAT answer is an
 * acyclic choice.
 */
class SolverContractTest {
    static Stream<Solver> solvers() { return Stream.of(new AcyclicitySolver(), new Sat4jSolver(), new ExhaustiveSolver()); }

    static Instance random(Random rnd) {
        int n = 2 + rnd.nextInt(7);
        int vars = 1 + rnd.nextInt(10);
        // fixed edges: acyclic by construction (low index to high index, under a random relabelling)
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = rnd.nextInt(i + 1); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
        IntVec fs = new IntVec(), fd = new IntVec();
        int fixed = rnd.nextInt(n + 1);
        for (int i = 0; i < fixed; i++) {
            int a = rnd.nextInt(n), b = rnd.nextInt(n);
            if (a == b) continue;
            fs.add(perm[Math.min(a, b)]);
            fd.add(perm[Math.max(a, b)]);
        }
        int[] litStart = new int[2 * vars + 1];
        IntVec ls = new IntVec(), ld = new IntVec();
        for (int l = 0; l < 2 * vars; l++) {
            int k = 1 + rnd.nextInt(3);
            for (int i = 0; i < k; i++) {
                int a = rnd.nextInt(n), b = rnd.nextInt(n);
                if (a == b) b = (a + 1) % n;
                ls.add(a);
                ld.add(b);
            }
            litStart[l + 1] = ls.size();
        }
        long[] prio = rnd.nextBoolean() ? null : rnd.longs(n, 0, 100).toArray();
        return new Instance(n, fs.toArray(), fd.toArray(), vars, litStart, ls.toArray(), ld.toArray(), prio);
    }

    @ParameterizedTest
    @MethodSource("solvers")
    void agreesWithBruteForce(Solver solver) {
        Random rnd = new Random(7);
        int sat = 0, unsat = 0;
        for (int run = 0; run < 5000; run++) {
            Instance in = random(rnd);
            Result expected = new ExhaustiveSolver().solve(in, Budget.unlimited());
            Result got = solver.solve(in, Budget.unlimited());
            assertEquals(expected.status(), got.status(), "run " + run);
            if (got.status() == Result.Status.SAT) {
                sat++;
                assertTrue(ExhaustiveSolver.acyclic(in, got.sideA()), "run " + run + ": SAT assignment has a cycle");
            } else {
                unsat++;
                // the core alone must already be unsatisfiable
                assertTrue(coreIsUnsat(in, got.coreVariables()), "run " + run + ": core is satisfiable");
            }
        }
        assertTrue(sat > 500 && unsat > 500, "both outcomes must be exercised: " + sat + " sat, " + unsat + " unsat");
    }

    /** Keeps only the core's variables (and all fixed edges) and checks that brute force finds no solution. */
    private static boolean coreIsUnsat(Instance in, int[] core) {
        int vars = core.length;
        int[] litStart = new int[2 * vars + 1];
        IntVec ls = new IntVec(), ld = new IntVec();
        for (int x = 0; x < vars; x++)
            for (int side = 0; side < 2; side++) {
                int lit = 2 * core[x] + side;
                for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) { ls.add(in.litSrc[i]); ld.add(in.litDst[i]); }
                litStart[2 * x + side + 1] = ls.size();
            }
        Instance sub = new Instance(in.vertices, in.fixedSrc, in.fixedDst, vars, litStart, ls.toArray(), ld.toArray(), null);
        return new ExhaustiveSolver().solve(sub, Budget.unlimited()).status() == Result.Status.UNSAT;
    }

    @ParameterizedTest
    @MethodSource("solvers")
    void honoursTheBudget(Solver solver) {
        Random rnd = new Random(3);
        Instance in = random(rnd);
        Budget spent = Budget.of(1e-9, 0);
        try { Thread.sleep(2); } catch (InterruptedException e) { throw new AssertionError(e); }
        Result r = solver.solve(in, spent);
        // tiny instances may finish before the first check; a larger one may not
        assertTrue(List.of(Result.Status.SAT, Result.Status.UNSAT, Result.Status.UNKNOWN).contains(r.status()));
    }
}
