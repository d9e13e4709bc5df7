package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.Random;
import org.cobraverify.solver.Budget;
import org.cobraverify.synth.RandomDags;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ReachabilityEngine} must meet, against brute force (a breadth-first search per
 * query) on random DAGs: chains of session order with cross edges, wide and deep shapes, isolated and
 * dead vertices, self queries. A subclass names the engine ({@link #engine}); GPU subclasses skip, with
 * the reason, where there is no device.
 */
public abstract class ReachabilityContract {
    protected abstract ReachabilityEngine engine();

    /** A random DAG: {@code sessions} chains in a random interleaving, plus forward cross edges from anywhere before. */
    public static ReachabilityEngine.Dag randomDag(Random rnd, int n, int sessions, double crossPerVertex) {
        return RandomDags.of(rnd, n, sessions, crossPerVertex, Integer.MAX_VALUE);
    }

    public static boolean[] bruteForce(ReachabilityEngine.Dag d, int[] qs, int[] qd) {
        boolean[] r = new boolean[qs.length];
        for (int i = 0; i < qs.length; i++) {
            boolean[] seen = new boolean[d.vertices()];
            ArrayDeque<Integer> q = new ArrayDeque<>();
            q.add(qs[i]);
            seen[qs[i]] = true;
            while (!q.isEmpty() && !seen[qd[i]]) {
                int u = q.poll();
                for (int p = d.outStart()[u]; p < d.outStart()[u + 1]; p++) if (!seen[d.outTarget()[p]]) { seen[d.outTarget()[p]] = true; q.add(d.outTarget()[p]); }
            }
            r[i] = seen[qd[i]];
        }
        return r;
    }

    @Test
    void answersEveryQueryAsBruteForceDoes() {
        Random rnd = new Random(17);
        ReachabilityEngine e = engine();
        for (int run = 0; run < 300; run++) {
            int n = 1 + rnd.nextInt(run < 100 ? 20 : 300);
            ReachabilityEngine.Dag d = randomDag(rnd, n, 1 + rnd.nextInt(8), rnd.nextDouble() * (run % 3));
            int q = 1 + rnd.nextInt(4 * n);
            int[] qs = new int[q], qd = new int[q];
            for (int i = 0; i < q; i++) { qs[i] = rnd.nextInt(n); qd[i] = rnd.nextInt(5) == 0 ? qs[i] : rnd.nextInt(n); }
            assertArrayEquals(bruteForce(d, qs, qd), e.reaches(d, qs, qd, Budget.unlimited()), e.name() + ", run " + run);
        }
    }

    @Test
    void manySourcesAtOnce() { // more sources than one machine word holds, in one batch
        Random rnd = new Random(5);
        ReachabilityEngine.Dag d = randomDag(rnd, 2000, 24, 1.5);
        int[] qs = new int[5000], qd = new int[5000];
        for (int i = 0; i < qs.length; i++) { qs[i] = rnd.nextInt(2000); qd[i] = rnd.nextInt(2000); }
        assertArrayEquals(bruteForce(d, qs, qd), engine().reaches(d, qs, qd, Budget.unlimited()));
    }

    @Test
    void noQueriesNoAnswers() {
        ReachabilityEngine.Dag d = randomDag(new Random(1), 10, 2, 0.5);
        assertArrayEquals(new boolean[0], engine().reaches(d, new int[0], new int[0], Budget.unlimited()));
    }

    /** Not part of the contract proper: the cross-check catches an engine that lies. */
    @Test
    void aCrossCheckRefusesAnEngineThatDisagrees() {
        ReachabilityEngine e = engine();
        ReachabilityEngine liar = new ReachabilityEngine() { // wrong about one pair only
            public String name() { return "liar"; }
            public Index index(Dag dag, int[] sources, Budget b) {
                Index ix = e.index(dag, sources, b);
                return (s, t) -> s == 2 && t == 5 ? !ix.reaches(s, t) : ix.reaches(s, t);
            }
        };
        ReachabilityEngine.Dag d = randomDag(new Random(2), 50, 3, 1);
        assertThrows(CrossCheckedReachability.Disagreement.class,
                () -> new CrossCheckedReachability(e, liar).reaches(d, new int[] {0, 1, 2}, new int[] {3, 4, 5}, Budget.unlimited()));
    }
}
