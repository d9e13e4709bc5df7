package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.RocksDbStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every fault of the fault-injecting store is caught: the recorded history is rejected. */
class FaultInjectionTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(FaultyStore.Fault.class)
    void eachFaultIsRejected(FaultyStore.Fault fault) throws Exception {
        Verdict last = null;
        for (int round = 0; round < 10 && (last == null || last.outcome() != Verdict.Outcome.REJECT); round++) {
            Path db = dir.resolve(fault.cliName + round);
            try (FaultyStore s = new FaultyStore(new RocksDbStore(db.toString(), false), fault, 0.05, round)) {
                last = RecordAndCheck.run(s, Workload.byName("blindw-rw", 0.05), 6, 1500, round, dir).verdict();
            }
        }
        assertEquals(Verdict.Outcome.REJECT, last.outcome(), fault + " must be caught within 10 runs");
    }

    @ParameterizedTest
    @EnumSource(FaultyStore.Fault.class)
    void withoutFaultsTheSameRunIsAccepted(FaultyStore.Fault fault) throws Exception {
        try (FaultyStore s = new FaultyStore(new RocksDbStore(dir.resolve("clean").toString(), false), fault, 0.0, 1)) {
            assertEquals(Verdict.Outcome.ACCEPT, RecordAndCheck.run(s, Workload.byName("blindw-rw", 0.05), 6, 1500, 1, dir).verdict().outcome());
        }
    }
}
