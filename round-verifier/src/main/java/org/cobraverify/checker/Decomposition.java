package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.IntVec;
import org.cobraverify.solver.Instance;

/**
 * Step 8a: splits what pruning left into independent solver instances. Strongly connected components of
 * the known graph with both sides of every open constraint added: a constraint with a side whose edges all
 * cross components can take that side at no risk (no cycle can use it), so it is decided here (the side is
 * added to the graph, the constraint deactivated). The others are grouped by the union of the components
 * they touch; each group is one {@link Instance} over its own vertices (renumbered) and internal fixed
 * edges.
 *
 * <p>After construction: {@code groups.get(i)} lists the constraints of instance i (variable x of the
 * instance is constraint {@code groups.get(i).get(x)}), {@code globalOf[i]} maps its vertices back, and
 * {@code order} lists the instances smallest first.
 */
final class Decomposition {
    final List<IntVec> groups = new ArrayList<>();
    Instance[] instances = new Instance[0];
    int[][] globalOf = new int[0][];
    Integer[] order = new Integer[0];
    /** Constraints left to the solver, and the most in one instance. */
    int constraints, largest;

    Decomposition(KnownGraph g, Constraints cons, long[] priority) {
        int n = g.n;
        IntVec es = new IntVec(g.edgeCount() + cons.activeCount * 4), ed = new IntVec(g.edgeCount() + cons.activeCount * 4);
        for (int e = 0; e < g.edgeCount(); e++) { es.add(g.src.get(e)); ed.add(g.dst.get(e)); }
        int[] rt = cons.chains.rt;
        for (int c = 0; c < cons.size(); c++) {
            if (!cons.active[c]) continue;
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                int t = cons.target(c, b);
                for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++) { es.add(rt[i]); ed.add(t); }
            }
        }
        Components comps = new Components(n, es, ed);
        int[] comp = comps.comp;
        int[] uf = new int[comps.count];
        for (int i = 0; i < uf.length; i++) uf[i] = i;
        IntVec pending = new IntVec();
        for (int c = 0; c < cons.size(); c++) {
            if (!cons.active[c]) continue;
            int ca = internalComponent(cons, c, false, comp), cb = internalComponent(cons, c, true, comp);
            if (ca < 0) { cons.choose(g, c, false); continue; }
            if (cb < 0) { cons.choose(g, c, true); continue; }
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                int t = cons.target(c, b);
                for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++)
                    if (comp[rt[i]] == comp[t]) union(uf, comp[t], ca);
            }
            pending.add(c);
        }
        constraints = pending.size();
        // group constraints by the union of components they touch
        int[] groupOf = new int[comps.count];
        Arrays.fill(groupOf, -1);
        for (int i = 0; i < pending.size(); i++) {
            int c = pending.get(i);
            int root = find(uf, internalComponent(cons, c, false, comp));
            if (groupOf[root] < 0) { groupOf[root] = groups.size(); groups.add(new IntVec()); }
            groups.get(groupOf[root]).add(c);
        }
        // vertices and internal fixed edges of each group, in one pass each
        int[] groupOfVertex = new int[n];
        int[] local = new int[n];
        int[] groupSize = new int[groups.size()];
        for (int v = 0; v < n; v++) {
            int gi = comp[v] < 0 ? -1 : groupOf[find(uf, comp[v])];
            groupOfVertex[v] = gi;
            if (gi >= 0) local[v] = groupSize[gi]++;
        }
        globalOf = new int[groups.size()][];
        for (int gi = 0; gi < groups.size(); gi++) globalOf[gi] = new int[groupSize[gi]];
        for (int v = 0; v < n; v++) if (groupOfVertex[v] >= 0) globalOf[groupOfVertex[v]][local[v]] = v;
        IntVec[] fs = new IntVec[groups.size()], fd = new IntVec[groups.size()];
        for (int gi = 0; gi < groups.size(); gi++) { fs[gi] = new IntVec(); fd[gi] = new IntVec(); }
        for (int e = 0; e < g.edgeCount(); e++) {
            int u = g.src.get(e), v = g.dst.get(e);
            int gi = groupOfVertex[u];
            if (gi >= 0 && comp[u] == comp[v]) { fs[gi].add(local[u]); fd[gi].add(local[v]); }
        }
        order = new Integer[groups.size()];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (x, y) -> Integer.compare(groups.get(x).size(), groups.get(y).size()));
        instances = new Instance[groups.size()];
        for (int gi : order) {
            largest = Math.max(largest, groups.get(gi).size());
            instances[gi] = instance(cons, priority, groups.get(gi), globalOf[gi], local, fs[gi].toArray(), fd[gi].toArray(), comp);
        }
    }

    private static int internalComponent(Constraints cons, int c, boolean sideB, int[] comp) {
        int t = cons.target(c, sideB);
        int[] rt = cons.chains.rt;
        for (int i = cons.sourcesStart(c, sideB); i < cons.sourcesEnd(c, sideB); i++) if (comp[rt[i]] == comp[t]) return comp[t];
        return -1;
    }

    private static int find(int[] uf, int x) {
        while (uf[x] != x) { uf[x] = uf[uf[x]]; x = uf[x]; }
        return x;
    }

    private static void union(int[] uf, int a, int b) {
        a = find(uf, a);
        b = find(uf, b);
        if (a != b) uf[a] = b;
    }

    private static Instance instance(Constraints cons, long[] priority, IntVec grp, int[] global, int[] local, int[] fixedSrc, int[] fixedDst, int[] comp) {
        int vars = grp.size();
        int[] litStart = new int[2 * vars + 1];
        IntVec ls = new IntVec(), ld = new IntVec();
        int[] rt = cons.chains.rt;
        for (int x = 0; x < vars; x++) {
            int c = grp.get(x);
            for (int side = 0; side < 2; side++) {
                boolean b = side == 1;
                int t = cons.target(c, b);
                for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++) {
                    int s = rt[i];
                    if (comp[s] == comp[t]) { ls.add(local[s]); ld.add(local[t]); }
                }
                litStart[2 * x + side + 1] = ls.size();
            }
        }
        long[] prio = new long[global.length];
        for (int i = 0; i < prio.length; i++) prio[i] = priority[global[i]];
        return new Instance(global.length, fixedSrc, fixedDst, vars, litStart, ls.toArray(), ld.toArray(), prio);
    }
}
