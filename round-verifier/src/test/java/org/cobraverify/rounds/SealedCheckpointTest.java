package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints below serializability (docs/DESIGN.md §7.11, §8.2): a verifier restored from one (through its wire encoding,
 * with the same collected-write store) decides every later round as the verifier that never stopped, at each weaker level;
 * and a verifier at another level refuses the checkpoint, since a sealed past and a barrier are different states of one store.
 */
class SealedCheckpointTest {
    private static final IsolationLevel[] LEVELS = {IsolationLevel.READ_COMMITTED, IsolationLevel.READ_ATOMIC, IsolationLevel.CAUSAL,
            IsolationLevel.SNAPSHOT_ISOLATION};

    @Test
    void aRestoredVerifierDecidesLaterRoundsAsTheUninterruptedOneAtEveryWeakerLevel() {
        Random rnd = new Random(4207);
        int compared = 0, withCollection = 0;
        for (int run = 0; run < 240; run++) {
            IsolationLevel level = LEVELS[run % LEVELS.length];
            SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[rnd.nextInt(SimulatedStore.Isolation.values().length)];
            SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(3), 10 + rnd.nextInt(25), 2 + rnd.nextInt(5), 2 + rnd.nextInt(3),
                    0.25 + 0.5 * rnd.nextDouble(), 0.05, 0.02);
            History h = SimulatedStore.run(iso, w, rnd, false, 1 + rnd.nextInt(4));
            if (h == null) continue;
            RoundSettings s = RoundSettings.defaults().withLevel(level);
            int roundSize = 1 + rnd.nextInt(8);
            List<String> straight = new ArrayList<>();
            try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
                HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, v, r -> straight.add(CheckpointTest.summary(r)));
            }
            if (straight.size() < 3) continue;
            int k = rnd.nextInt(straight.size() - 1);
            InMemoryCollectedWrites disk = new InMemoryCollectedWrites();
            List<VerifierCheckpoint> records = new ArrayList<>();
            IncrementalVerifier first = new IncrementalVerifier(s, disk);
            int[] seen = {0};
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, first, r -> {
                if (seen[0]++ == k) records.addAll(CheckpointTest.wireRoundTrip(first.checkpoint(), k));
            });
            IncrementalVerifier second = new IncrementalVerifier(s, disk);
            second.restore(CheckpointTest.fromRecords(records), 1);
            List<String> resumed = new ArrayList<>();
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, second, r -> resumed.add(CheckpointTest.summary(r)), k + 1);
            assertEquals(straight.subList(k + 1, straight.size()), resumed, "run " + run + " (" + level + ", store " + iso + ", round size " + roundSize
                    + ", checkpoint after round " + k + " of " + straight.size() + ")");
            compared++;
            if (!straight.get(k).contains("collected=0")) withCollection++;
        }
        assertTrue(compared > 120, "compared " + compared);
        assertTrue(withCollection > 40, "checkpoints taken after a collection: " + withCollection);
    }

    @Test
    void aVerifierAtAnotherLevelRefusesTheCheckpoint() {
        Random rnd = new Random(5);
        History h = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(3, 30, 4, 3, 0.5, 0.05, 0.02), rnd, false, 2);
        RoundSettings si = RoundSettings.defaults().withLevel(IsolationLevel.SNAPSHOT_ISOLATION);
        List<VerifierCheckpoint> records = new ArrayList<>();
        try (IncrementalVerifier v = new IncrementalVerifier(si, new InMemoryCollectedWrites())) {
            int[] seen = {0};
            HistoryRounds.run(h, 5, SimulatedStore.FENCE_KEY, v, r -> { if (seen[0]++ == 1) records.addAll(CheckpointTest.wireRoundTrip(v.checkpoint(), 1)); });
        }
        RoundsCheckpoint c = CheckpointTest.fromRecords(records);
        for (RoundSettings other : List.of(RoundSettings.defaults(), RoundSettings.defaults().withLevel(IsolationLevel.READ_COMMITTED))) {
            IncrementalVerifier v = new IncrementalVerifier(other, new InMemoryCollectedWrites());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.restore(c, 1));
            assertTrue(e.getMessage().contains("made checking snapshot-isolation"), e.getMessage());
        }
        IncrementalVerifier same = new IncrementalVerifier(si, new InMemoryCollectedWrites());
        same.restore(c, 1); // the level it was made at
    }
}
