package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Condition 4's open writers (docs/DESIGN.md §7.11) on blind writes: a serial store's history (so every level accepts it
 * one-shot) where hot keys are written blind by sessions that fence at different paces, so that a slow session's reader
 * reads from a later epoch and the blind writer after it in its session stays, unordered with the writer its key seals at.
 * Held back by the old rule ({@link GarbageCollection.Rules#OPEN_WRITERS_HELD}), such a key keeps every writer of it with
 * all they reach; with open writers the key seals, the retained set stays small, the verdict is still an accept, and what
 * cannot be judged is named: each reader of a sealed version that an open writer may precede.
 */
class SealedOpenWritersTest {
    private static final long SEED = 660_001;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "READ_ATOMIC", "CAUSAL", "SNAPSHOT_ISOLATION"})
    void blindWritesOfHotKeysSealWithTheirReadersNamed(IsolationLevel level) {
        Random rnd = new Random(SEED);
        History h = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(8, 1_500, 2_000, 6, 0.5, 0, 0), rnd, false, 10,
                null, new SimulatedStore.Skew(40, 0.3, 0.8, 3, 60, new Random(SEED + 1)));
        assertEquals(Verdict.Outcome.ACCEPT, Isolation.check(h, level, CheckOptions.defaults()).outcome(), "seed " + SEED);
        RoundsRun open = run(h, level, GarbageCollection.Rules.SOUND), held = run(h, level, GarbageCollection.Rules.OPEN_WRITERS_HELD);
        System.out.printf("seed %d, %s: retained at most %d with open writers (%d unchecked), %d without%n", SEED, level.longName(),
                open.retainedMax(), open.last().uncheckedTotal(), held.retainedMax());
        for (RoundResult r : open.rounds()) assertNotEquals(Verdict.Outcome.REJECT, r.outcome(), "round " + r.round() + ": " + r.reason());
        assertEquals(Verdict.Outcome.ACCEPT, open.last().outcome(), open.last().reason());
        assertTrue(open.retainedMax() * 2 < held.retainedMax(), "open writers retain " + open.retainedMax() + ", held " + held.retainedMax());
        long named = open.rounds().stream().flatMap(r -> r.unchecked().stream()).filter(u -> u.reason().contains("open writers")).count();
        assertTrue(named > 0, "a reader of a sealed version after an open writer is left unchecked, and named");
    }

    private static RoundsRun run(History h, IsolationLevel level, GarbageCollection.Rules rules) {
        RoundSettings d = RoundSettings.defaults();
        try (IncrementalVerifier v = new IncrementalVerifier(new RoundSettings(d.check(), d.pendingRoundsLimit(), d.maxRetained(), true, rules).withLevel(level),
                new InMemoryCollectedWrites())) {
            return HistoryRounds.run(h, 400, SimulatedStore.FENCE_KEY, v, null);
        }
    }

    /**
     * What leaving an open writer's readers unchecked prevents: seeds of the blind-write campaign on which checking them as
     * if the sealed version came first ({@link GarbageCollection.Rules#CARELESS_OPEN_READERS}) disagrees with one-shot
     * checking (seed 9600004 at snapshot isolation: an invalid certificate; 9600006 at causal: a read-your-writes violation
     * one-shot checking does not find), while the sound rules agree.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationLevel.class, names = {"CAUSAL", "SNAPSHOT_ISOLATION"})
    void checkingAnOpenWritersReadersIsAFalseReject(IsolationLevel level) {
        long seed = level == IsolationLevel.CAUSAL ? 9_600_006 : 9_600_004;
        RoundsDifferential.Result sound = RoundsDifferential.run(seed, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.ALL, level);
        RoundsDifferential.Result careless = RoundsDifferential.run(seed, GarbageCollection.Rules.CARELESS_OPEN_READERS, RoundsDifferential.Shapes.ALL, level);
        assertNull(sound.problem(), "seed " + seed + ": " + sound.problem());
        assertNotNull(careless.problem(), "seed " + seed + ": the careless rule must disagree");
    }

    /**
     * Open marks and keys sealed by choice are state (docs/DESIGN.md §7.11, §8.2): a verifier restored from a checkpoint that
     * holds open writers (through the wire encoding, with the same collected-write store) decides every later round as the
     * one that never stopped.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "CAUSAL", "SNAPSHOT_ISOLATION"})
    void aRestoredVerifierKeepsItsOpenWriters(IsolationLevel level) {
        History h = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(8, 600, 2_000, 6, 0.5, 0, 0), new Random(SEED), false, 10,
                null, new SimulatedStore.Skew(40, 0.3, 0.8, 3, 60, new Random(SEED + 1)));
        RoundSettings s = RoundSettings.defaults().withLevel(level);
        java.util.List<String> straight = new java.util.ArrayList<>();
        try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
            HistoryRounds.run(h, 300, SimulatedStore.FENCE_KEY, v, r -> straight.add(CheckpointTest.summary(r)));
        }
        int withOpen = 0;
        for (int k = 2; k + 1 < straight.size(); k += 3) {
            final int at = k;
            InMemoryCollectedWrites disk = new InMemoryCollectedWrites();
            java.util.List<org.cobraverify.schemas.VerifierCheckpoint> records = new java.util.ArrayList<>();
            IncrementalVerifier first = new IncrementalVerifier(s, disk);
            int[] seen = {0};
            HistoryRounds.run(h, 300, SimulatedStore.FENCE_KEY, first, r -> {
                if (seen[0]++ == at) records.addAll(CheckpointTest.wireRoundTrip(first.checkpoint(), at));
            });
            if (records.stream().flatMap(c -> c.getHeld().stream()).anyMatch(x -> !x.getOpenKeys().isEmpty())) withOpen++;
            IncrementalVerifier second = new IncrementalVerifier(s, disk);
            second.restore(CheckpointTest.fromRecords(records), 1);
            java.util.List<String> resumed = new java.util.ArrayList<>();
            HistoryRounds.run(h, 300, SimulatedStore.FENCE_KEY, second, r -> resumed.add(CheckpointTest.summary(r)), at + 1);
            assertEquals(straight.subList(at + 1, straight.size()), resumed, level + ", checkpoint after round " + at + " of " + straight.size());
        }
        assertTrue(withOpen > 0, "a checkpoint with open writers in it");
    }
}
