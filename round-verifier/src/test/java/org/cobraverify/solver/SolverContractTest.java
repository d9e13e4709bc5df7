package org.cobraverify.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.cobraverify.history.IntVec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every {@link Solver} must meet, run against each implementation: on thousands of random
 * constraint systems, satisfiable and not, it agrees with a brute force written here (every assignment, each
 * checked by Kahn's algorithm, sharing no code with the solvers), every SAT answer is an acyclic choice and every
 * UNSAT core is unsatisfiable on its own; a budget of work stops the search, and a cancelled budget cancels it.
 */
class SolverContractTest {
    static Stream<Solver> solvers() { return Stream.of(new AcyclicitySolver(), AcyclicitySolver.contrary(), new Sat4jSolver(), new ExhaustiveSolver()); }

    static Instance random(Random rnd) { return random(rnd, 2 + rnd.nextInt(7), 1 + rnd.nextInt(10)); }

    /** A random instance on {@code n} vertices with {@code vars} variables, each side one to three edges. */
    static Instance random(Random rnd, int n, int vars) {
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
            boolean expected = bruteForceSatisfiable(in);
            Result got = solver.solve(in, Budget.unlimited());
            assertEquals(expected ? Result.Status.SAT : Result.Status.UNSAT, got.status(), "run " + run);
            if (got.status() == Result.Status.SAT) {
                sat++;
                assertTrue(acyclic(in, got.sideA()), "run " + run + ": SAT assignment has a cycle");
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
        return !bruteForceSatisfiable(sub);
    }

    /** The reference: some assignment of the (at most 20) variables leaves the graph acyclic. */
    static boolean bruteForceSatisfiable(Instance in) {
        boolean[] a = new boolean[in.variables];
        for (long mask = 0; mask < (1L << in.variables); mask++) {
            for (int v = 0; v < in.variables; v++) a[v] = (mask >> v & 1) != 0;
            if (acyclic(in, a)) return true;
        }
        return false;
    }

    /** Kahn's algorithm over the fixed edges and the chosen side of every variable. */
    static boolean acyclic(Instance in, boolean[] sideA) {
        List<int[]> edges = new ArrayList<>();
        for (int i = 0; i < in.fixedSrc.length; i++) edges.add(new int[] {in.fixedSrc[i], in.fixedDst[i]});
        for (int v = 0; v < in.variables; v++) {
            int lit = sideA[v] ? 2 * v : 2 * v + 1;
            for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) edges.add(new int[] {in.litSrc[i], in.litDst[i]});
        }
        int[] indegree = new int[in.vertices];
        for (int[] e : edges) indegree[e[1]]++;
        Deque<Integer> ready = new ArrayDeque<>();
        for (int v = 0; v < in.vertices; v++) if (indegree[v] == 0) ready.add(v);
        int removed = 0;
        while (!ready.isEmpty()) {
            int u = ready.poll();
            removed++;
            for (int[] e : edges) if (e[0] == u && --indegree[e[1]] == 0) ready.add(e[1]);
        }
        return removed == in.vertices;
    }

    /**
     * An unsatisfiable instance that takes every solver more than {@link #LIMIT} units of work (asserted below, so
     * a solver that becomes fast enough to decide it within the limit fails here rather than passing by luck).
     */
    static Instance hard() { return random(new Random(273), 8, 14); }

    static final int LIMIT = 10;

    /** The units of work a result reports: conflicts plus decisions (see {@link Budget}). */
    private static long work(Result r) { return r.conflicts() + r.decisions(); }

    @ParameterizedTest
    @MethodSource("solvers")
    void honoursTheBudget(Solver solver) {
        Instance in = hard();
        Result full = solver.solve(in, Budget.unlimited());
        assertEquals(Result.Status.UNSAT, full.status(), solver.name() + ": the instance is unsatisfiable");
        assertTrue(work(full) > LIMIT + 1, solver.name() + " decides the instance in " + work(full) + " units of work: not hard enough");

        Budget budget = Budget.ofCheckpoints(LIMIT);
        Result cut = solver.solve(in, budget);
        assertEquals(Result.Status.UNKNOWN, cut.status(), solver.name() + " under " + LIMIT + " checkpoints");
        assertTrue(cut.reason().contains("work limit"), cut.reason());
        assertEquals(LIMIT + 1, budget.checkpoints(), "the search stopped at the first checkpoint past the limit");
        assertTrue(work(cut) <= LIMIT + 1, solver.name() + " did " + work(cut) + " units of work under a limit of " + LIMIT);
    }

    @ParameterizedTest
    @MethodSource("solvers")
    void aCancelledBudgetCancels(Solver solver) {
        AtomicBoolean cancel = new AtomicBoolean(true);
        Result r = solver.solve(hard(), Budget.unlimited().cancellable(cancel));
        assertEquals(Result.Status.CANCELLED, r.status(), solver.name());
        assertTrue(work(r) <= 1, solver.name() + " went on for " + work(r) + " units of work after the cancellation");
    }
}
