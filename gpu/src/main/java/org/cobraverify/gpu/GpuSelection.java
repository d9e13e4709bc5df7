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
 *   <li>{@code auto} (default): the CPU for graphs under {@link #AUTO_MIN_VERTICES} (a GPU cannot win there,
 *       and probing for one costs start-up time); above, the GPU if one opens, else the CPU. Its name says
 *       which it used, and why not the GPU.</li>
 * </ul>
 */
public final class GpuSelection {
    /** Below this many vertices, {@code auto} does not even look for a GPU. */
    public static final int AUTO_MIN_VERTICES = 50_000;

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

    /** {@code auto}: looks for a GPU the first time a graph is large enough, once. */
    static final class Auto implements ReachabilityEngine {
        private ReachabilityEngine gpu;
        private String noGpu;
        private boolean usedGpu;

        @Override
        public synchronized String name() {
            if (usedGpu) return gpu.name();
            return noGpu == null ? "cpu" : "cpu (--gpu auto: " + noGpu + ")";
        }

        @Override
        public Index index(Dag dag, int[] sources, Budget budget) {
            ReachabilityEngine e = ChainCoverReachability.INSTANCE;
            synchronized (this) {
                if (dag.vertices() >= AUTO_MIN_VERTICES && noGpu == null) {
                    if (gpu == null) {
                        try {
                            gpu = CudaReachability.open();
                        } catch (CudaReachability.Unavailable ex) {
                            noGpu = ex.getMessage();
                        }
                    }
                    if (gpu != null) { e = gpu; usedGpu = true; }
                }
            }
            return e.index(dag, sources, budget);
        }
    }
}
