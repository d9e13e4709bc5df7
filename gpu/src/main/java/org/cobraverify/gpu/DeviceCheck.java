package org.cobraverify.gpu;

import java.util.Arrays;
import java.util.Random;
import org.cobraverify.checker.ChainCoverReachability;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.solver.Budget;
import org.cobraverify.synth.RandomDags;

/**
 * The check to run the day a GPU is lent ({@code gpu/device-check.sh}): opens the device (or prints
 * "no device" and the reason, and exits 0), then, at each size, builds a random DAG shaped like a history
 * (24 session chains and cross edges), asks the same batch of reachability queries of the CPU chain cover
 * and of the GPU, fails (exit 1) on any difference, and prints both times. Exit 0 when all agree.
 */
public final class DeviceCheck {
    private DeviceCheck() {}

    public static void main(String[] args) {
        int[] sizes = args.length > 0 ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray() : new int[] {10_000, 100_000, 1_000_000};
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
                ReachabilityEngine.Dag d = RandomDags.of(rnd, n, 24, 1.5, 2000); // cross edges from the last 2,000: local, as in histories
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
                boolean equal = Arrays.equals(cpu, got);
                allEqual &= equal;
                System.out.printf("%10d %10d %10d %9d %10.0f %10.0f %8s%n", n, d.outTarget().length, q, sources, (t1 - t0) / 1e6, (t2 - t1) / 1e6, equal);
            }
        }
        if (!allEqual) {
            System.out.println("FAILED: the GPU and the CPU disagree");
            System.exit(1);
        }
    }
}
