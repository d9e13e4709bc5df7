package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.synth.SimulatedStore.Isolation;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.api.Test;

/**
 * A verifier restored from a checkpoint (through its wire encoding) decides every later round as the
 * verifier that never stopped: two code paths, one uninterrupted and one that stops after round k, runs on
 * for a few rounds (collecting writes the restored one must not see), and resumes from round k's checkpoint
 * with the same collected-write store, as a restart on the same disk does.
 */
class CheckpointTest {
    static final WireFormat WIRE = WireFormat.standalone();

    /** What a round reports that a restart must reproduce. */
    static String summary(RoundResult r) {
        return r.round() + ":" + r.outcome() + " checked=" + r.checkedTxns() + " pending=" + r.pendingTxns() + " retained=" + r.retained()
                + " collected=" + r.collectedTotal() + (r.certificate() != null ? " " + r.certificate().kind() : "");
    }

    @Test
    void aRestoredVerifierDecidesLaterRoundsAsTheUninterruptedOne() {
        Random rnd = new Random(42);
        int compared = 0, withCollection = 0, rejects = 0;
        for (int run = 0; run < 300; run++) {
            Isolation iso = run % 3 == 0 ? Isolation.SNAPSHOT : Isolation.SERIAL;
            SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(3), 10 + rnd.nextInt(25), 2 + rnd.nextInt(5), 2 + rnd.nextInt(3),
                    0.25 + 0.5 * rnd.nextDouble(), 0.05, 0.02);
            History h = SimulatedStore.run(iso, w, rnd, false, 1 + rnd.nextInt(4));
            if (run % 4 == 1) h = RoundsAgainstOneShotPropertyTest.plantStaleRead(h, rnd);
            if (h == null) continue;
            CheckOptions opts = run % 5 == 0 ? CheckOptions.defaults().withStrict(2) : CheckOptions.defaults();
            RoundSettings s = RoundSettings.defaults().withCheck(opts);
            int roundSize = 1 + rnd.nextInt(8);
            List<String> straight = new ArrayList<>();
            try (IncrementalVerifier v = new IncrementalVerifier(s, new InMemoryCollectedWrites())) {
                HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, v, r -> straight.add(summary(r)));
            }
            if (straight.size() < 3) continue;
            int k = rnd.nextInt(straight.size() - 1); // checkpoint after round k
            InMemoryCollectedWrites disk = new InMemoryCollectedWrites();
            List<VerifierCheckpoint> records = new ArrayList<>();
            IncrementalVerifier first = new IncrementalVerifier(s, disk);
            int[] seen = {0};
            // the first incarnation runs past k (its later collections land in the shared store), then dies
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, first, r -> {
                if (seen[0]++ == k) records.addAll(wireRoundTrip(first.checkpoint(), k));
            });
            IncrementalVerifier second = new IncrementalVerifier(s, disk);
            second.restore(fromRecords(records), 1);
            List<String> resumed = new ArrayList<>();
            HistoryRounds.run(h, roundSize, SimulatedStore.FENCE_KEY, second, r -> resumed.add(summary(r)), k + 1);
            assertEquals(straight.subList(k + 1, straight.size()), resumed, "run " + run + " (" + iso + ", round size " + roundSize
                    + ", checkpoint after round " + k + " of " + straight.size() + ")");
            compared++;
            if (straight.get(k).contains("collected=0")) continue;
            withCollection++;
            if (straight.get(straight.size() - 1).contains("REJECT")) rejects++;
        }
        assertTrue(compared > 150, "compared " + compared);
        assertTrue(withCollection > 50, "checkpoints taken after a collection: " + withCollection);
        assertTrue(rejects > 5, "resumed runs that end in a reject: " + rejects);
    }

    /** The checkpoint as it travels: records cut by the service's chunking (tiny chunks), encoded and decoded by the wire format. */
    static List<VerifierCheckpoint> wireRoundTrip(RoundsCheckpoint c, long round) {
        List<VerifierCheckpoint> out = new ArrayList<>();
        for (VerifierCheckpoint r : RoundVerifier.chunk(c, "v", round, 0, 0, 64)) out.add(WIRE.decode(WIRE.encode(r), VerifierCheckpoint.class));
        return out;
    }

    static RoundsCheckpoint fromRecords(List<VerifierCheckpoint> records) {
        return RoundVerifier.unchunk(records);
    }
}
