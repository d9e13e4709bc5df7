package org.cobraverify.topology;

/**
 * The pipeline's topics (DESIGN §3). {@code OPS} and {@code FENCE_EPOCHS} are keyed by session and must
 * have the same number of partitions (one task assembles a session from both); {@code FENCES},
 * {@code TXNS} and {@code ROUNDS} have one partition each, because the fence chain, the round cutter
 * and the verifier each need one total order.
 */
public final class Topics {
    public static final String OPS = "cobra.ops";
    public static final String FENCES = "cobra.fences";
    public static final String FENCE_EPOCHS = "cobra.fence-epochs";
    public static final String TXNS = "cobra.txns";
    public static final String ROUNDS = "cobra.rounds";
    public static final String VERDICTS = "cobra.verdicts";
    public static final String GC_FRONTIERS = "cobra.gc-frontiers";
    public static final String DEAD_LETTERS = "cobra.dead-letters";
    public static final String SCHEMAS = "cobra.schemas";

    private Topics() {}
}
