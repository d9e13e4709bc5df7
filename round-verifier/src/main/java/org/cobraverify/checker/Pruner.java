package org.cobraverify.checker;

import org.cobraverify.solver.Budget;

/**
 * Step 7: pruning to a fixed point. With reachability in the known graph, a constraint side with an
 * edge (a, b) such that b ⇝ a would close a cycle, so the other side holds: its edges join the known
 * graph (with a derivation naming the blocking edge) and the constraint is dropped. Repeats until no
 * constraint changes, or until a side is forced that closes a cycle (then the caller's cycle check
 * finds it).
 */
final class Pruner {
    int rounds;
    int forced;
    /** Why pruning stopped early, or null. */
    String skipped;

    /**
     * Runs pruning rounds. Returns null when a fixed point is reached with an acyclic known graph, or
     * the edge list of a cycle in the known graph.
     */
    int[] prune(KnownGraph g, Constraints cons, boolean[] live, int[] sessionPred, long[] priority, ReachabilityEngine engine, Budget budget) {
        while (true) {
            budget.check();
            KnownGraph.Csr out = g.outCsr();
            int[] topo = CycleFinder.topologicalOrder(g, out, live, null);
            if (topo == null) return CycleFinder.findCycle(g, out, live);
            if (cons.activeCount == 0) return null;
            rounds++;
            // one batch of queries per round: for each side of each open constraint, does its target reach each source?
            int[] rt = cons.chains.rt;
            int[] first = new int[cons.size() * 2 + 1];
            org.cobraverify.history.IntVec qs = new org.cobraverify.history.IntVec(), qd = new org.cobraverify.history.IntVec();
            for (int c = 0; c < cons.size(); c++) {
                for (int side = 0; side < 2; side++) {
                    first[2 * c + side] = qs.size();
                    if (!cons.active[c]) continue;
                    boolean b = side == 1;
                    int t = cons.target(c, b);
                    for (int i = cons.sourcesStart(c, b); i < cons.sourcesEnd(c, b); i++) { qs.add(t); qd.add(rt[i]); }
                }
            }
            first[2 * cons.size()] = qs.size();
            boolean[] reach;
            try {
                reach = engine.reaches(new ReachabilityEngine.Dag(g.n, out.start, out.target, topo, sessionPred), qs.toArray(), qd.toArray(), budget);
            } catch (ReachabilityEngine.TooLarge e) {
                // pruning only settles constraints early; without it the solver decides them all, exactly
                skipped = e.getMessage() + "; pruning skipped, the solver decides every constraint";
                return null;
            }
            boolean changed = false;
            for (int c = 0; c < cons.size(); c++) {
                if (!cons.active[c]) continue;
                int blockA = blocked(cons, reach, first, c, false);
                int blockB = blocked(cons, reach, first, c, true);
                if (blockA < 0 && blockB < 0) continue;
                boolean forceB = blockA >= 0;
                int blocker = forceB ? blockA : blockB;
                int d = g.derivation(c, rt[blocker], cons.target(c, !forceB));
                cons.addSide(g, c, forceB, d);
                cons.deactivate(c);
                forced++;
                changed = true;
            }
            if (!changed) return null;
        }
    }

    /** Index (into {@code chains.rt}) of an edge of the side whose target reaches its source, or -1. */
    private static int blocked(Constraints cons, boolean[] reach, int[] first, int c, boolean sideB) {
        int q = first[2 * c + (sideB ? 1 : 0)];
        for (int i = cons.sourcesStart(c, sideB); i < cons.sourcesEnd(c, sideB); i++, q++) if (reach[q]) return i;
        return -1;
    }
}
