package org.cobraverify.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.cobraverify.checker.ChainCoverReachability;
import org.cobraverify.checker.ReachabilityContract;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.solver.Budget;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The GPU engine meets the {@link ReachabilityContract} (against brute force, and so against the CPU) where a
 * device is present; elsewhere the contract tests are skipped with the reason, and the tests below check
 * that the absence is reported cleanly.
 */
class CudaReachabilityTest extends ReachabilityContract {
    private static CudaReachability gpu;
    private static String unavailable;

    @BeforeAll
    static void open() {
        try {
            gpu = CudaReachability.open();
        } catch (CudaReachability.Unavailable e) {
            unavailable = e.getMessage();
        }
    }

    @AfterAll
    static void close() { if (gpu != null) gpu.close(); }

    @Override
    protected ReachabilityEngine engine() {
        Assumptions.assumeTrue(gpu != null, () -> "no GPU path on this machine: " + unavailable);
        return gpu;
    }

    @Test
    void withoutADeviceOpeningSaysWhyAndNothingCrashes() {
        Assumptions.assumeTrue(gpu == null, "a device is here, so there is no absence to report (the contract tests ran on it)");
        assertTrue(unavailable != null && !unavailable.isBlank());
        assertThrows(CudaReachability.Unavailable.class, () -> GpuSelection.select("on"));
        assertThrows(CudaReachability.Unavailable.class, () -> GpuSelection.select("verify"));
    }

    @Test
    void autoUsesTheCpuAndSaysWhyOnLargeGraphs() throws Exception {
        ReachabilityEngine auto = GpuSelection.select("auto");
        ReachabilityEngine.Dag small = randomDag(new Random(3), 100, 4, 1);
        int[] qs = {0, 5, 7}, qd = {9, 2, 7};
        assertEquals(Arrays.toString(bruteForce(small, qs, qd)), Arrays.toString(auto.reaches(small, qs, qd, Budget.unlimited())));
        assertEquals("cpu", auto.name(), "no GPU probe below the threshold");
        ReachabilityEngine.Dag large = randomDag(new Random(4), GpuSelection.AUTO_MIN_VERTICES, 24, 0.5);
        boolean[] got = auto.reaches(large, qs, qd, Budget.unlimited());
        assertEquals(Arrays.toString(ChainCoverReachability.INSTANCE.reaches(large, qs, qd, Budget.unlimited())), Arrays.toString(got));
        // a device or not, the CPU answers (the GPU engine is the slower one), and the name says so
        assertEquals("cpu (--gpu auto: " + GpuSelection.AUTO_WHY + ")", auto.name());
        assertFalse(GpuSelection.select("off").name().contains("gpu"));
    }
}
