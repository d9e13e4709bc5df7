package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Below serializability (docs/DESIGN.md §7.11): a 20,000-transaction history of a serial store with fences (four sessions,
 * 50,000 keys, so that blind writes of one key by two sessions in one epoch are rare: those stop the sealing), whose last
 * transaction reads a version written early and overwritten since. Rounds of 1,000 seal nearly everything before it. At
 * causal and snapshot isolation the late read is a stale read (every old transaction is in the reader's causal past and
 * snapshot), rejected with its certificate, as one-shot checking rejects it; at read committed and read atomic it may be
 * legal (here it is: one-shot checking accepts) and the sealed past keeps no order to decide it, so its reader is left
 * unchecked, named with why, and the rest is accepted: never a reject one-shot checking would not make, and not a verifier
 * that can accept nothing from then on.
 */
class SealedStaleReadTest {
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "STRONG_SESSION_READ_COMMITTED", "READ_ATOMIC", "CAUSAL", "SNAPSHOT_ISOLATION"})
    void aLateReadOfASealedVersionIsJudgedAsTheLevelSays(IsolationLevel level) {
        History clean = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(4, 20_000 / 4, 50_000, 4, 0.5, 0, 0),
                new Random(17), false, 20);
        LateStaleReader planted = LateStaleReader.plant(clean);
        History h = planted.h();
        String key = planted.key(), value = planted.value();
        Verdict oneShot = Isolation.check(h, level, CheckOptions.defaults());

        RoundsRun run;
        long collected;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults().withLevel(level), new InMemoryCollectedWrites())) {
            run = HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, v, null);
            collected = v.collectedCount();
        }
        RoundResult last = run.last();
        assertTrue(collected > 15_000, "nearly everything before the reader was sealed: " + collected);
        assertTrue(run.retainedMax() < 2_000, "retained at most " + run.retainedMax());
        if (level.implies(IsolationLevel.CAUSAL)) {
            assertEquals(Verdict.Outcome.REJECT, oneShot.outcome());
            assertEquals(Verdict.Outcome.REJECT, last.outcome(), last.reason());
            Certificate c = last.certificate();
            assertEquals(AnomalyKind.STALE_READ, c.kind(), c.summary());
            assertTrue(c.summary().contains("stale-reader") && c.summary().contains(planted.writer()) && c.summary().contains(org.cobraverify.history.History.show(key) + " = " + org.cobraverify.history.History.show(value)),
                    c.summary());
        } else {
            assertEquals(Verdict.Outcome.ACCEPT, oneShot.outcome());
            assertEquals(Verdict.Outcome.ACCEPT, last.outcome(), last.reason());
            Unchecked u = last.unchecked().stream().filter(x -> x.id().equals("stale-reader")).findFirst().orElse(null);
            assertNotNull(u, "the stale reader is left unchecked: " + last.unchecked());
            assertTrue(u.reason().contains("superseded by") && u.reason().contains("at " + level.longName() + " it may read an older version"),
                    u.reason());
        }
    }
}
