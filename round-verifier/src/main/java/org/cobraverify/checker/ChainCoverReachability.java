package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/**
 * The CPU reference: the chain-cover index of {@link Reachability} (every source at once), within a limit on its
 * cells. {@link #INSTANCE} takes the default limit (a quarter of the heap); a graph whose index would exceed the
 * limit is refused with {@link ReachabilityEngine.TooLarge}, and pruning is skipped (the solver alone decides).
 */
public final class ChainCoverReachability implements ReachabilityEngine {
    public static final ChainCoverReachability INSTANCE = new ChainCoverReachability(-1);

    private final long maxCells;

    private ChainCoverReachability(long maxCells) { this.maxCells = maxCells; }

    /**
     * An index of at most {@code maxCells} cells (vertices times chains); 0 refuses every graph with a vertex, so a
     * check runs without pruning (tests of the solver alone).
     */
    public static ChainCoverReachability withMaxCells(long maxCells) {
        if (maxCells < 0) throw new IllegalArgumentException("a cell limit cannot be negative: " + maxCells);
        return new ChainCoverReachability(maxCells);
    }

    @Override
    public String name() { return "cpu"; }

    @Override
    public Index index(Dag dag, int[] sources, Budget budget) {
        Reachability r = new Reachability(dag, maxCells < 0 ? Reachability.defaultMaxCells() : maxCells);
        return r::reaches;
    }
}
