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
 * and unknown-outcome transactions, half of them in a file order other than commit order. Each case prints its seed.
 */
class StreamingRoundsTest {
    static java.util.stream.LongStream seeds() { return Seeds.of(120); }

    /**
     * {@code h} in another file order: each session's transactions stay in order, written in chunks of 1 to 30 (as a
     * recorder that flushes per client writes them), so that a fence often comes before the fence it read.
     */
    static History inSessionChunks(History h, Random rnd) {
        List<List<Integer>> bySession = new ArrayList<>();
        for (int s = 0; s < h.sessionCount(); s++) bySession.add(new ArrayList<>());
        for (int t = 0; t < h.size(); t++) bySession.get(h.session(t)).add(t);
        List<Integer> order = new ArrayList<>();
        int[] next = new int[h.sessionCount()];
        while (order.size() < h.size()) {
            int s = rnd.nextInt(h.sessionCount());
            for (int k = 1 + rnd.nextInt(30); k > 0 && next[s] < bySession.get(s).size(); k--) order.add(bySession.get(s).get(next[s]++));
        }
        return h.restrict(order.stream().mapToInt(Integer::intValue).toArray());
    }

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
        if (seed % 2 == 0) h = inSessionChunks(h, rnd); // a file not in commit order: fences before their predecessors
        CheckOptions opts = seed % 5 == 0 ? CheckOptions.defaults().withStrict(2) : CheckOptions.defaults();
        RoundSettings s = RoundSettings.defaults().withCheck(opts);
        int roundSize = 1 + rnd.nextInt(12);
        List<String> whole = new ArrayList<>(), streamed = new ArrayList<>();
        try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, v, r -> whole.add(CheckpointTest.summary(r)));
        }
        Map<String, Integer> totals = new HashMap<>();
        java.util.Set<String> fenced = new java.util.HashSet<>();
        EpochAssigner ep = new EpochAssigner(h, SimulatedStore.FENCE_KEY);
        for (int t = 0; t < h.size(); t++) {
            totals.merge(org.cobraverify.schemas.protocol.WireNames.of(h.sessionName(h.session(t))), 1, Integer::sum);
            if (org.cobraverify.schemas.protocol.EpochRules.isFence(HistoryRounds.toTransaction(h, t, ep, 0), SimulatedStore.FENCE_KEY))
                fenced.add(org.cobraverify.schemas.protocol.WireNames.of(h.sessionName(h.session(t)))); // (rule 1, as the first pass over a file finds them)
        }
        if (ep.fenceCount() == 0) fenced.clear(); // (no fence chains: the whole history is cut by size, and so is the file)
        try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
            StreamingRounds sr = new StreamingRounds(roundSize, SimulatedStore.FENCE_KEY, v, totals, fenced, r -> streamed.add(CheckpointTest.summary(r)));
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
