package org.cobraverify.solver;

import java.util.Arrays;

/** Test-only reference: tries all 2^V assignments and checks acyclicity with Kahn's algorithm. */
public final class BruteForceSolver implements Solver {
    @Override
    public String name() { return "brute-force"; }

    @Override
    public Result solve(Instance in, Budget budget) {
        if (in.variables > 20) throw new IllegalArgumentException("too many variables for brute force");
        for (long mask = 0; mask < (1L << in.variables); mask++) {
            boolean[] a = new boolean[in.variables];
            for (int v = 0; v < in.variables; v++) a[v] = (mask & (1L << v)) != 0;
            if (acyclic(in, a)) return Result.sat(a, 0, 0);
        }
        return Result.unsat(new int[0], 0, 0);
    }

    /** True iff the fixed edges plus the chosen sides form an acyclic graph. */
    public static boolean acyclic(Instance in, boolean[] sideA) {
        int n = in.vertices;
        int[] indeg = new int[n];
        java.util.List<int[]> edges = new java.util.ArrayList<>();
        for (int i = 0; i < in.fixedSrc.length; i++) edges.add(new int[] {in.fixedSrc[i], in.fixedDst[i]});
        for (int v = 0; v < in.variables; v++) {
            int lit = sideA[v] ? 2 * v : 2 * v + 1;
            for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) edges.add(new int[] {in.litSrc[i], in.litDst[i]});
        }
        for (int[] e : edges) {
            if (e[0] == e[1]) return false;
            indeg[e[1]]++;
        }
        int[] q = new int[n];
        int h = 0, t = 0;
        for (int v = 0; v < n; v++) if (indeg[v] == 0) q[t++] = v;
        while (h < t) {
            int v = q[h++];
            for (int[] e : edges) if (e[0] == v && --indeg[e[1]] == 0) q[t++] = e[1];
        }
        return t == n && Arrays.stream(indeg).allMatch(x -> x == 0);
    }
}
