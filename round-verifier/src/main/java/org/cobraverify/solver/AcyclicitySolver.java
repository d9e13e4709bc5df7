package org.cobraverify.solver;

/**
 * The project's own replacement for MonoSAT: {@link CdclSearch} (clause learning, knowing nothing of
 * graphs) over one Boolean per constraint, modulo {@link AcyclicityTheory} (the edges of true literals must
 * keep the graph acyclic), which keeps an incremental topological order ({@link TopologicalOrder},
 * Pearce–Kelly). Answers are exact: SAT with an assignment, UNSAT with the variables used by the
 * refutation, UNKNOWN when the budget is spent, CANCELLED when the budget was cancelled.
 *
 * <p>docs/DESIGN.md §5.
 */
public final class AcyclicitySolver implements Solver {
    @Override
    public String name() { return "cdcl"; }

    @Override
    public Result solve(Instance inst, Budget budget) {
        CdclSearch s = new CdclSearch(new AcyclicityTheory(inst), inst.variables, budget);
        try {
            return s.run();
        } catch (Budget.Cancelled e) {
            return Result.cancelled(s.conflicts, s.decisions);
        } catch (Budget.Exhausted e) {
            return Result.unknown(e.getMessage(), s.conflicts, s.decisions);
        }
    }
}
