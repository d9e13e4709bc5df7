package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.IntVec;

/**
 * Strongly connected components of a directed graph given as edge lists, by an iterative Tarjan
 * (no recursion). A cycle of any graph whose edges are a subset of these lies inside one component.
 */
final class Components {
    final int[] comp;
    final int count;

    Components(int n, IntVec src, IntVec dst) {
        int m = src.size();
        int[] start = new int[n + 1];
        for (int e = 0; e < m; e++) start[src.get(e) + 1]++;
        for (int v = 0; v < n; v++) start[v + 1] += start[v];
        int[] adj = new int[m];
        int[] fill = Arrays.copyOf(start, n);
        for (int e = 0; e < m; e++) adj[fill[src.get(e)]++] = dst.get(e);

        comp = new int[n];
        Arrays.fill(comp, -1);
        int[] index = new int[n], low = new int[n], iter = new int[n];
        Arrays.fill(index, -1);
        boolean[] onStack = new boolean[n];
        int[] stack = new int[n], call = new int[n];
        int sp = 0, cp, next = 0, c = 0;
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0) continue;
            cp = 0;
            call[cp++] = root;
            index[root] = low[root] = next++;
            iter[root] = start[root];
            stack[sp++] = root;
            onStack[root] = true;
            while (cp > 0) {
                int v = call[cp - 1];
                if (iter[v] < start[v + 1]) {
                    int w = adj[iter[v]++];
                    if (index[w] < 0) {
                        index[w] = low[w] = next++;
                        iter[w] = start[w];
                        stack[sp++] = w;
                        onStack[w] = true;
                        call[cp++] = w;
                    } else if (onStack[w] && index[w] < low[v]) low[v] = index[w];
                } else {
                    cp--;
                    if (cp > 0) {
                        int u = call[cp - 1];
                        if (low[v] < low[u]) low[u] = low[v];
                    }
                    if (low[v] == index[v]) {
                        int w;
                        do {
                            w = stack[--sp];
                            onStack[w] = false;
                            comp[w] = c;
                        } while (w != v);
                        c++;
                    }
                }
            }
        }
        count = c;
    }
}
