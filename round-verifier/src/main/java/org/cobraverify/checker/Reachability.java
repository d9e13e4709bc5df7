package org.cobraverify.checker;

import java.util.Arrays;

/**
 * All-pairs reachability of an acyclic known graph, compressed by a chain cover: vertices are split into
 * chains, paths in the graph along which each vertex reaches every later one (session order gives most
 * of them). For each vertex v and chain c, {@code reach[v*C + c]} is the smallest position in c that v
 * reaches (or more), so {@code u ⇝ v} iff {@code reach[u*C + chain(v)] <= pos(v)}. Space n·C ints, time
 * E·C: far below a bit matrix for histories with few sessions.
 *
 * <p><em>Satellites</em>: vertices with no in-edge and no session successor get no chain ({@code chainOf} is -1):
 * nothing reaches them but themselves, and their own row says what they reach. Such are the synthetic writers of
 * frontier records (docs/DESIGN.md §7.9), mutually unordered, a thousand in a round: one chain each would multiply
 * the index (and the pruner's) by a thousand.
 */
final class Reachability implements CheckedRound.Reach {
    private static final int INF = Integer.MAX_VALUE;
    final int chains;
    final int[] chainOf, pos, reach;

    /**
     * Over the first {@code edges} edges of {@code g} only ({@code out} must be over the same edges), within
     * {@link #defaultMaxCells}. Requires: {@code topo} is a topological order of the live vertices of {@code out}.
     */
    Reachability(KnownGraph g, KnownGraph.Csr out, int[] topo, int[] sessionPred, int edges) {
        this(g.n, out.start, out.target, g.csr(edges, true), topo, sessionPred, defaultMaxCells());
    }

    /** Over a {@link ReachabilityEngine.Dag}, with at most {@code maxCells} cells. */
    Reachability(ReachabilityEngine.Dag dag, long maxCells) {
        this(dag.vertices(), dag.outStart(), dag.outTarget(), reverse(dag), dag.topo(), dag.sessionPred(), maxCells);
    }

    private static KnownGraph.Csr reverse(ReachabilityEngine.Dag dag) {
        int[][] r = dag.reverse();
        return new KnownGraph.Csr(r[0], null, r[1]);
    }

    /** Throws {@link ReachabilityEngine.TooLarge} when the index would need more than {@code maxCells} cells. */
    private Reachability(int n, int[] outStart, int[] outTarget, KnownGraph.Csr in, int[] topo, int[] sessionPred, long maxCells) {
        boolean[] hasSuccessor = new boolean[n];
        if (sessionPred != null) for (int p : sessionPred) if (p >= 0) hasSuccessor[p] = true;
        chainOf = new int[n];
        pos = new int[n];
        Arrays.fill(chainOf, -1);
        // greedy chain cover in topological order: extend the chain whose tail is a direct predecessor,
        // trying the session predecessor first
        int[] chainTail = new int[Math.max(1, topo.length)];
        int[] chainLen = new int[Math.max(1, topo.length)];
        int c = 0;
        for (int v : topo) {
            if (in.start[v] == in.start[v + 1] && !hasSuccessor[v]) continue; // a satellite
            int chosen = -1;
            int sp = sessionPred == null ? -1 : sessionPred[v];
            if (sp >= 0 && chainOf[sp] >= 0 && chainTail[chainOf[sp]] == sp) chosen = chainOf[sp];
            else {
                for (int p = in.start[v]; p < in.start[v + 1] && chosen < 0; p++) {
                    int u = in.target[p];
                    if (chainOf[u] >= 0 && chainTail[chainOf[u]] == u) chosen = chainOf[u];
                }
            }
            if (chosen < 0) chosen = c++;
            chainOf[v] = chosen;
            pos[v] = chainLen[chosen]++;
            chainTail[chosen] = v;
        }
        chains = Math.max(1, c);
        long cells = (long) n * chains;
        if (cells > maxCells)
            throw new ReachabilityEngine.TooLarge("a reachability index of " + n + " vertices x " + chains + " chains would not fit in memory");
        reach = new int[(int) cells];
        Arrays.fill(reach, INF);
        for (int i = topo.length - 1; i >= 0; i--) {
            int v = topo[i];
            int base = v * chains;
            for (int p = outStart[v]; p < outStart[v + 1]; p++) {
                int w = outTarget[p];
                int wb = w * chains;
                for (int k = 0; k < chains; k++) {
                    int x = reach[wb + k];
                    if (x < reach[base + k]) reach[base + k] = x;
                }
            }
            if (chainOf[v] >= 0) reach[base + chainOf[v]] = pos[v];
        }
    }

    /** At most a quarter of the heap, and what one int array can hold. */
    static long defaultMaxCells() {
        return Math.min(Integer.MAX_VALUE - 8, Runtime.getRuntime().maxMemory() / 4 / Integer.BYTES);
    }

    /** True iff there is a path from u to v (of length zero when u == v). Both must be live. */
    @Override
    public boolean reaches(int u, int v) {
        int c = chainOf[v];
        return c < 0 ? u == v : reach[u * chains + c] <= pos[v];
    }

    @Override
    public int chains() { return chains; }

    @Override
    public int[] chainOf() { return chainOf; }

    @Override
    public int[] positions() { return pos; }

    @Override
    public int[] reachTable() { return reach; }
}
