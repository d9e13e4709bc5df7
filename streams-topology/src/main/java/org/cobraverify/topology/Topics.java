package org.cobraverify.topology;

/**
 * The pipeline's topics (docs/DESIGN.md §3.1). {@code OPS} is keyed by session, with any number of partitions;
 * {@code TXNS} and {@code ROUNDS} have one partition each, because the round cutter (which owns the fence
 * chain) and the verifier each need one total order.
 */
public final class Topics {
    public static final String OPS = "cobra.ops";
    public static final String TXNS = "cobra.txns";
    public static final String ROUNDS = "cobra.rounds";
    public static final String VERDICTS = "cobra.verdicts";
    public static final String GC_FRONTIERS = "cobra.gc-frontiers";
    /** Per data key, its frontier log as of the verifier's latest checkpoint (compacted; docs/DESIGN.md §7.9). */
    public static final String FRONTIER_LOGS = "cobra.frontier-logs";
    public static final String DEAD_LETTERS = "cobra.dead-letters";
    public static final String SCHEMAS = "cobra.schemas";

    private Topics() {}
}
