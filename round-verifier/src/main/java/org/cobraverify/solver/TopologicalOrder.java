package org.cobraverify.solver;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * A directed graph under edge insertions and last-in-first-out removals, with a topological order kept
 * incrementally (Pearce and Kelly, 2006). Each edge has an owner (a literal, or -1 for a fixed edge), so a
 * path found in the graph can be explained by the literals that put its edges there.
 *
 * <p>Invariant (after {@link #initialize}, between calls): the graph is acyclic and {@code ord} is a
 * topological order of it (u → v implies ord[u] &lt; ord[v]). {@link #insert} keeps it: it either reorders
 * the affected range (searching forward from v and backward from u within [ord[v], ord[u]]) and adds the
 * edge, or finds the path v ⇝ u that the edge would close into a cycle and adds nothing. Removing edges
 * keeps any topological order valid, so {@link #pop} does no reordering.
 */
final class TopologicalOrder {
    final int n;
    private final int[][] out, outOwner, inn;
    private final int[] outLen, innLen;
    private final IntVec stackSrc = new IntVec(1024), stackDst = new IntVec(1024);
    private int[] ord;
    // scratch for searches; parentVertex/parentOwner describe the last path found
    private final int[] mark, parentVertex, parentOwner;
    private int stamp;
    private final IntVec queue = new IntVec(), deltaF = new IntVec(), deltaB = new IntVec();

    TopologicalOrder(int n) {
        this.n = n;
        out = new int[n][];
        outOwner = new int[n][];
        inn = new int[n][];
        outLen = new int[n];
        innLen = new int[n];
        for (int v = 0; v < n; v++) { out[v] = new int[4]; outOwner[v] = new int[4]; inn[v] = new int[4]; }
        mark = new int[n];
        parentVertex = new int[n];
        parentOwner = new int[n];
    }

    /** Adds u → v without looking at the order: only before {@link #initialize} (fixed edges). */
    void push(int u, int v, int owner) {
        if (outLen[u] == out[u].length) {
            out[u] = Arrays.copyOf(out[u], out[u].length * 2);
            outOwner[u] = Arrays.copyOf(outOwner[u], outOwner[u].length * 2);
        }
        out[u][outLen[u]] = v;
        outOwner[u][outLen[u]++] = owner;
        if (innLen[v] == inn[v].length) inn[v] = Arrays.copyOf(inn[v], inn[v].length * 2);
        inn[v][innLen[v]++] = u;
        stackSrc.add(u);
        stackDst.add(v);
    }

    /** Removes the edge added last. */
    void pop() {
        int u = stackSrc.pop(), v = stackDst.pop();
        outLen[u]--;
        innLen[v]--;
    }

    /**
     * A first topological order, breaking ties by {@code priority} (smaller first; null: none). Returns false
     * when the graph has a cycle (the invariant cannot hold).
     */
    boolean initialize(long[] priority) {
        int[] indeg = new int[n];
        for (int u = 0; u < n; u++) for (int i = 0; i < outLen[u]; i++) indeg[out[u][i]]++;
        VertexHeap h = new VertexHeap(n, priority != null ? priority : new long[n]);
        for (int v = 0; v < n; v++) if (indeg[v] == 0) h.push(v);
        ord = new int[n];
        int k = 0;
        while (!h.isEmpty()) {
            int u = h.pop();
            ord[u] = k++;
            for (int i = 0; i < outLen[u]; i++) if (--indeg[out[u][i]] == 0) h.push(out[u][i]);
        }
        return k == n;
    }

    /** Position of v in the current topological order. */
    int ord(int v) { return ord[v]; }

    /**
     * Inserts u → v owned by {@code owner}, reordering as needed. Returns true; or false, adding nothing, when
     * a path v ⇝ u exists (then {@link #pathOwners} walks it from u back to v).
     */
    boolean insert(int u, int v, int owner) {
        if (ord[u] > ord[v] && !reorder(u, v)) return false;
        push(u, v, owner);
        return true;
    }

    private void nextStamp() {
        stamp++;
        if (stamp == Integer.MAX_VALUE) { Arrays.fill(mark, 0); stamp = 1; }
    }

    /** Pearce–Kelly for a new edge u → v with ord[u] > ord[v]: reorders and returns true, or finds v ⇝ u. */
    private boolean reorder(int u, int v) {
        int ub = ord[u], lb = ord[v];
        nextStamp();
        // forward breadth-first search from v over vertices with ord <= ub
        queue.clear();
        deltaF.clear();
        queue.add(v);
        mark[v] = stamp;
        parentVertex[v] = -1;
        for (int qi = 0; qi < queue.size(); qi++) {
            int x = queue.get(qi);
            deltaF.add(x);
            int[] ox = out[x], oo = outOwner[x];
            for (int i = 0, e = outLen[x]; i < e; i++) {
                int y = ox[i];
                if (y == u) {
                    parentVertex[u] = x;
                    parentOwner[u] = oo[i];
                    return false;
                }
                if (mark[y] == stamp || ord[y] > ub) continue;
                mark[y] = stamp;
                parentVertex[y] = x;
                parentOwner[y] = oo[i];
                queue.add(y);
            }
        }
        // backward search from u over vertices with ord >= lb
        int fStamp = stamp;
        nextStamp();
        queue.clear();
        deltaB.clear();
        queue.add(u);
        mark[u] = stamp;
        for (int qi = 0; qi < queue.size(); qi++) {
            int x = queue.get(qi);
            deltaB.add(x);
            int[] ix = inn[x];
            for (int i = 0, e = innLen[x]; i < e; i++) {
                int y = ix[i];
                if (mark[y] == stamp || mark[y] == fStamp || ord[y] < lb) continue;
                mark[y] = stamp;
                queue.add(y);
            }
        }
        // new order: the backward set, then the forward set, in the union of their old positions
        int nb = deltaB.size(), nf = deltaF.size();
        int[] b = deltaB.raw(), f = deltaF.raw();
        sortByOrd(b, nb);
        sortByOrd(f, nf);
        int[] slots = new int[nb + nf];
        for (int i = 0; i < nb; i++) slots[i] = ord[b[i]];
        for (int i = 0; i < nf; i++) slots[nb + i] = ord[f[i]];
        Arrays.sort(slots);
        for (int i = 0; i < nb; i++) ord[b[i]] = slots[i];
        for (int i = 0; i < nf; i++) ord[f[i]] = slots[nb + i];
        return true;
    }

    private void sortByOrd(int[] a, int len) {
        // small sets dominate: insertion sort, else pack (ord, vertex) into longs
        if (len < 32) {
            for (int i = 1; i < len; i++) {
                int x = a[i], ox = ord[x], j = i - 1;
                while (j >= 0 && ord[a[j]] > ox) { a[j + 1] = a[j]; j--; }
                a[j + 1] = x;
            }
            return;
        }
        long[] tmp = new long[len];
        for (int i = 0; i < len; i++) tmp[i] = ((long) ord[a[i]] << 32) | a[i];
        Arrays.sort(tmp);
        for (int i = 0; i < len; i++) a[i] = (int) tmp[i];
    }

    /**
     * Whether a path from ⇝ to exists, searching at most {@code limit} vertices (false may mean "not found
     * in time": a sound, incomplete test). Only vertices ordered before {@code to} can be on such a path. On
     * true, {@link #pathOwners} walks it from {@code to} back to {@code from}.
     */
    boolean pathWithin(int from, int to, int limit) {
        if (ord[from] > ord[to]) return false;
        nextStamp();
        queue.clear();
        queue.add(from);
        mark[from] = stamp;
        int ub = ord[to];
        for (int qi = 0; qi < queue.size() && qi < limit; qi++) {
            int x = queue.get(qi);
            int[] ox = out[x], oo = outOwner[x];
            for (int k = 0, e = outLen[x]; k < e; k++) {
                int y = ox[k];
                if (mark[y] == stamp || ord[y] > ub) continue;
                mark[y] = stamp;
                parentVertex[y] = x;
                parentOwner[y] = oo[k];
                if (y == to) return true;
                queue.add(y);
            }
        }
        return false;
    }

    /**
     * The owners of the edges of the path last found (by a failed {@link #insert}(u, v): v ⇝ u, walked from
     * u; by {@link #pathWithin}(from, to): walked from to), stopping at {@code start}; -1 for fixed edges.
     */
    IntVec pathOwners(int end, int start) {
        IntVec owners = new IntVec();
        for (int x = end; x != start; x = parentVertex[x]) owners.add(parentOwner[x]);
        return owners;
    }
}
