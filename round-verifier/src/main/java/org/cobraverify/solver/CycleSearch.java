package org.cobraverify.solver;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * The graph of an {@link Instance} under a full assignment, and a cycle in it if there is one. Used by
 * the cross-check solvers, which need "is this choice acyclic, and if not, which variables close a
 * cycle". Iterative (Kahn's algorithm, then breadth-first search).
 */
final class CycleSearch {
    private final int n;
    private final int[] start, target, owner;

    CycleSearch(Instance in, boolean[] sideA) {
        n = in.vertices;
        IntVec src = new IntVec(), dst = new IntVec(), own = new IntVec();
        for (int i = 0; i < in.fixedSrc.length; i++) { src.add(in.fixedSrc[i]); dst.add(in.fixedDst[i]); own.add(-1); }
        for (int v = 0; v < in.variables; v++) {
            int lit = sideA[v] ? 2 * v : 2 * v + 1;
            for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) { src.add(in.litSrc[i]); dst.add(in.litDst[i]); own.add(v); }
        }
        int m = src.size();
        start = new int[n + 1];
        for (int e = 0; e < m; e++) start[src.get(e) + 1]++;
        for (int v = 0; v < n; v++) start[v + 1] += start[v];
        target = new int[m];
        owner = new int[m];
        int[] fill = Arrays.copyOf(start, n);
        for (int e = 0; e < m; e++) {
            int p = fill[src.get(e)]++;
            target[p] = dst.get(e);
            owner[p] = own.get(e);
        }
    }

    /**
     * Null if the graph is acyclic; otherwise the distinct variables owning the edges of a shortest
     * cycle through some vertex left by Kahn's algorithm (empty if only fixed edges form it).
     */
    int[] findCycleOwners() {
        int[] indeg = new int[n];
        for (int p = 0; p < target.length; p++) indeg[target[p]]++;
        int[] q = new int[n];
        int h = 0, t = 0;
        for (int v = 0; v < n; v++) if (indeg[v] == 0) q[t++] = v;
        while (h < t) {
            int v = q[h++];
            for (int p = start[v]; p < start[v + 1]; p++) if (--indeg[target[p]] == 0) q[t++] = target[p];
        }
        if (t == n) return null;
        boolean[] sorted = new boolean[n];
        for (int i = 0; i < t; i++) sorted[q[i]] = true;
        // also peel vertices that lead nowhere among the rest; then every vertex left has a successor left
        int[] outdeg = new int[n];
        int[] rstart = new int[n + 1];
        for (int v = 0; v < n; v++) for (int p = start[v]; p < start[v + 1]; p++) rstart[target[p] + 1]++;
        for (int v = 0; v < n; v++) rstart[v + 1] += rstart[v];
        int[] rsrc = new int[target.length];
        int[] rfill = Arrays.copyOf(rstart, n);
        for (int v = 0; v < n; v++) for (int p = start[v]; p < start[v + 1]; p++) rsrc[rfill[target[p]]++] = v;
        IntVec sinks = new IntVec();
        for (int v = 0; v < n; v++) {
            if (sorted[v]) continue;
            for (int p = start[v]; p < start[v + 1]; p++) if (!sorted[target[p]]) outdeg[v]++;
            if (outdeg[v] == 0) sinks.add(v);
        }
        while (!sinks.isEmpty()) {
            int v = sinks.pop();
            sorted[v] = true;
            for (int p = rstart[v]; p < rstart[v + 1]; p++) {
                int u = rsrc[p];
                if (!sorted[u] && --outdeg[u] == 0) sinks.add(u);
            }
        }
        int s = -1;
        for (int v = 0; v < n && s < 0; v++) if (!sorted[v]) s = v;
        // walk forward until a vertex repeats: that vertex lies on a cycle
        int[] seenAt = new int[n];
        Arrays.fill(seenAt, -1);
        int x = s, steps = 0;
        while (seenAt[x] < 0) {
            seenAt[x] = steps++;
            int nx = -1;
            for (int p = start[x]; p < start[x + 1]; p++) if (!sorted[target[p]]) { nx = target[p]; break; }
            x = nx;
        }
        // x lies on a cycle: shortest cycle through x by BFS
        int[] parentPos = new int[n], parent = new int[n];
        Arrays.fill(parent, -2);
        IntVec bq = new IntVec();
        bq.add(x);
        parent[x] = -1;
        for (int i = 0; i < bq.size(); i++) {
            int v = bq.get(i);
            for (int p = start[v]; p < start[v + 1]; p++) {
                int w = target[p];
                if (sorted[w]) continue;
                if (w == x) {
                    IntVec owners = new IntVec();
                    if (owner[p] >= 0) owners.add(owner[p]);
                    for (int u = v; u != x; u = parent[u]) if (owner[parentPos[u]] >= 0) owners.add(owner[parentPos[u]]);
                    return Arrays.stream(owners.toArray()).distinct().toArray();
                }
                if (parent[w] != -2) continue;
                parent[w] = v;
                parentPos[w] = p;
                bq.add(w);
            }
        }
        throw new IllegalStateException("no cycle through a vertex on a cycle");
    }
}
