package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/**
 * Two engines on every query ({@code --gpu verify}): the candidate's answer must equal the reference's, else
 * {@link Disagreement} names the query. The reference's answers are the ones returned.
 */
public final class CrossCheckedReachability implements ReachabilityEngine {
    private final ReachabilityEngine reference, candidate;

    public CrossCheckedReachability(ReachabilityEngine reference, ReachabilityEngine candidate) {
        this.reference = reference;
        this.candidate = candidate;
    }

    /** The two engines answered a query differently: one of them is wrong, and no verdict may rest on it. */
    public static final class Disagreement extends IllegalStateException {
        public Disagreement(String message) { super(message); }
    }

    @Override
    public String name() { return candidate.name() + " checked against " + reference.name(); }

    @Override
    public Index index(Dag dag, int[] sources, Budget budget) {
        Index want = reference.index(dag, sources, budget), got = candidate.index(dag, sources, budget);
        return (s, t) -> {
            boolean w = want.reaches(s, t);
            if (got.reaches(s, t) != w)
                throw new Disagreement(candidate.name() + " says " + s + (w ? " does not reach " : " reaches ") + t + ", " + reference.name()
                        + " says it " + (w ? "does" : "does not") + " (graph of " + dag.vertices() + " vertices and " + dag.outTarget().length + " edges)");
            return w;
        };
    }
}
