package org.cobraverify.gpu;

import java.util.Random;
import org.cobraverify.checker.ChainCoverReachability;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.history.IntVec;
import org.cobraverify.solver.Budget;

/**
 * The check to run the day a GPU is lent ({@code gpu/device-check.sh}): opens the device (or prints
 * "no device" and the reason, and exits 0), then, at each size, builds a random DAG shaped like a history
 * (24 session chains and cross edges), asks the same batch of reachability queries of the CPU chain cover
 * and of the GPU, fails (exit 1) on any difference, and prints both times. Exit 0 when all agree.
 */
public final class DeviceCheck {
    private DeviceCheck() {}

    public static void main(String[] args) {
        int[] sizes = args.length > 0 ? java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray() : new int[] {10_000, 100_000, 1_000_000};
        CudaReachability gpu;
        try {
            gpu = CudaReachability.open();
        } catch (CudaReachability.Unavailable e) {
            System.out.println("no device: " + e.getMessage());
            return;
        }
        System.out.println("device: " + gpu.device());
        System.out.printf("%10s %10s %10s %9s %10s %10s %8s%n", "vertices", "edges", "queries", "sources", "cpu/ms", "gpu/ms", "equal");
        boolean allEqual = true;
        try (gpu) {
            for (int n : sizes) {
                Random rnd = new Random(n);
                ReachabilityEngine.Dag d = dag(rnd, n, 24, 1.5);
                int sources = Math.min(n, 4096), q = 4 * n;
                int[] pool = new int[sources];
                for (int i = 0; i < sources; i++) pool[i] = rnd.nextInt(n);
                int[] qs = new int[q], qd = new int[q];
                for (int i = 0; i < q; i++) { qs[i] = pool[rnd.nextInt(sources)]; qd[i] = rnd.nextInt(n); }
                gpu.reaches(d, new int[] {0}, new int[] {0}, Budget.unlimited()); // warm-up: context, module
                long t0 = System.nanoTime();
                boolean[] cpu = ChainCoverReachability.INSTANCE.reaches(d, qs, qd, Budget.unlimited());
                long t1 = System.nanoTime();
                boolean[] got = gpu.reaches(d, qs, qd, Budget.unlimited());
                long t2 = System.nanoTime();
                boolean equal = java.util.Arrays.equals(cpu, got);
                allEqual &= equal;
                System.out.printf("%10d %10d %10d %9d %10.0f %10.0f %8s%n", n, d.outTarget().length, q, sources, (t1 - t0) / 1e6, (t2 - t1) / 1e6, equal);
            }
        }
        if (!allEqual) {
            System.out.println("FAILED: the GPU and the CPU disagree");
            System.exit(1);
        }
    }

    /** {@code sessions} chains in a random interleaving plus forward cross edges (as the contract tests make). */
    static ReachabilityEngine.Dag dag(Random rnd, int n, int sessions, double crossPerVertex) {
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = rnd.nextInt(i + 1); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
        IntVec src = new IntVec(), dst = new IntVec();
        int[] last = new int[sessions], pred = new int[n];
        java.util.Arrays.fill(last, -1);
        java.util.Arrays.fill(pred, -1);
        for (int i = 0; i < n; i++) {
            int v = perm[i], s = rnd.nextInt(sessions);
            if (last[s] >= 0) { src.add(last[s]); dst.add(v); pred[v] = last[s]; }
            last[s] = v;
            int cross = (int) crossPerVertex + (rnd.nextDouble() < crossPerVertex - (int) crossPerVertex ? 1 : 0);
            for (int k = 0; k < cross && i > 0; k++) { src.add(perm[Math.max(0, i - 1 - rnd.nextInt(Math.min(i, 2000)))]); dst.add(v); }
        }
        int[] start = new int[n + 1];
        for (int e = 0; e < src.size(); e++) start[src.get(e) + 1]++;
        for (int v = 0; v < n; v++) start[v + 1] += start[v];
        int[] fill = java.util.Arrays.copyOf(start, n), target = new int[src.size()];
        for (int e = 0; e < src.size(); e++) target[fill[src.get(e)]++] = dst.get(e);
        return new ReachabilityEngine.Dag(n, start, target, perm, pred);
    }
}
