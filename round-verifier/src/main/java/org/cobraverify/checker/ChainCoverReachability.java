package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/** The CPU reference: the chain-cover index of {@link Reachability}, built once per batch. */
public final class ChainCoverReachability implements ReachabilityEngine {
    public static final ChainCoverReachability INSTANCE = new ChainCoverReachability();

    private ChainCoverReachability() {}

    @Override
    public String name() { return "cpu"; }

    @Override
    public boolean[] reaches(Dag dag, int[] src, int[] dst, Budget budget) {
        Reachability r = new Reachability(dag);
        boolean[] answer = new boolean[src.length];
        for (int i = 0; i < src.length; i++) {
            if ((i & 0xffff) == 0) budget.check();
            answer[i] = r.reaches(src[i], dst[i]);
        }
        return answer;
    }
}
