package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.IntVec;
import org.cobraverify.solver.VertexHeap;

/**
 * Step 6: topological order of the known graph, or a shortest cycle when there is none. Iterative
 * (Kahn's algorithm and breadth-first search): no recursion, whatever the graph's depth.
 */
final class CycleFinder {
    private CycleFinder() {}

    /**
     * Returns the vertices in {@code live} in a topological order, or null if a cycle remains.
     * {@code priority}, if not null, breaks ties: among ready vertices the smallest priority comes first.
     */
    static int[] topologicalOrder(KnownGraph g, KnownGraph.Csr out, boolean[] live, long[] priority) {
        int n = g.n;
        int[] indeg = new int[n];
        int liveCount = 0;
        for (int v = 0; v < n; v++) {
            if (!live[v]) continue;
            liveCount++;
            for (int p = out.start[v]; p < out.start[v + 1]; p++) indeg[out.target[p]]++;
        }
        int[] order = new int[liveCount];
        int head = 0, tail = 0;
        if (priority == null) {
            for (int v = 0; v < n; v++) if (live[v] && indeg[v] == 0) order[tail++] = v;
            while (head < tail) {
                int v = order[head++];
                for (int p = out.start[v]; p < out.start[v + 1]; p++) if (--indeg[out.target[p]] == 0) order[tail++] = out.target[p];
            }
        } else {
            VertexHeap heap = new VertexHeap(n, priority);
            for (int v = 0; v < n; v++) if (live[v] && indeg[v] == 0) heap.push(v);
            while (!heap.isEmpty()) {
                int v = heap.pop();
                order[tail++] = v;
                for (int p = out.start[v]; p < out.start[v + 1]; p++) if (--indeg[out.target[p]] == 0) heap.push(out.target[p]);
            }
        }
        return tail == liveCount ? order : null;
    }

    /**
     * A short cycle of the live vertices, as a list of edge indexes (edge i's target is edge i+1's source; the last
     * edge returns to the first's source); null when they are acyclic. Contract: never null when
     * {@link #topologicalOrder} is. The search starts only from vertices on a cycle (of a strongly connected
     * component with more than one vertex, or a self-loop) and stays in the start's component, so each search
     * finds one; of up to 64 starts the shortest is kept. (It once started from any vertex Kahn's algorithm left
     * unsorted: those downstream of a cycle too, and with more than 64 of them at lower indices than the cycle,
     * as behind a round's barrier vertex, it reported no cycle in a cyclic graph.)
     */
    static int[] findCycle(KnownGraph g, KnownGraph.Csr out, boolean[] live) {
        int n = g.n;
        // peel off everything Kahn can sort; what remains lies on a cycle or downstream of one
        int[] indeg = new int[n];
        for (int v = 0; v < n; v++) if (live[v]) for (int p = out.start[v]; p < out.start[v + 1]; p++) indeg[out.target[p]]++;
        boolean[] rem = Arrays.copyOf(live, n);
        IntVec q = new IntVec();
        for (int v = 0; v < n; v++) if (live[v] && indeg[v] == 0) q.add(v);
        while (!q.isEmpty()) {
            int v = q.pop();
            rem[v] = false;
            for (int p = out.start[v]; p < out.start[v + 1]; p++) if (--indeg[out.target[p]] == 0) q.add(out.target[p]);
        }
        // keep the vertices on a cycle: those of a strongly connected component of the rest with two or more vertices,
        // or with a self-loop
        IntVec es = new IntVec(), ed = new IntVec();
        boolean[] selfLoop = new boolean[n];
        for (int v = 0; v < n; v++) {
            if (!rem[v]) continue;
            for (int p = out.start[v]; p < out.start[v + 1]; p++) {
                int w = out.target[p];
                if (!rem[w]) continue;
                if (w == v) selfLoop[v] = true;
                es.add(v);
                ed.add(w);
            }
        }
        int[] comp = new Components(n, es, ed).comp;
        int[] compSize = new int[n];
        for (int v = 0; v < n; v++) if (rem[v]) compSize[comp[v]]++;
        for (int v = 0; v < n; v++) if (rem[v] && compSize[comp[v]] < 2 && !selfLoop[v]) rem[v] = false;
        int[] best = null;
        int tries = 0;
        int[] parentEdge = new int[n];
        int[] seen = new int[n];
        int stamp = 0;
        for (int s = 0; s < n && tries < 64; s++) {
            if (!rem[s]) continue;
            tries++;
            stamp++;
            // BFS from s back to s, within rem
            IntVec frontier = new IntVec();
            frontier.add(s);
            seen[s] = stamp;
            int found = -1;
            for (int i = 0; i < frontier.size() && found < 0; i++) {
                int v = frontier.get(i);
                for (int p = out.start[v]; p < out.start[v + 1]; p++) {
                    int w = out.target[p];
                    if (!rem[w] || comp[w] != comp[s]) continue;
                    if (w == s) { found = out.edge[p]; parentEdge[s] = found; break; }
                    if (seen[w] == stamp) continue;
                    seen[w] = stamp;
                    parentEdge[w] = out.edge[p];
                    frontier.add(w);
                }
            }
            if (found < 0) continue;
            IntVec cyc = new IntVec();
            int e = found;
            cyc.add(e);
            int v = g.src.get(e);
            while (v != s) {
                e = parentEdge[v];
                cyc.add(e);
                v = g.src.get(e);
            }
            int[] c = cyc.toArray();
            for (int i = 0, j = c.length - 1; i < j; i++, j--) { int t = c[i]; c[i] = c[j]; c[j] = t; }
            if (best == null || c.length < best.length) best = c;
            if (best.length <= 2) break;
        }
        return best;
    }
}
