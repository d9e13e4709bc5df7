package org.cobraverify.gc.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.synth.SimulatedStore.Isolation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contraction's contract (docs/DESIGN.md §7.4): after garbage collection, the graph the next round starts from
 * among the transactions that stay (the round's edges between two of them, and the carried facts and paths) has
 * exactly the reachability the round's graph had between them: no path lost (a missed cycle later), none invented (a
 * false reject). Random serializable histories with aborted and unknown transactions, a random prefix old; each case
 * prints its seed, and {@code -Dcobra.contractionSeed=S -Dcobra.contractionRuns=1} reruns one.
 */
class ContractionReachabilityTest {
    private static final int RUNS = Integer.getInteger("cobra.contractionRuns", 400);
    private static final long SEED = Long.getLong("cobra.contractionSeed", 0);

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void stayingTransactionsKeepExactlyTheirReachability(int shape) {
        int checked = 0, collected = 0;
        long carried = 0;
        for (int run = 0; run < RUNS; run++) {
            long seed = SEED + 1_000L * shape + run;
            Random rnd = new Random(seed);
            SimulatedStore.Workload w = shape == 0
                    ? new SimulatedStore.Workload(2 + rnd.nextInt(6), 8 + rnd.nextInt(30), 3 + rnd.nextInt(20), 1 + rnd.nextInt(4), 0.5, 0.05, 0.05)
                    : new SimulatedStore.Workload(8 + rnd.nextInt(16), 4 + rnd.nextInt(10), 20 + rnd.nextInt(60), 2 + rnd.nextInt(6), 0.6, 0.1, 0.05);
            History h = SimulatedStore.run(Isolation.SERIAL, w, rnd);
            CheckedRound c = CheckedRound.check(h, CheckOptions.defaults(), null);
            Verdict v = c.verdict();
            assertEquals(Verdict.Outcome.ACCEPT, v.outcome(), "seed " + seed + ": a serial store's history");
            if (!c.accepted()) continue;
            int n = h.size();
            boolean[] old = new boolean[n];
            int cut = n / 4 + rnd.nextInt(Math.max(1, n / 2));
            for (int t = 0; t < cut; t++) old[t] = true;
            GarbageCollection gc = GarbageCollection.analyze(c, old, new int[0], null, GarbageCollection.Rules.SOUND, n);
            if (gc.skipped != null) continue;
            checked++;
            boolean[] included = c.included();
            boolean[] kept = new boolean[n];
            int gone = 0;
            for (int t = 0; t < n; t++) {
                kept[t] = included[t] && !gc.collect[t];
                if (gc.collect[t]) gone++;
            }
            collected += gone;
            carried += gc.carrySrc.length;
            // the round's facts (with the sides settled, when some were), then the next round's start: the round's edges
            // between staying transactions and what was carried
            int facts = c.factEdges();
            List<List<Integer>> before = adjacency(c.vertices()), after = adjacency(c.vertices());
            for (int e = 0; e < facts; e++) {
                int u = c.edgeSource(e), x = c.edgeTarget(e);
                before.get(u).add(x);
                if (u < n && x < n && kept[u] && kept[x]) after.get(u).add(x);
            }
            for (int i = 0; i < gc.carrySrc.length; i++) {
                assertTrue(kept[gc.carrySrc[i]] && kept[gc.carryDst[i]], "seed " + seed + ": a carried edge touches a collected transaction");
                after.get(gc.carrySrc[i]).add(gc.carryDst[i]);
            }
            for (int u = 0; u < n; u++) {
                if (!kept[u]) continue;
                boolean[] was = reached(before, u), is = reached(after, u);
                for (int x = 0; x < n; x++)
                    if (kept[x] && x != u) assertEquals(was[x], is[x], "seed " + seed + ": " + h.label(u) + " ⇝ " + h.label(x) + " (" + gone + " of " + n + " collected)");
            }
        }
        System.out.println("contraction, shape " + shape + ": " + checked + " collections checked, " + collected + " transactions collected, "
                + carried + " edges carried (seeds from " + (SEED + 1_000L * shape) + ")");
        assertTrue(checked > RUNS / 2, "collections checked: " + checked);
        assertTrue(collected > 0);
    }

    private static List<List<Integer>> adjacency(int n) {
        List<List<Integer>> a = new ArrayList<>(n);
        for (int i = 0; i < n; i++) a.add(new ArrayList<>());
        return a;
    }

    private static boolean[] reached(List<List<Integer>> adj, int from) {
        boolean[] seen = new boolean[adj.size()];
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        todo.add(from);
        seen[from] = true;
        while (!todo.isEmpty()) for (int x : adj.get(todo.poll())) if (!seen[x]) { seen[x] = true; todo.add(x); }
        return seen;
    }
}
