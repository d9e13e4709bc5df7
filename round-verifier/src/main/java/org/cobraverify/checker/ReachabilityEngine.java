package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/**
 * What pruning asks of reachability, and all it asks: in an acyclic graph, for a batch of vertex pairs
 * (s, t), is there a path s ⇝ t? The checker does not know which implementation it has: the chain cover
 * on the CPU ({@link ChainCoverReachability}, the default and the reference) or a GPU one (module
 * {@code gpu}). {@link CrossCheckedReachability} runs two and fails on any difference.
 *
 * <p>Contract (every implementation; {@code ReachabilityContractTest} checks it against brute force):
 * {@link #reaches} returns, for each i, whether {@code src[i] ⇝ dst[i]} (true when equal); it never
 * changes its inputs; it either answers every query exactly or throws ({@link TooLarge} when its index
 * would not fit, after which pruning is skipped and the solver decides everything, or {@link
 * Budget.Exhausted}). It never guesses.
 */
public interface ReachabilityEngine {
    /** Short name, for stats and messages ("cpu", "gpu ..."). */
    String name();

    /** Answers {@code src[i] ⇝ dst[i]} for every i in {@code dag}. */
    boolean[] reaches(Dag dag, int[] src, int[] dst, Budget budget);

    /**
     * An acyclic graph in CSR form: the out-edges of vertex v are {@code outTarget[outStart[v] ..
     * outStart[v+1]-1]}; {@code topo} is a topological order of its live vertices (only those appear in
     * edges and queries); {@code sessionPred[v]} is v's session predecessor or -1 (a hint for chain covers;
     * may be null).
     */
    record Dag(int vertices, int[] outStart, int[] outTarget, int[] topo, int[] sessionPred) {
        /** The in-edges, as CSR (start, source). */
        public int[][] reverse() {
            int[] start = new int[vertices + 1];
            for (int t : outTarget) start[t + 1]++;
            for (int v = 0; v < vertices; v++) start[v + 1] += start[v];
            int[] fill = java.util.Arrays.copyOf(start, vertices), src = new int[outTarget.length];
            for (int u = 0; u < vertices; u++)
                for (int p = outStart[u]; p < outStart[u + 1]; p++) src[fill[outTarget[p]]++] = u;
            return new int[][] {start, src};
        }
    }

    /** The index would not fit in memory: the caller goes on without pruning. */
    final class TooLarge extends RuntimeException {
        public TooLarge(String message) { super(message, null, false, false); }
    }
}
