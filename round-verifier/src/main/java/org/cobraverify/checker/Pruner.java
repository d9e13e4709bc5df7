package org.cobraverify.checker;

import org.cobraverify.history.IntVec;
import org.cobraverify.solver.Budget;

/**
 * Step 7: pruning to a fixed point. With reachability in the known graph, a constraint side with an
 * edge (a, b) such that b ⇝ a would close a cycle, so the other side holds: its edges join the known
 * graph (with a derivation naming the blocking edge) and the constraint is dropped. Repeats until no
 * constraint changes, or until a side is forced that closes a cycle (then the caller's cycle check
 * finds it).
 *
 * <p>docs/DESIGN.md §4, step 7.
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
            if (topo == null) {
                int[] cycle = CycleFinder.findCycle(g, out, live);
                // null here would read as "acyclic" to the caller, and the solver would start from a cyclic graph
                if (cycle == null) throw new IllegalStateException("internal error: the known graph is cyclic but no cycle was found");
                return cycle;
            }
            if (cons.activeCount == 0) return null;
            rounds++;
            // one index per round, from the targets of the open constraints' sides
            int[] rt = cons.chains.rt;
            boolean[] isSource = new boolean[g.n];
            IntVec sources = new IntVec();
            for (int c = 0; c < cons.size(); c++) {
                if (!cons.active[c]) continue;
                for (int side = 0; side < 2; side++) {
                    int t = cons.target(c, side == 1);
                    if (!isSource[t]) { isSource[t] = true; sources.add(t); }
                }
            }
            ReachabilityEngine.Index reach;
            try {
                reach = engine.index(new ReachabilityEngine.Dag(g.n, out.start, out.target, topo, sessionPred), sources.toArray(), budget);
            } catch (ReachabilityEngine.TooLarge e) {
                // pruning only settles constraints early; without it the solver decides them all, exactly
                skipped = e.getMessage() + "; pruning skipped, the solver decides every constraint";
                return null;
            }
            boolean changed = false;
            for (int c = 0; c < cons.size(); c++) {
                if (!cons.active[c]) continue;
                int blockA = blocked(cons, reach, c, false);
                int blockB = blocked(cons, reach, c, true);
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
    private static int blocked(Constraints cons, ReachabilityEngine.Index reach, int c, boolean sideB) {
        int t = cons.target(c, sideB);
        int[] rt = cons.chains.rt;
        for (int i = cons.sourcesStart(c, sideB); i < cons.sourcesEnd(c, sideB); i++) if (reach.reaches(t, rt[i])) return i;
        return -1;
    }
}
