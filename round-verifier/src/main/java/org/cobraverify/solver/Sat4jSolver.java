package org.cobraverify.solver;

import org.sat4j.core.VecInt;
import org.sat4j.minisat.SolverFactory;
import org.sat4j.specs.ContradictionException;
import org.sat4j.specs.ISolver;
import org.sat4j.specs.TimeoutException;

/**
 * The cross-check solver: a general SAT solver (Sat4j) with lazily added cycle clauses. It asks Sat4j
 * for any assignment, looks for a cycle in the resulting graph, forbids the literals that close it,
 * and repeats. Exact but slow on large instances; never the default, used by tests and
 * {@code cobra bench --compare}. Its work, in a result's {@code conflicts}: the calls to Sat4j.
 */
public final class Sat4jSolver implements Solver {
    @Override
    public String name() { return "sat4j"; }

    @Override
    public Result solve(Instance in, Budget budget) {
        ISolver sat = SolverFactory.newDefault();
        sat.newVar(Math.max(1, in.variables));
        boolean[] used = new boolean[in.variables];
        long rounds = 0;
        try {
            while (true) {
                budget.check();
                rounds++;
                if (!sat.isSatisfiable()) return Result.unsat(core(used), rounds, 0);
                boolean[] sideA = new boolean[in.variables];
                int[] model = sat.model();
                for (int lit : model) if (lit > 0 && lit <= in.variables) sideA[lit - 1] = true;
                int[] owners = new CycleSearch(in, sideA).findCycleOwners();
                if (owners == null) return Result.sat(sideA, rounds, 0);
                if (owners.length == 0) return Result.unsat(new int[0], rounds, 0);
                int[] clause = new int[owners.length];
                for (int i = 0; i < owners.length; i++) {
                    int v = owners[i];
                    used[v] = true;
                    clause[i] = sideA[v] ? -(v + 1) : (v + 1);
                }
                sat.addClause(new VecInt(clause));
            }
        } catch (ContradictionException e) {
            return Result.unsat(core(used), rounds, 0);
        } catch (TimeoutException e) {
            return Result.unknown("sat4j timed out", rounds, 0);
        } catch (Budget.Cancelled e) {
            return Result.cancelled(rounds, 0);
        } catch (Budget.Exhausted e) {
            return Result.unknown(e.getMessage(), rounds, 0);
        }
    }

    private static int[] core(boolean[] used) {
        int c = 0;
        for (boolean b : used) if (b) c++;
        int[] r = new int[c];
        c = 0;
        for (int v = 0; v < used.length; v++) if (used[v]) r[c++] = v;
        return r;
    }

    /** Solvers by name, for flags: cdcl (the default), sat4j, exhaustive. */
    public static Solver byName(String name) {
        return switch (name) {
            case "cdcl" -> new AcyclicitySolver();
            case "sat4j" -> new Sat4jSolver();
            case "exhaustive" -> new ExhaustiveSolver();
            default -> throw new IllegalArgumentException("unknown solver '" + name + "' (known: cdcl, sat4j, exhaustive)");
        };
    }
}
