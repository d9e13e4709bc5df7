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
    private final boolean contrary;

    /** The solver: each first phase is the side the current topological order already agrees with. */
    public AcyclicitySolver() { this(false); }

    private AcyclicitySolver(boolean contrary) { this.contrary = contrary; }

    /**
     * The same exact solver with every first phase reversed (the side the order agrees with least), so that where
     * several solutions exist it tends to find another one. For tests: a shortcut that keeps a solver's choices (GC's
     * settlement) must be sound whichever solution was found.
     */
    public static AcyclicitySolver contrary() { return new AcyclicitySolver(true); }

    @Override
    public String name() { return contrary ? "cdcl-contrary" : "cdcl"; }

    @Override
    public Result solve(Instance inst, Budget budget) {
        CdclSearch s = new CdclSearch(new AcyclicityTheory(inst, contrary), inst.variables, budget);
        try {
            return s.run();
        } catch (Budget.Cancelled e) {
            return Result.cancelled(s.conflicts, s.decisions);
        } catch (Budget.Exhausted e) {
            return Result.unknown(e.getMessage(), s.conflicts, s.decisions);
        }
    }
}
