package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.testkit.Histories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frontier writers collected as data (docs/DESIGN.md §7.9), on a serializable history with many keys written once or
 * twice (a simulated serial store, 24 sessions, fences every 20 transactions), with one transaction planted at the end
 * of a session. Each case holds rounds to one-shot checking of the whole history, and the data must have been used:
 * the key the planted transaction touches had its frontier writer collected as data before the planted one arrived.
 * <ul>
 *   <li>a read of the latest value of a key written once, long ago: accepted;</li>
 *   <li>a read of the first of two values of a key, both collected as data: a stale read, rejected;</li>
 *   <li>a read of the initial value of a key written long ago: rejected;</li>
 *   <li>a transaction that writes such a key and then reads the frontier value: rejected;</li>
 *   <li>a verifier restarted from a checkpoint (RocksDB on disk, an earlier incarnation's later log entries ignored)
 *       decides the first two cases as the uninterrupted one.</li>
 * </ul>
 * With {@link GarbageCollection.Rules#FRONTIER_KEPT} nothing is collected as data, and the same verdicts come back.
 */
class FrontierAsDataTest {
    static final History CLEAN = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(24, 1000, 30_000, 3, 0.5, 0, 0),
            new Random(25), false, 20);

    /** A key written exactly {@code writes} times, all in the first fifth of the history; its writes' values in order. */
    static List<String> keyWritten(int writes) {
        java.util.Map<String, List<String>> values = new java.util.LinkedHashMap<>();
        java.util.Map<String, Integer> lastAt = new java.util.HashMap<>();
        for (int t = 0; t < CLEAN.size(); t++)
            for (int op = CLEAN.opStart(t); op < CLEAN.opEnd(t); op++) {
                String k = String.valueOf(CLEAN.keyName(CLEAN.key(op)));
                if (k.equals(SimulatedStore.FENCE_KEY)) continue;
                if (CLEAN.kind(op) == History.WRITE) {
                    values.computeIfAbsent(k, x -> new ArrayList<>()).add(String.valueOf(CLEAN.valueName(CLEAN.value(op))));
                }
                lastAt.merge(k, t, Math::max);
            }
        for (java.util.Map.Entry<String, List<String>> e : values.entrySet()) {
            List<String> v = e.getValue();
            if (v.size() == writes && lastAt.get(e.getKey()) < CLEAN.size() / 5) {
                List<String> out = new ArrayList<>();
                out.add(e.getKey());
                out.addAll(v);
                return out;
            }
        }
        throw new AssertionError("no key written " + writes + " times early");
    }

    /** The clean history with one committed transaction appended to the last session, its operations written by {@code ops}. */
    static History planted(Consumer<HistoryBuilder> ops) { return Histories.withAppended(CLEAN, "planted", ops); }

    record Outcome(Verdict.Outcome rounds, String reason, long frontierRecords, int retainedMax) {}

    static Outcome inRounds(History h, GarbageCollection.Rules rules, CollectedWrites store) {
        RoundSettings s = RoundSettings.defaults().withGcRules(rules);
        try (IncrementalVerifier v = new IncrementalVerifier(s, store)) {
            RoundsRun run = HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, v, null);
            return new Outcome(run.last().outcome(), run.last().reason(), v.frontierRecordsCollected(), run.retainedMax());
        }
    }

    static void agrees(History h, Verdict.Outcome expected) {
        assertEquals(expected, Checker.check(h).outcome(), "one-shot");
        Outcome sound = inRounds(h, GarbageCollection.Rules.SOUND, new InMemoryCollectedWrites());
        assertEquals(expected, sound.rounds(), sound.reason());
        assertTrue(sound.frontierRecords() > 1000, "frontier writes collected as data: " + sound.frontierRecords());
        Outcome kept = inRounds(h, GarbageCollection.Rules.FRONTIER_KEPT, new InMemoryCollectedWrites());
        assertEquals(expected, kept.rounds(), kept.reason());
        assertEquals(0, kept.frontierRecords());
        assertTrue(sound.retainedMax() < kept.retainedMax(), "retained at most " + sound.retainedMax() + " with frontier records, "
                + kept.retainedMax() + " without");
    }

    @Test
    void aReadOfALongCollectedFrontierValueIsAccepted() {
        List<String> k = keyWritten(1);
        agrees(planted(b -> b.read(b.key(k.get(0)), b.value(k.get(1)))), Verdict.Outcome.ACCEPT);
    }

    @Test
    void aReadOfASupersededFrontierRecordIsAStaleRead() {
        List<String> k = keyWritten(2);
        agrees(planted(b -> b.read(b.key(k.get(0)), b.value(k.get(1)))), Verdict.Outcome.REJECT);
    }

    @Test
    void aReadOfTheInitialValueOfAKeyWrittenLongAgoIsRejected() {
        List<String> k = keyWritten(1);
        agrees(planted(b -> b.read(b.key(k.get(0)), History.NIL)), Verdict.Outcome.REJECT);
    }

    @Test
    void aReaderThatWroteTheKeyItselfCannotReadTheFrontierValue() {
        List<String> k = keyWritten(1);
        agrees(planted(b -> {
            b.write(b.key(k.get(0)), b.value("planted-own"));
            b.read(b.key(k.get(0)), b.value(k.get(1)));
        }), Verdict.Outcome.REJECT);
    }

    /**
     * {@code h} with a committed transaction {@code id} inserted after transaction {@code after}, in its session (so it
     * is delivered in that transaction's round, not the last one), its operations written by {@code ops}.
     */
    static History withInserted(History h, int after, String id, Consumer<HistoryBuilder> ops) {
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            b.beginCopyAsText(h, t);
            b.end();
            if (t != after) continue;
            b.begin(id, b.session(String.valueOf(h.sessionName(h.session(t)))), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            ops.accept(b);
            b.end();
        }
        return b.build();
    }

    /** The first non-fence transaction at or after {@code from} whose session does not end there (a fence follows it later). */
    static int midSessionTxn(History h, int from) {
        for (int t = from; t < h.size(); t++) {
            boolean fence = false;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) fence |= SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(h.key(op))));
            if (!fence) return t;
        }
        throw new AssertionError("no transaction after " + from);
    }

    /**
     * Isolated reads (docs/DESIGN.md §7.9): a read-modify-write of a key whose frontier value is long collected, alone
     * on the key in its round, gets no synthetic writer. A second read-modify-write of the same value, rounds later, is
     * a lost update that rounds must still reject; a later read of the first one's write is accepted. Both agree with
     * one-shot checking and with frontier writers kept, and the first read was left isolated.
     */
    @Test
    void anIsolatedReadModifyWriteStillMeetsALaterLostUpdate() {
        List<String> k = keyWritten(1);
        int mid = midSessionTxn(CLEAN, CLEAN.size() / 2);
        Consumer<HistoryBuilder> first = b -> {
            b.read(b.key(k.get(0)), b.value(k.get(1)));
            b.write(b.key(k.get(0)), b.value("isolated-rmw"));
        };
        History lost = Histories.withAppended(withInserted(CLEAN, mid, "first", first), "second", b -> {
            b.read(b.key(k.get(0)), b.value(k.get(1)));
            b.write(b.key(k.get(0)), b.value("lost-update"));
        });
        agrees(lost, Verdict.Outcome.REJECT);
        History later = Histories.withAppended(withInserted(CLEAN, mid, "first", first), "second", b -> {
            b.read(b.key(k.get(0)), b.value("isolated-rmw"));
            b.write(b.key(k.get(0)), b.value("after-it"));
        });
        agrees(later, Verdict.Outcome.ACCEPT);
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            HistoryRounds.run(lost, 1000, SimulatedStore.FENCE_KEY, v, null);
            assertTrue(v.isolatedKeysCount() > 0, "no key was isolated");
        }
    }

    /**
     * Chains from a frontier value (docs/DESIGN.md §7.9): two read-modify-writes in one round, the first of a key's long
     * collected frontier value, the second of the first's write, get no synthetic writer for the key. When they are
     * collected, the frontier value is superseded: a read of it at the end of the history is a stale read that rounds
     * reject, as one-shot checking does; a read of the chain's last write is accepted; a third read-modify-write of the
     * frontier value in the pair's round (a lost update) is rejected. All agree with frontier writers kept, and the chain
     * rule was used (more keys chained than in the history without the pair).
     */
    @Test
    void aChainFromAFrontierValueStillMeetsStaleReadsAndLostUpdates() {
        List<String> k = keyWritten(1);
        int mid = midSessionTxn(CLEAN, CLEAN.size() / 2);
        History pair = withInserted(withInserted(CLEAN, mid, "first", b -> {
            b.read(b.key(k.get(0)), b.value(k.get(1)));
            b.write(b.key(k.get(0)), b.value("chain-1"));
        }), mid + 1, "second", b -> {
            b.read(b.key(k.get(0)), b.value("chain-1"));
            b.write(b.key(k.get(0)), b.value("chain-2"));
        });
        History stale = Histories.withAppended(pair, "stale", b -> b.read(b.key(k.get(0)), b.value(k.get(1))));
        agrees(stale, Verdict.Outcome.REJECT);
        History later = Histories.withAppended(pair, "later", b -> b.read(b.key(k.get(0)), b.value("chain-2")));
        agrees(later, Verdict.Outcome.ACCEPT);
        // a lost update in the pair's round: a third read-modify-write of the frontier value (two readers of it: no chain)
        History lost = withInserted(pair, mid + 2, "third", b -> {
            b.read(b.key(k.get(0)), b.value(k.get(1)));
            b.write(b.key(k.get(0)), b.value("lost"));
        });
        agrees(lost, Verdict.Outcome.REJECT);
        assertTrue(chainedKeys(later) > chainedKeys(Histories.withAppended(CLEAN, "later", b -> b.read(b.key(k.get(0)), b.value(k.get(1))))),
                "the pair was not chained");
    }

    static long chainedKeys(History h) {
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, v, null);
            return v.chainedKeysCount();
        }
    }

    @Test
    void aVerifierRestartedFromACheckpointDecidesFrontierReadsAsTheUninterruptedOne(@TempDir Path dir) {
        List<String> once = keyWritten(1), twice = keyWritten(2);
        History current = planted(b -> b.read(b.key(once.get(0)), b.value(once.get(1))));
        History stale = planted(b -> b.read(b.key(twice.get(0)), b.value(twice.get(1))));
        assertEquals(Verdict.Outcome.ACCEPT, restarted(current, dir.resolve("a")));
        assertEquals(Verdict.Outcome.REJECT, restarted(stale, dir.resolve("b")));
    }

    /**
     * A verifier resumed from a checkpoint taken after frontier writes were collected as data, into a store without their
     * frontier logs (a replay, or a verifier that lost its state directory), accepts nothing from then on: it cannot tell
     * a read of a key's latest value from a stale one, nor a read of its initial value from a legitimate one.
     */
    @Test
    void aVerifierResumedWithoutTheFrontierLogsAcceptsNothing(@TempDir Path dir) {
        List<String> once = keyWritten(1);
        History h = planted(b -> b.read(b.key(once.get(0)), History.NIL)); // a violation the logs would show
        RoundSettings s = RoundSettings.defaults();
        List<VerifierCheckpoint> records = new ArrayList<>();
        int[] round = {0};
        try (IncrementalVerifier first = new IncrementalVerifier(s, new RocksDbCollectedWrites(dir.resolve("disk"), false))) {
            HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, first, r -> {
                if (round[0]++ == 8) records.addAll(CheckpointTest.wireRoundTrip(first.checkpoint(), 8));
            });
        }
        try (IncrementalVerifier second = new IncrementalVerifier(s, new RocksDbCollectedWrites(dir.resolve("empty"), false))) {
            second.restore(CheckpointTest.fromRecords(records), 1);
            RoundsRun run = HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, second, null, 9);
            RoundResult first = run.rounds().get(0);
            assertEquals(Verdict.Outcome.UNKNOWN, first.outcome(), first.reason());
            assertTrue(first.reason().contains("without their frontier logs"), first.reason());
            for (RoundResult r : run.rounds()) assertNotEquals(Verdict.Outcome.ACCEPT, r.outcome(), "round " + r.round());
        }
    }

    /**
     * The first incarnation checkpoints after the round in the middle, runs on to the end (its later log entries land
     * on the disk both share) and dies; the second resumes from the checkpoint on the same disk and decides the rest.
     */
    /**
     * A frontier writer collected as data while an older writer of its key stays (docs/DESIGN.md §7.9, "Superseded
     * writes of staying writers"): the older write is collected, and a verifier restarted from a checkpoint taken then
     * (RocksDB on disk) rejects a later read of it as stale, as one-shot checking does, and accepts a later read of the
     * key's latest value. The checkpoint must carry the mark: without it the restored writer index would hold the older
     * write again and the read would pass.
     */
    @Test
    void aWriteCollectedWhileItsWriterStaysIsAStaleReadAfterARestart(@TempDir Path dir) {
        RoundSettings s = RoundSettings.defaults();
        List<VerifierCheckpoint> records = new ArrayList<>();
        java.util.Map<String, java.util.Map<String, String>> marks = new java.util.HashMap<>();
        int[] round = {0}, at = {-1};
        try (IncrementalVerifier first = new IncrementalVerifier(s, new RocksDbCollectedWrites(dir.resolve("scan"), false))) {
            HistoryRounds.run(CLEAN, 1000, SimulatedStore.FENCE_KEY, first, r -> {
                int k = round[0]++;
                if (at[0] < 0 && !first.collectedWritesOfStayingWriters().isEmpty()) {
                    at[0] = k;
                    marks.putAll(first.collectedWritesOfStayingWriters());
                }
            });
        }
        assertTrue(at[0] >= 0, "no write was collected while its writer stayed");
        // one marked write: its writer, key and value (the writer's last write of the key)
        String writer = marks.keySet().iterator().next(), key = marks.get(writer).keySet().iterator().next();
        String value = null;
        for (int t = 0; t < CLEAN.size(); t++) {
            if (!CLEAN.name(t).equals(writer)) continue;
            for (int op = CLEAN.opStart(t); op < CLEAN.opEnd(t); op++)
                if (CLEAN.kind(op) == History.WRITE && String.valueOf(CLEAN.keyName(CLEAN.key(op))).equals(key)) value = String.valueOf(CLEAN.valueName(CLEAN.value(op)));
        }
        assertNotNull(value, writer + " writes " + key);
        String latest = null;
        for (int op = 0; op < CLEAN.opCount(); op++)
            if (CLEAN.kind(op) == History.WRITE && String.valueOf(CLEAN.keyName(CLEAN.key(op))).equals(key)) latest = String.valueOf(CLEAN.valueName(CLEAN.value(op)));
        String v = value, l = latest;
        History stale = planted(b -> b.read(b.key(key), b.value(v)));
        History current = planted(b -> b.read(b.key(key), b.value(l)));
        assertEquals(Verdict.Outcome.REJECT, Checker.check(stale).outcome(), "one-shot on the stale read");
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(current).outcome(), "one-shot on the current read");
        assertEquals(Verdict.Outcome.REJECT, restartedAt(stale, dir.resolve("stale"), at[0]));
        assertEquals(Verdict.Outcome.ACCEPT, restartedAt(current, dir.resolve("current"), at[0]));
    }

    /** {@code h} in rounds, checkpointed after round {@code k} and resumed from there by a second verifier on the same disk. */
    static Verdict.Outcome restartedAt(History h, Path disk, int k) {
        RoundSettings s = RoundSettings.defaults();
        List<VerifierCheckpoint> records = new ArrayList<>();
        int[] round = {0};
        try (IncrementalVerifier first = new IncrementalVerifier(s, new RocksDbCollectedWrites(disk, false))) {
            HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, first, r -> {
                if (round[0]++ == k) {
                    assertFalse(first.collectedWritesOfStayingWriters().isEmpty(), "round " + k + " has writes collected while their writers stay");
                    records.addAll(CheckpointTest.wireRoundTrip(first.checkpoint(), k));
                }
            });
        }
        try (IncrementalVerifier second = new IncrementalVerifier(s, new RocksDbCollectedWrites(disk, false))) {
            second.restore(CheckpointTest.fromRecords(records), 1);
            assertFalse(second.collectedWritesOfStayingWriters().isEmpty(), "the checkpoint restored the marks");
            return HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, second, null, k + 1).last().outcome();
        }
    }

    static Verdict.Outcome restarted(History h, Path disk) {
        RoundSettings s = RoundSettings.defaults();
        List<VerifierCheckpoint> records = new ArrayList<>();
        int[] round = {0};
        int k = 8;
        long recordsBefore;
        try (IncrementalVerifier first = new IncrementalVerifier(s, new RocksDbCollectedWrites(disk, false))) {
            HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, first, r -> {
                if (round[0]++ == k) records.addAll(CheckpointTest.wireRoundTrip(first.checkpoint(), k));
            });
            recordsBefore = first.frontierRecordsCollected();
        }
        assertTrue(recordsBefore > 1000, "the first incarnation collected frontier writes as data: " + recordsBefore);
        try (IncrementalVerifier second = new IncrementalVerifier(s, new RocksDbCollectedWrites(disk, false))) {
            second.restore(CheckpointTest.fromRecords(records), 1);
            RoundsRun run = HistoryRounds.run(h, 1000, SimulatedStore.FENCE_KEY, second, null, k + 1);
            assertTrue(second.frontierRecordsCollected() > 0);
            return run.last().outcome();
        }
    }
}
