package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/**
 * Two engines on every batch ({@code --gpu verify}): the answers of the candidate must equal the reference's,
 * else {@link Disagreement} names the first query that differs. The reference's answers are the ones returned.
 */
public final class CrossCheckedReachability implements ReachabilityEngine {
    private final ReachabilityEngine reference, candidate;
    private long batches, queries;

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
    public boolean[] reaches(Dag dag, int[] src, int[] dst, Budget budget) {
        boolean[] want = reference.reaches(dag, src, dst, budget);
        boolean[] got = candidate.reaches(dag, src, dst, budget);
        for (int i = 0; i < want.length; i++)
            if (got[i] != want[i])
                throw new Disagreement(candidate.name() + " says " + src[i] + (got[i] ? " reaches " : " does not reach ") + dst[i] + ", "
                        + reference.name() + " says it " + (want[i] ? "does" : "does not") + " (query " + i + " of " + want.length
                        + ", graph of " + dag.vertices() + " vertices and " + dag.outTarget().length + " edges)");
        batches++;
        queries += want.length;
        return want;
    }

    public long batches() { return batches; }

    public long queries() { return queries; }
}
