package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * Step 2: the known graph. Vertices are transaction indexes (transactions the checker does not include
 * have no edges); T⊥ is not a vertex, since it precedes everything and can lie on no cycle. In strict
 * mode, vertices from {@code History.size()} on are the auxiliary time points of {@link RealTimeOrder}
 * and {@link #RT} edges the real-time order; the last vertex of an incremental check may be a barrier
 * standing for the collected past ({@link CheckedRound.Past}), joined by {@link #PAST} edges; {@link #PATH} edges stand
 * for known paths through transactions since collected, {@link #SETTLED} edges for write orders garbage collection
 * settled for good ({@link CheckedRound#settle}). Edges are
 * append-only, each with a kind ({@link #SO}, {@link #WR}, {@link #WW}, {@link #RW}), the key it
 * concerns (-1 for session order) and, for an edge that pruning or decomposition derived from a
 * constraint, a derivation.
 */
public final class KnownGraph {
    /**
     * The derivation of a fact carried from an earlier round (docs/DESIGN.md §7.4): it held in that round's history, and its
     * proof may have run through transactions garbage collection has since taken, so no step of it is shown here.
     */
    public static final int CARRIED = -2;
    public static final int SO = 0, WR = 1, WW = 2, RW = 3, RT = 4, PAST = 5, PATH = 6, SETTLED = 7;
    private static final String[] KIND_NAMES = {"so", "wr", "ww", "rw", "rt", "past", "path", "settled"};

    final int n;
    final IntVec src, dst, kind, key, deriv;
    // derivations: a forced side of constraint c, because the other side's edge (a, b) had a path b ~> a using
    // only edges with index < limit
    final IntVec derivConstraint = new IntVec(), derivA = new IntVec(), derivB = new IntVec(), derivLimit = new IntVec();

    KnownGraph(int n) { this(n, 1024); }

    /** A graph of {@code n} vertices with room for {@code edges} edges before its vectors grow (grown by doubling, they were 2% of a TPC-C check's allocation). */
    KnownGraph(int n, int edges) {
        this.n = n;
        int room = Math.max(16, edges);
        src = new IntVec(room);
        dst = new IntVec(room);
        kind = new IntVec(room);
        key = new IntVec(room);
        deriv = new IntVec(room);
    }

    public int vertexCount() { return n; }

    public int edgeCount() { return src.size(); }

    public static String kindName(int k) { return KIND_NAMES[k]; }

    void add(int u, int v, int k, int onKey) { add(u, v, k, onKey, -1); }

    void add(int u, int v, int k, int onKey, int derivation) {
        src.add(u);
        dst.add(v);
        kind.add(k);
        key.add(onKey);
        deriv.add(derivation);
    }

    /** Forgets every edge and derivation added after the counts given (the graph is otherwise append-only). */
    void truncate(int edges, int derivations) {
        src.shrink(edges); dst.shrink(edges); kind.shrink(edges); key.shrink(edges); deriv.shrink(edges);
        derivConstraint.shrink(derivations); derivA.shrink(derivations); derivB.shrink(derivations); derivLimit.shrink(derivations);
    }

    int derivation(int constraint, int a, int b) {
        derivConstraint.add(constraint);
        derivA.add(a);
        derivB.add(b);
        derivLimit.add(src.size());
        return derivConstraint.size() - 1;
    }

    /** Out-adjacency in CSR form over the first {@code edges} edges: {@code start[v]..start[v+1]} index {@code edge[]}. */
    static final class Csr implements CheckedRound.Adjacency {
        final int[] start, edge, target;

        Csr(int[] start, int[] edge, int[] target) { this.start = start; this.edge = edge; this.target = target; }

        @Override
        public int[] start() { return start; }

        @Override
        public int[] target() { return target; }

        /** The vertices below {@code n} reached from any of {@code sources} (themselves included): an iterative search. */
        @Override
        public boolean[] reachedFrom(int n, int... sources) {
            int vn = start.length - 1;
            boolean[] seen = new boolean[vn];
            int[] stack = new int[vn];
            int sp = 0;
            for (int s : sources) if (!seen[s]) { seen[s] = true; stack[sp++] = s; }
            while (sp > 0) {
                int v = stack[--sp];
                for (int p = start[v]; p < start[v + 1]; p++) {
                    int w = target[p];
                    if (!seen[w]) { seen[w] = true; stack[sp++] = w; }
                }
            }
            return java.util.Arrays.copyOf(seen, n);
        }
    }

    Csr outCsr() { return csr(edgeCount(), false); }

    Csr csr(int edges, boolean reverse) {
        int[] start = new int[n + 1];
        int[] from = reverse ? dst.raw() : src.raw();
        int[] to = reverse ? src.raw() : dst.raw();
        for (int e = 0; e < edges; e++) start[from[e] + 1]++;
        for (int v = 0; v < n; v++) start[v + 1] += start[v];
        int[] pos = Arrays.copyOf(start, n);
        int[] edge = new int[edges], target = new int[edges];
        for (int e = 0; e < edges; e++) {
            int p = pos[from[e]]++;
            edge[p] = e;
            target[p] = to[e];
        }
        return new Csr(start, edge, target);
    }
}
