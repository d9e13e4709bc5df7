package org.cobraverify.gpu;

import org.cobraverify.checker.ChainCoverReachability;
import org.cobraverify.checker.CrossCheckedReachability;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.solver.Budget;

/**
 * {@code --gpu auto|on|off|verify}: which {@link ReachabilityEngine} pruning gets.
 * <ul>
 *   <li>{@code off}: the CPU chain cover;</li>
 *   <li>{@code on}: the GPU, or {@link CudaReachability.Unavailable} (the caller exits 2 with the reason);</li>
 *   <li>{@code verify}: both on every batch, failing on any difference ({@link CrossCheckedReachability});</li>
 *   <li>{@code auto} (default): the CPU. The GPU engine lost to the chain cover at every size it was timed at
 *       ({@link #AUTO_WHY}), so {@code auto} does not even look for a device; on graphs of {@link #AUTO_MIN_VERTICES}
 *       vertices or more its name says why the CPU answered. {@code on} and {@code verify} still use the GPU.</li>
 * </ul>
 */
public final class GpuSelection {
    /** From this many vertices on, {@code auto}'s name says why the CPU answered (below, a GPU could not win anyway). */
    public static final int AUTO_MIN_VERTICES = 50_000;

    /**
     * Why {@code auto} keeps to the CPU: {@code gpu/device-check.sh} on random DAGs with 4,096 sources, the two engines'
     * answers equal (docs/gpu.md).
     */
    public static final String AUTO_WHY = "the GPU engine is slower than the CPU chain cover on every graph timed (NVIDIA H100,"
            + " 2026-12-05: 216 ms against 101 at 100,000 vertices, 1,953 against 741 at 1,000,000); --gpu on uses it anyway";

    private GpuSelection() {}

    public static ReachabilityEngine select(String mode) throws CudaReachability.Unavailable {
        return switch (mode) {
            case "off" -> ChainCoverReachability.INSTANCE;
            case "on" -> CudaReachability.open();
            case "verify" -> new CrossCheckedReachability(ChainCoverReachability.INSTANCE, CudaReachability.open());
            case "auto" -> new Auto();
            default -> throw new IllegalArgumentException("--gpu takes auto, on, off or verify, not '" + mode + "'");
        };
    }

    /** {@code auto}: the CPU chain cover, whose name says why not the GPU once a graph is large enough to ask. */
    static final class Auto implements ReachabilityEngine {
        private volatile boolean large;

        @Override
        public String name() { return large ? "cpu (--gpu auto: " + AUTO_WHY + ")" : "cpu"; }

        @Override
        public Index index(Dag dag, int[] sources, Budget budget) {
            if (dag.vertices() >= AUTO_MIN_VERTICES) large = true;
            return ChainCoverReachability.INSTANCE.index(dag, sources, budget);
        }
    }
}
