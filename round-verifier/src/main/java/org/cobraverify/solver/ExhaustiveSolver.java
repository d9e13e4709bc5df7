package org.cobraverify.solver;

/**
 * Tries all 2^V assignments, checking each with {@link CycleSearch}: a reference for small instances
 * (V ≤ 24), used by tests and as a cross-check. Refuses larger instances with UNKNOWN. Its work, in a result's
 * {@code decisions}: the assignments tried.
 */
public final class ExhaustiveSolver implements Solver {
    public static final int MAX_VARIABLES = 24;

    @Override
    public String name() { return "exhaustive"; }

    @Override
    public Result solve(Instance in, Budget budget) {
        if (in.variables > MAX_VARIABLES) return Result.unknown("too many choices for exhaustive search (" + in.variables + ")", 0, 0);
        long mask = 0;
        try {
            for (; mask < (1L << in.variables); mask++) {
                budget.step();
                boolean[] a = new boolean[in.variables];
                for (int v = 0; v < in.variables; v++) a[v] = (mask & (1L << v)) != 0;
                if (acyclic(in, a)) return Result.sat(a, 0, mask + 1);
            }
        } catch (Budget.Cancelled e) {
            return Result.cancelled(0, mask);
        } catch (Budget.Exhausted e) {
            return Result.unknown(e.getMessage(), 0, mask);
        }
        int[] all = new int[in.variables];
        for (int v = 0; v < all.length; v++) all[v] = v;
        return Result.unsat(all, 0, 1L << in.variables);
    }

    /** True iff the fixed edges plus the chosen sides form an acyclic graph. */
    public static boolean acyclic(Instance in, boolean[] sideA) {
        return new CycleSearch(in, sideA).findCycleOwners() == null;
    }
}
