package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A file read one transaction at a time ({@link StreamingRounds}) is decided round for round as the whole history
 * ({@link HistoryRounds}): the same rounds, each with the same verdict, transactions checked, waiting and retained, on
 * generated histories with fences (serial, snapshot isolation, planted stale reads; strict mode on some), with aborted
 * and unknown-outcome transactions. Each case prints its seed.
 */
class StreamingRoundsTest {
    static java.util.stream.LongStream seeds() { return Seeds.of(120); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aStreamedFileIsDecidedAsTheWholeHistory(long seed) {
        Random rnd = new Random(seed);
        SimulatedStore.Isolation iso = seed % 3 == 0 ? SimulatedStore.Isolation.SNAPSHOT : SimulatedStore.Isolation.SERIAL;
        SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(6), 20 + rnd.nextInt(60), 3 + rnd.nextInt(40), 2 + rnd.nextInt(3),
                0.3 + 0.4 * rnd.nextDouble(), 0.05, 0.03);
        History h = SimulatedStore.run(iso, w, rnd, false, 1 + rnd.nextInt(6));
        History planted = seed % 4 == 1 ? RoundsAgainstOneShotPropertyTest.plantStaleRead(h, rnd) : null;
        if (planted != null) h = planted;
        CheckOptions opts = seed % 5 == 0 ? CheckOptions.defaults().withStrict(2) : CheckOptions.defaults();
        IncrementalVerifier.Settings s = IncrementalVerifier.Settings.defaults().withCheck(opts);
        int roundSize = 1 + rnd.nextInt(12);
        List<String> whole = new ArrayList<>(), streamed = new ArrayList<>();
        try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, v, r -> whole.add(CheckpointTest.summary(r)));
        }
        Map<String, Integer> totals = new HashMap<>();
        boolean anyFence = false;
        EpochAssigner ep = new EpochAssigner(h, SimulatedStore.FENCE_KEY);
        for (int t = 0; t < h.size(); t++) {
            totals.merge(String.valueOf(h.sessionName(h.session(t))), 1, Integer::sum);
            anyFence |= ep.isFence(t);
        }
        try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
            StreamingRounds sr = new StreamingRounds(roundSize, SimulatedStore.FENCE_KEY, v, totals, anyFence, r -> streamed.add(CheckpointTest.summary(r)));
            for (int t = 0; t < h.size(); t++) {
                Transaction x = HistoryRounds.toTransaction(h, t, ep, 0);
                x.setEpoch(-1L);
                x.setFence(false);
                if (!sr.offer(x)) break;
            }
            sr.finish();
        }
        assertEquals(whole, streamed, "seed " + seed + " (" + iso + ", round size " + roundSize + ")");
        assertFalse(whole.isEmpty());
    }
}
