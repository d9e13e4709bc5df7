package org.cobraverify.solver;

/**
 * Decides an {@link Instance}: is there a choice of sides that keeps the graph acyclic? Implementations
 * must be exact: SAT only with a valid assignment, UNSAT only when none exists, UNKNOWN when the budget
 * runs out (checked from inside the search).
 *
 * <p>docs/DESIGN.md §5.
 */
public interface Solver {
    Result solve(Instance instance, Budget budget);

    /** Short name, for reports and flags. */
    String name();
}
