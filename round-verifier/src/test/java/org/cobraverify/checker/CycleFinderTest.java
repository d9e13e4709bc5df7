package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link CycleFinder} against brute force: a cyclic graph always yields a cycle, and the edges returned form one. */
class CycleFinderTest {

    /**
     * The case that slipped through: a cycle among the last vertices (as a round's barrier vertex is the last) with
     * more than 64 vertices downstream of it at lower indices. Kahn's algorithm leaves those unsorted too; a search
     * that starts only from them never returns to its start, and "no cycle" from a cyclic graph made the checker
     * solve a cyclic known graph (a reject with an empty certificate, or an internal error).
     */
    @Test
    void findsACycleAmongTheLastVerticesBehindManyDownstreamOnes() {
        int n = 300;
        KnownGraph g = new KnownGraph(n);
        boolean[] live = new boolean[n];
        Arrays.fill(live, true);
        for (int v = 0; v + 1 < 200; v++) g.add(v, v + 1, KnownGraph.SO, -1); // a chain 0 -> ... -> 199
        g.add(298, 299, KnownGraph.WR, 0);
        g.add(299, 298, KnownGraph.RW, 0);                                      // the cycle, at the end
        g.add(299, 0, KnownGraph.PAST, -1);                                     // everything below is downstream of it
        KnownGraph.Csr out = g.outCsr();
        assertNull(CycleFinder.topologicalOrder(g, out, live, null));
        int[] cycle = CycleFinder.findCycle(g, out, live);
        assertNotNull(cycle, "a cyclic graph has a cycle");
        assertIsCycle(g, cycle);
        assertEquals(2, cycle.length);
    }

    /** Random graphs: cyclic (by Kahn) exactly when a cycle comes back, and every cycle returned is one. */
    @Test
    void randomGraphsAgreeWithKahn() {
        Random rnd = new Random(7);
        for (int run = 0; run < 2000; run++) {
            int n = 2 + rnd.nextInt(150);
            KnownGraph g = new KnownGraph(n);
            boolean[] live = new boolean[n];
            for (int v = 0; v < n; v++) live[v] = rnd.nextInt(10) > 0;
            int m = rnd.nextInt(2 * n);
            for (int e = 0; e < m; e++) {
                int u = rnd.nextInt(n), v = rnd.nextInt(n);
                if (!live[u] || !live[v]) continue;
                // mostly forward edges, a few backward ones late in the order (cycles among high indices)
                if (u > v && rnd.nextInt(8) > 0) { int t = u; u = v; v = t; }
                g.add(u, v, KnownGraph.WR, 0);
            }
            KnownGraph.Csr out = g.outCsr();
            boolean cyclic = CycleFinder.topologicalOrder(g, out, live, null) == null;
            int[] cycle = CycleFinder.findCycle(g, out, live);
            if (!cyclic) { assertNull(cycle, "run " + run); continue; }
            assertNotNull(cycle, "run " + run + ": a cyclic graph yields a cycle");
            assertIsCycle(g, cycle);
            for (int e : cycle) assertTrue(live[g.src.get(e)] && live[g.dst.get(e)], "run " + run + ": live vertices only");
        }
    }

    private static void assertIsCycle(KnownGraph g, int[] cycle) {
        assertTrue(cycle.length > 0);
        for (int i = 0; i < cycle.length; i++) {
            int e = cycle[i], next = cycle[(i + 1) % cycle.length];
            assertEquals(g.dst.get(e), g.src.get(next), "edge " + i + " ends where the next begins");
        }
    }
}
