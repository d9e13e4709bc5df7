package org.cobraverify.synth;

import java.util.Arrays;
import java.util.Random;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.history.IntVec;

/**
 * Random DAGs shaped like a history's known graph, for reachability engines (their contract test, and the GPU's
 * device check): {@code sessions} chains in a random interleaving (session order), plus on average
 * {@code crossPerVertex} forward cross edges per vertex (reads from, and derived orders), each from one of the
 * {@code window} vertices before it in the interleaving. Vertex ids are shuffled, so they do not follow the order.
 */
public final class RandomDags {
    private RandomDags() {}

    public static ReachabilityEngine.Dag of(Random rnd, int n, int sessions, double crossPerVertex, int window) {
        int[] perm = new int[n]; // topological position -> vertex
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = rnd.nextInt(i + 1); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
        IntVec src = new IntVec(), dst = new IntVec();
        int[] last = new int[Math.max(1, sessions)], pred = new int[n];
        Arrays.fill(last, -1);
        Arrays.fill(pred, -1);
        for (int i = 0; i < n; i++) {
            int v = perm[i], s = rnd.nextInt(last.length);
            if (last[s] >= 0) { src.add(last[s]); dst.add(v); pred[v] = last[s]; }
            last[s] = v;
            int cross = (int) crossPerVertex + (rnd.nextDouble() < crossPerVertex - (int) crossPerVertex ? 1 : 0);
            for (int k = 0; k < cross && i > 0; k++) { src.add(perm[i - 1 - rnd.nextInt(Math.min(i, window))]); dst.add(v); }
        }
        return ReachabilityEngine.Dag.fromEdges(n, src.toArray(), dst.toArray(), perm, pred);
    }
}
