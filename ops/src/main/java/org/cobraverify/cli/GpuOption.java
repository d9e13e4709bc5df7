package org.cobraverify.cli;

import java.io.PrintStream;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.gpu.CudaReachability;
import org.cobraverify.gpu.GpuSelection;

/** {@code --gpu auto|on|off|verify}, shared by verify, bench and verifier ({@link GpuSelection}). */
final class GpuOption {
    static final String DESCRIPTION = "Pruning's reachability: auto (default: the CPU, the faster on every graph timed), "
            + "on (a GPU, or exit 2), off (the CPU), verify (both, failing on any difference).";

    private GpuOption() {}

    /** The engine for {@code mode}; null after printing why (the caller exits 2). */
    static ReachabilityEngine resolve(String mode, String command, PrintStream err) {
        try {
            return GpuSelection.select(mode);
        } catch (CudaReachability.Unavailable e) {
            err.println("cobra " + command + ": --gpu " + mode + ": no GPU path here: " + e.getMessage());
            return null;
        } catch (IllegalArgumentException e) {
            err.println("cobra " + command + ": " + e.getMessage());
            return null;
        }
    }
}
