package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/** The CPU reference: the chain-cover index of {@link Reachability} (every source at once). */
public final class ChainCoverReachability implements ReachabilityEngine {
    public static final ChainCoverReachability INSTANCE = new ChainCoverReachability();

    private ChainCoverReachability() {}

    @Override
    public String name() { return "cpu"; }

    @Override
    public Index index(Dag dag, int[] sources, Budget budget) {
        Reachability r = new Reachability(dag);
        return r::reaches;
    }
}
