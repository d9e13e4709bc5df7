package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.api.Test;

/**
 * A 200,000-transaction serializable history with fences (a simulated serial store, 24 sessions), whose
 * very last transaction reads a value written in the first 1% of it and overwritten since: rounds of
 * 5,000 with GC must reject it as a stale read, naming the reader, the collected writer and the frontier
 * write that superseded it, after collecting nearly everything before (the collected writes on disk).
 */
class LongCollectedStaleReadTest {
    @Test
    void aStaleReadOfALongCollectedValueIsRejectedWithItsCertificate() {
        History clean = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(24, 200_000 / 24, 2000, 4, 0.5, 0, 0),
                new Random(11), false, 20);
        // the planted reader: a new last transaction reading an early, overwritten version of some key
        LateStaleReader planted = LateStaleReader.plant(clean);
        History h = planted.h();
        String key = planted.key(), value = planted.value();

        RoundsRun run;
        long collected;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), RocksDbCollectedWrites.temporary())) {
            run = HistoryRounds.run(h, 5000, SimulatedStore.FENCE_KEY, v, null);
            collected = v.collectedCount();
        }
        RoundResult last = run.last();
        assertEquals(Verdict.Outcome.REJECT, last.outcome(), last.reason());
        Certificate c = last.certificate();
        assertEquals(AnomalyKind.STALE_READ, c.kind(), c.summary());
        String writer = planted.writer();
        assertTrue(c.summary().contains("stale-reader") && c.summary().contains(writer) && c.summary().contains(org.cobraverify.history.History.show(key) + " = " + org.cobraverify.history.History.show(value)), c.summary());
        assertEquals(3, c.transactions().size(), "reader, collected writer, superseding writer");
        assertTrue(collected > 150_000, "nearly everything before was collected: " + collected);
        assertTrue(run.retainedMax() < 50_000, "retained at most " + run.retainedMax());
    }
}
