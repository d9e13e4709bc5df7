package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.solver.Budget;

/**
 * What pruning asks of reachability, and all it asks: in an acyclic graph, from these sources (the targets of
 * the constraints' sides), which vertices can be reached? The checker does not know which implementation it
 * has: the chain cover on the CPU ({@link ChainCoverReachability}, the default and the reference) or a GPU one
 * (module {@code gpu}). {@link CrossCheckedReachability} runs two and fails on any difference.
 *
 * <p>Contract (every implementation; {@code ReachabilityContract} checks it against brute force): {@link
 * #index} returns an {@link Index} whose {@code reaches(s, t)} is exact for every listed source s and every
 * vertex t (true when s == t); it never changes its inputs; it either answers exactly or throws ({@link
 * TooLarge} when its index would not fit, after which pruning is skipped and the solver decides everything,
 * or {@link Budget.Exhausted}). It never guesses. Queries cost O(1) after the index is built: pruning asks
 * them one at a time and stops at the first that blocks a side.
 */
public interface ReachabilityEngine {
    /** Short name, for stats and messages ("cpu", "gpu ..."). */
    String name();

    /** An index of {@code dag} for paths from each of {@code sources}. */
    Index index(Dag dag, int[] sources, Budget budget);

    /** Answers s ⇝ t for the sources it was built for. */
    interface Index {
        boolean reaches(int s, int t);
    }

    /** A batch: {@code src[i] ⇝ dst[i]} for every i (one index over the distinct sources). */
    default boolean[] reaches(Dag dag, int[] src, int[] dst, Budget budget) {
        Index ix = index(dag, Arrays.stream(src).distinct().toArray(), budget);
        boolean[] answer = new boolean[src.length];
        for (int i = 0; i < src.length; i++) {
            if ((i & 0xffff) == 0) budget.check();
            answer[i] = ix.reaches(src[i], dst[i]);
        }
        return answer;
    }

    /**
     * An acyclic graph in CSR form: the out-edges of vertex v are {@code outTarget[outStart[v] ..
     * outStart[v+1]-1]}; {@code topo} is a topological order of its live vertices (only those appear in
     * edges and queries); {@code sessionPred[v]} is v's session predecessor or -1 (a hint for chain covers;
     * may be null).
     */
    record Dag(int vertices, int[] outStart, int[] outTarget, int[] topo, int[] sessionPred) {
        /** The DAG of edges {@code from[i] → to[i]}. */
        public static Dag fromEdges(int vertices, int[] from, int[] to, int[] topo, int[] sessionPred) {
            int[][] out = csr(vertices, from, to, from.length);
            return new Dag(vertices, out[0], out[1], topo, sessionPred);
        }

        /** The in-edges, as CSR (start, source). */
        public int[][] reverse() {
            int[] from = new int[outTarget.length];
            for (int u = 0; u < vertices; u++) for (int p = outStart[u]; p < outStart[u + 1]; p++) from[p] = u;
            return csr(vertices, outTarget, from, from.length);
        }

        /** The first {@code edges} edges {@code from[i] → to[i]} grouped by {@code from}: {start, to}. */
        public static int[][] csr(int vertices, int[] from, int[] to, int edges) {
            int[] start = new int[vertices + 1];
            for (int e = 0; e < edges; e++) start[from[e] + 1]++;
            for (int v = 0; v < vertices; v++) start[v + 1] += start[v];
            int[] fill = Arrays.copyOf(start, vertices), target = new int[edges];
            for (int e = 0; e < edges; e++) target[fill[from[e]]++] = to[e];
            return new int[][] {start, target};
        }
    }

    /** The index would not fit in memory: the caller goes on without pruning. */
    final class TooLarge extends RuntimeException {
        public TooLarge(String message) { super(message, null, false, false); }
    }
}
