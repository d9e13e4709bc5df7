package org.cobraverify.ops.pipeline;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.service.VerifierService;
import org.cobraverify.topology.TopologySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Two verifiers with one id on a real broker: one works, the other stands by and publishes nothing; when the working
 * one dies in the middle of a round's transaction, the standby takes over from its committed offset and checkpoint,
 * the open transaction is aborted, and every round has exactly one committed verdict, all accept.
 */
class StandbyVerifierTest extends BrokerPerTest {
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theStandbyTakesOverWhenTheActiveVerifierDiesAndNoRoundIsLostOrRepeated() throws Exception {
        TopologySettings ts = TopologySettings.defaults().withRoundSize(300).withIdleCutMs(500);
        RoundSettings check = RoundSettings.defaults().withCheck(CheckOptions.defaults());
        try (Pipeline p = Pipeline.start(kafka.bootstrapServers(), dir.resolve("streams"), 2, ts, check, v -> {})) {
            p.stopVerifier();
            p.checkpointEvery(2);
            long[] crashedAt = {-1};
            // the active one dies at round 3, after sending its verdict and before committing it
            p.startVerifier(round -> {
                if (round >= 3) {
                    crashedAt[0] = System.nanoTime();
                    throw new IllegalStateException("killed at round " + round);
                }
            });
            // the active one owns cobra.rounds before the standby joins (else the standby could win the first assignment)
            long owned = System.nanoTime() + 60_000_000_000L;
            while (!p.verifierOwning() && System.nanoTime() < owned) Thread.sleep(20);
            assertTrue(p.verifierOwning(), "the pipeline's verifier owns cobra.rounds");
            List<Verdict> standbyVerdicts = new CopyOnWriteArrayList<>();
            // the standby: same id, group and state directory (a second process on the same host)
            VerifierService standby = new VerifierService(VerifierService.Settings.defaults(kafka.bootstrapServers())
                    .withState(dir.resolve("streams").resolve("verifier"), 2), check, standbyVerdicts::add);
            Thread t = new Thread(standby::run, "standby-verifier");
            t.start();
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!standby.standingBy() && System.nanoTime() < deadline) Thread.sleep(50);
                assertTrue(standby.standingBy(), "the second verifier stands by");
                long recorded = run("blindw-rm", null, 4, 3000);
                deadline = System.nanoTime() + 120_000_000_000L;
                while (covered(standbyVerdicts) < recorded && System.nanoTime() < deadline) Thread.sleep(100);
                assertNotNull(p.verifierFailure(), "the active verifier died");
                assertFalse(standbyVerdicts.isEmpty(), "the standby took over");
                assertEquals(recorded, covered(standbyVerdicts), "the standby's verdicts cover every transaction");
                // the active one's listener saw only what it committed: the standby starts with the first round it did not
                // (round 3, or earlier when round 3 was in a batch with earlier rounds, all aborted together)
                int committedByActive = p.verdicts().size();
                assertTrue(committedByActive <= 3, "the active verifier committed nothing from round 3 on: " + committedByActive);
                assertEquals(committedByActive, standbyVerdicts.get(0).getRound(), "the standby goes on from the active one's last commit");
                System.out.printf("standby: first verdict %.1f s after the active verifier died%n",
                        (System.nanoTime() - crashedAt[0]) / 1e9);
            } finally {
                standby.stop();
                t.join(30_000);
            }
            List<Verdict> committed = committedVerdicts();
            List<Long> rounds = new ArrayList<>();
            for (Verdict v : committed) {
                rounds.add(v.getRound());
                assertEquals(Outcome.ACCEPT, v.getOutcome(), "round " + v.getRound() + ": " + v.getReason());
            }
            for (int i = 0; i < rounds.size(); i++) assertEquals(i, rounds.get(i), "one committed verdict per round, in order: " + rounds);
            assertTrue(rounds.size() > 4, "rounds after the takeover: " + rounds);
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aNewOwnerWhoseStoreIsStillLockedByAFormerOneWorksWithItsOwn() throws Exception {
        TopologySettings ts = TopologySettings.defaults().withRoundSize(300).withIdleCutMs(500);
        RoundSettings check = RoundSettings.defaults().withCheck(CheckOptions.defaults());
        Path stateDir = dir.resolve("streams").resolve("verifier");
        try (Pipeline p = Pipeline.start(kafka.bootstrapServers(), dir.resolve("streams"), 2, ts, check, v -> {})) {
            p.stopVerifier();
            // a former owner that stopped responding still holds the store's lock
            try (RocksDbCollectedWrites stuck = new RocksDbCollectedWrites(stateDir.resolve("cobra-verifier-0").resolve("collected-writes"), false)) {
                List<Verdict> next = new CopyOnWriteArrayList<>();
                // (it waits -Dcobra.storeLockWaitMillis for the lock: 3 s in the build's tests, 60 s in service)
                VerifierService owner = new VerifierService(VerifierService.Settings.defaults(kafka.bootstrapServers()).withState(stateDir, 2), check, next::add);
                Thread t = new Thread(owner::run, "new-owner");
                t.start();
                try {
                    long second = run("blindw-rm", null, 4, 2000);
                    long deadline = System.nanoTime() + 120_000_000_000L;
                    while (covered(next) < second && System.nanoTime() < deadline) Thread.sleep(100);
                    assertEquals(second, covered(next), "the new owner works with a store of its own: " + next);
                    for (Verdict v : next) assertEquals(Outcome.ACCEPT, v.getOutcome(), v.getReason());
                } finally {
                    owner.stop();
                    t.join(30_000);
                }
            }
        }
    }

    static long covered(List<Verdict> vs) {
        if (vs.isEmpty()) return 0;
        Verdict last = vs.get(vs.size() - 1);
        return last.getCheckedTxns() + last.getPendingTxns();
    }
}
