package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cobra record} then {@code cobra verify}, on embedded RocksDB (the README's quick start runs them as written: ReadmeQuickStartTest). */
class RecordCommandTest {
    @TempDir
    Path dir;

    @Test
    void recordThenVerifyAccepts() {
        Path h = dir.resolve("h.jsonl");
        VerifyCommandTest.Run r = VerifyCommandTest.cobra("record", "--workload", "tpcc", "--scale", "0.1", "--txns", "800", "--clients", "4", "--out", h.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("txn/s; latency p50") && r.out().contains("p99"), r.out());
        assertEquals(0, VerifyCommandTest.cobra("verify", h.toString()).exit());
    }

    @Test
    void aFaultyStoreIsCaught() {
        int exit = -1;
        for (int seed = 1; seed <= 5 && exit != 1; seed++) {
            Path h = dir.resolve("f" + seed + ".jsonl");
            VerifyCommandTest.Run r = VerifyCommandTest.cobra("record", "--fault", "stale-read", "--fault-rate", "0.2", "--scale", "0.01",
                    "--txns", "1000", "--seed", Integer.toString(seed), "--out", h.toString());
            assertEquals(0, r.exit(), r.err());
            exit = VerifyCommandTest.cobra("verify", h.toString()).exit();
        }
        assertEquals(1, exit, "stale reads must be rejected within 5 runs");
    }

    @Test
    void badArgumentsExitTwo() {
        assertEquals(2, VerifyCommandTest.cobra("record", "--workload", "nope").exit());
        assertEquals(2, VerifyCommandTest.cobra("record", "--db", "oracle", "--out", dir.resolve("x").toString()).exit());
        assertEquals(2, VerifyCommandTest.cobra("record", "--fault", "gremlins").exit());
    }
}
