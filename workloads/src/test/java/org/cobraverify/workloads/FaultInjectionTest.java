package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.RocksDbStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every fault of the fault-injecting store is caught: one recorded run with the fault is rejected, and the same
 * run without it is accepted. The fault's own random choices come from a fixed seed ({@code -Dcobra.faultSeed=N}
 * for another); the clients' interleaving is the machine's, so each run asserts that faults were injected, and a
 * run must be rejected on its first try: there is no second.
 */
class FaultInjectionTest {
    private static final long SEED = Long.getLong("cobra.faultSeed", 1);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(FaultyStore.Fault.class)
    void eachFaultIsRejected(FaultyStore.Fault fault) throws Exception {
        try (FaultyStore s = new FaultyStore(new RocksDbStore(dir.resolve(fault.cliName).toString(), false), fault, 0.05, SEED)) {
            RecordAndCheck.Outcome o = RecordAndCheck.run(s, Workload.byName("blindw-rw", 0.05), 6, 1500, SEED, dir);
            String ctx = fault + ", seed " + SEED + ", " + s.injected() + " faults injected, history " + o.file();
            assertTrue(s.injected() >= 10, "the store must misbehave for the test to mean anything: " + ctx);
            assertEquals(Verdict.Outcome.REJECT, o.verdict().outcome(), ctx + ": " + o.verdict().unknownReason());
        }
    }

    @ParameterizedTest
    @EnumSource(FaultyStore.Fault.class)
    void withoutFaultsTheSameRunIsAccepted(FaultyStore.Fault fault) throws Exception {
        try (FaultyStore s = new FaultyStore(new RocksDbStore(dir.resolve("clean").toString(), false), fault, 0.0, SEED)) {
            RecordAndCheck.Outcome o = RecordAndCheck.run(s, Workload.byName("blindw-rw", 0.05), 6, 1500, SEED, dir);
            assertEquals(0, s.injected());
            assertEquals(Verdict.Outcome.ACCEPT, o.verdict().outcome(), fault + ", seed " + SEED + ": " + (o.verdict().certificate() != null ? o.verdict().certificate().summary() : o.verdict().unknownReason()));
        }
    }
}
