package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The demo at snapshot isolation on a store that loses writes: its verdicts against what the store did
 * ({@link FaultTally}). Every lost update the faults made is reported once (or within the report of another violation its
 * transaction was set aside with), none twice, no report names a violation the faults do not explain, and every round
 * verifies the rest of its transactions. One in-process pipeline (Kafka, the topology, the verifier) on RocksDB.
 */
class DemoLostUpdatesTest {
    @Test
    void everyLostUpdateIsReportedOnceAndNothingElse() {
        long seed = 7;
        String[] args = {"demo", "--isolation", "si", "--workload", "tpcc", "--fault", "lost-write", "--fault-rate", "0.002", "--txns", "10000",
                "--clients", "8", "--seed", String.valueOf(seed), "--quiet"};
        VerifyCommandTest.Run r = VerifyCommandTest.cobra(args);
        if (r.exit() == 3 || r.out().contains("verdicts cover only")) {
            // as ReadmeQuickStartTest's demo: in a long-lived test JVM the verifier has been seen to reach no verdict within the
            // demo's wait (exit 3, which is what it must say then); the tally needs every round's, so it runs again
            System.out.println("DemoLostUpdatesTest: the verdicts did not cover the run; its output, then a second run:\n" + r.out() + r.err());
            r = VerifyCommandTest.cobra(args);
        }
        String out = r.out();
        assertEquals(1, r.exit(), "seed " + seed + "\n" + out + r.err());
        Matcher faults = Pattern.compile("faults: (\\d+) writes lost from committed transactions; they made (\\d+) lost updates").matcher(out);
        assertTrue(faults.find(), out);
        long lostUpdates = Long.parseLong(faults.group(2));
        Matcher m = Pattern.compile("lost updates: (\\d+) reported once; (\\d+) within another violation's report .*?; (\\d+) missed; (\\d+) reported more than once")
                .matcher(out);
        assertTrue(m.find(), out);
        long once = Long.parseLong(m.group(1)), within = Long.parseLong(m.group(2));
        assertTrue(lostUpdates > 0 && once > 0, "the faults made lost updates, reported: seed " + seed + "\n" + out);
        assertEquals(List.of(lostUpdates, 0L, 0L), List.of(once + within, Long.parseLong(m.group(3)), Long.parseLong(m.group(4))),
                "every lost update reported once: seed " + seed + "\n" + out);
        assertTrue(out.contains(", 0 naming none"), "no report the faults do not explain: seed " + seed + "\n" + out);
        assertTrue(out.contains(" accepted the rest of their transactions, 0 not verified;"), "every round verified: seed " + seed + "\n" + out);
        assertTrue(out.contains("the verdicts match what the store lost"), "seed " + seed + "\n" + out);
    }
}
