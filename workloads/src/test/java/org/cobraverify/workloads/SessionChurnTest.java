package org.cobraverify.workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.rounds.EpochAssigner;
import org.cobraverify.rounds.HistoryRounds;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.rounds.RoundsRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients whose sessions come and go (a connection pool, short-lived workers): every session starts with a
 * fence, so a session that starts later must not hold back garbage collection. Recorded through the same
 * code path as {@code cobra record --session-txns}, then verified in rounds (the file mode of the verifier).
 */
class SessionChurnTest {
    @TempDir
    Path dir;

    @Test
    void sessionsThatComeAndGoLeaveTheRetainedSetBounded() throws Exception {
        Path file = Files.createTempFile(dir, "churn", ".jsonl");
        int clients = 12, sessionTxns = 150;
        long txns = 18_000;
        WorkloadRunner.Result run;
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false);
             Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.defaults())) {
            run = WorkloadRunner.run(Workload.byName("blindw-rm", 0.2), store, rec, clients, txns, 3, 0, sessionTxns, new WorkloadRunner.Progress());
        }
        assertEquals(txns, run.committed() + run.aborted() + run.unknown());
        History h = HistoryReaders.read(file).history();
        // sessions: the loader's, then each client's first and its successors
        assertTrue(h.sessionCount() >= txns / sessionTxns, "sessions came and went: " + h.sessionCount());
        RoundsRun r;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            r = HistoryRounds.run(h, 1000, EpochAssigner.DEFAULT_FENCE_KEY, v, null);
        }
        assertEquals(Verdict.Outcome.ACCEPT, r.last().outcome(), r.last().reason());
        // before sessions' opening fences counted, every round but the last kept everything it had seen
        assertTrue(r.retainedMax() < txns / 3, "retained at most " + r.retainedMax() + " of " + h.size()
                + " (rounds: " + r.rounds().size() + "); a session that starts later held every epoch open");
        assertTrue(r.rounds().get(r.rounds().size() / 2).collectedTotal() > txns / 4,
                "half-way, most of the past was collected: " + r.rounds().get(r.rounds().size() / 2).collectedTotal());
    }
}
