package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.history.History;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.synth.SimulatedStore.Isolation;
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
    static String summary(IncrementalVerifier.RoundResult r) {
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
            IncrementalVerifier.Settings s = IncrementalVerifier.Settings.defaults().withCheck(opts);
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

    /** The checkpoint as it travels: records encoded and decoded by the wire format, in small chunks. */
    static List<VerifierCheckpoint> wireRoundTrip(IncrementalVerifier.Checkpoint c, long round) {
        List<VerifierCheckpoint> out = new ArrayList<>();
        int n = Math.max(1, (c.held().size() + 2) / 3);
        List<List<org.cobraverify.schemas.HeldTxn>> parts = new ArrayList<>();
        for (int i = 0; i < c.held().size(); i += 3) parts.add(c.held().subList(i, Math.min(c.held().size(), i + 3)));
        if (parts.isEmpty()) parts.add(List.of());
        for (int i = 0; i < parts.size(); i++) {
            VerifierCheckpoint r = VerifierCheckpoint.newBuilder().setVerifier("v").setRound(round).setInputOffset(0).setEpochAgree(0)
                    .setChunk(i).setChunks(parts.size()).setHeld(new ArrayList<>(parts.get(i))).setCore(i == 0 ? c.core() : null).build();
            out.add(WIRE.decode(WIRE.encode(r), VerifierCheckpoint.class));
        }
        assertEquals(n, out.size());
        return out;
    }

    static IncrementalVerifier.Checkpoint fromRecords(List<VerifierCheckpoint> records) {
        List<org.cobraverify.schemas.HeldTxn> held = new ArrayList<>();
        VerifierCore core = null;
        for (VerifierCheckpoint r : records) {
            held.addAll(r.getHeld());
            if (r.getCore() != null) core = r.getCore();
        }
        return new IncrementalVerifier.Checkpoint(held, core);
    }
}
