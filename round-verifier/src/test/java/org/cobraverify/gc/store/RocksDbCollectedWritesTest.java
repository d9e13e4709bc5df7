package org.cobraverify.gc.store;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.cobraverify.gc.CollectedWrites.Fate;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundResult;
import org.cobraverify.rounds.RoundSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.cobraverify.testkit.Txns.txn;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The on-disk collected writes: exact within the horizon, bounded beyond it (whole generations dropped), kept
 * across a reopen; and what the verifier says about a read of a write it no longer remembers (unknown).
 */
class RocksDbCollectedWritesTest {
    @TempDir
    Path dir;

    static final long HORIZON = 8_000, SPAN = HORIZON / Generations.COUNT;

    static Entry entry(String writer, long round) { return new Entry(writer, "later", Fate.SUPERSEDED, round, 0); }

    @Test
    void writesAreRememberedWithinTheHorizonAndForgottenBeyondIt() {
        AtomicLong now = new AtomicLong(1_000_000);
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("cw"), false, HORIZON, now::get)) {
            s.put("x", "old", entry("T1", 1));
            assertNull(s.horizonNote(), "nothing forgotten yet");
            // a write every half generation for a horizon and a half
            for (int i = 0; i < 3 * Generations.COUNT; i++) {
                now.addAndGet(SPAN / 2);
                s.put("y", "v" + i, entry("U" + i, 2 + i));
                assertTrue(s.generationCount() <= Generations.COUNT + 2, "generations: " + s.generationCount());
            }
            assertNull(s.get("x", "old"), "collected more than a horizon ago: forgotten");
            assertEquals(25, s.size(), "size counts every write collected");
            assertTrue(s.forgotten() >= 1, "forgotten: " + s.forgotten());
            assertNotNull(s.horizonNote());
            // within the horizon: every one of them
            for (int i = 3 * Generations.COUNT - 1; i >= 0; i--) {
                long age = (3L * Generations.COUNT - 1 - i) * SPAN / 2;
                if (age <= HORIZON) assertEquals("U" + i, s.get("y", "v" + i).writer(), "collected " + age + " ms ago");
            }
        }
    }

    @Test
    void whatWasSyncedSurvivesAReopenWithItsGenerations() {
        AtomicLong now = new AtomicLong(5_000);
        Path p = dir.resolve("cw");
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(p, false, HORIZON, now::get)) {
            s.put("x", "a", entry("T1", 1));
            now.addAndGet(2 * SPAN);
            s.put("x", "b", entry("T2", 2));
            s.sync();
        }
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(p, false, HORIZON, now::get)) {
            assertEquals("T1", s.get("x", "a").writer());
            assertEquals("T2", s.get("x", "b").writer());
            assertEquals(2, s.generationCount(), "the generations and their start times came back");
            now.addAndGet(HORIZON + SPAN);
            s.put("x", "c", entry("T3", 3));
            assertNull(s.get("x", "a"), "the first generation is dropped by the clock, after a reopen too");
            assertEquals("T2", s.get("x", "b").writer(), "a generation goes a horizon after the next one started (b's just did)");
            assertEquals("T3", s.get("x", "c").writer());
        }
    }

    /** A read of a write the store has forgotten waits for a writer like any unseen write, then is unknown (never a reject). */
    @Test
    void aReadOfAForgottenWriteEndsUnknownNamingTheHorizon() {
        AtomicLong now = new AtomicLong(0);
        CollectedWrites store = new RocksDbCollectedWrites(dir.resolve("cw"), false, HORIZON, now::get);
        store.put("x", "gone", entry("W", 0));
        now.addAndGet(SPAN);
        store.put("y", "next", entry("V", 1)); // the next generation starts
        now.addAndGet(HORIZON + 1);
        store.put("y", "later", entry("V2", 2)); // a horizon after it started, a collection drops the first
        assertNull(store.get("x", "gone"));
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), store)) {
            v.add(txn("R", "A", 1, 1, false, "r x gone"));
            RoundResult r = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.ACCEPT, r.outcome(), "waiting is not yet a verdict: " + r.reason());
            for (int i = 0; i < RoundSettings.defaults().pendingRoundsLimit() && r.outcome() == Verdict.Outcome.ACCEPT; i++)
                r = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.UNKNOWN, r.outcome(), r.reason());
            assertTrue(r.reason().contains("no longer remembers"), r.reason());
        }
    }

    /**
     * Frontier logs outlive every generation (a key's latest write must be known for as long as the key exists), are
     * found again after a reopen (one by one and in a batch), and only a bounded number of them is on the heap.
     */
    @Test
    void frontierLogsOutliveTheHorizonAndAReopenWithABoundedCache() {
        AtomicLong now = new AtomicLong(1_000_000);
        java.util.function.Predicate<CollectedWrites.FrontierEntry> all = e -> true;
        int keys = FrontierLogStore.CACHE + 1000;
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("f"), false, HORIZON, now::get)) {
            assertFalse(s.hasFrontiers());
            for (int k = 0; k < keys; k++) s.appendFrontier("k" + k, new CollectedWrites.FrontierEntry("v" + k, "T" + k, 1, 0), all, 1);
            s.appendFrontier("k0", new CollectedWrites.FrontierEntry("v0'", "U0", 2, 0), all, 2);
            assertTrue(s.frontierCacheSize() <= FrontierLogStore.CACHE, "cached " + s.frontierCacheSize());
            // three horizons pass: every generation is dropped, the frontier logs are not
            for (int i = 0; i < 3 * Generations.COUNT; i++) {
                now.addAndGet(SPAN);
                s.put("y", "v" + i, entry("U" + i, 3 + i));
            }
            assertEquals("v" + (keys - 1), s.frontierLog("k" + (keys - 1)).get(0).value());
            s.sync();
        }
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("f"), false, HORIZON, now::get)) {
            assertTrue(s.hasFrontiers(), "a reopened store knows it holds frontier logs");
            assertEquals(1, s.frontierLog("k0").stream().filter(e -> e.incarnation() >= 0).count(),
                    "of entries of round 2 or earlier only the latest is kept (and a marker): " + s.frontierLog("k0"));
            assertEquals("v0'", s.frontierLog("k0").get(s.frontierLog("k0").size() - 1).value());
            assertEquals("T5", s.frontierLog("k5").get(0).writer());
            assertTrue(s.frontierLog("never").isEmpty());
            // a batched lookup of more logs than the cache holds: bounded, and what it cached is what single lookups read
            java.util.List<String> ask = new java.util.ArrayList<>();
            for (int k = 0; k < keys; k += 3) ask.add("k" + k);
            ask.add("never");
            s.prefetchFrontierLogs(ask);
            assertTrue(s.frontierCacheSize() <= FrontierLogStore.CACHE, "cached " + s.frontierCacheSize());
            assertEquals("T" + (keys - 1) / 3 * 3, s.frontierLog("k" + (keys - 1) / 3 * 3).get(0).writer());
            assertTrue(s.frontierLog("never").isEmpty());
            // the logs of many keys at once, more than the cache holds: each what a single lookup reads
            java.util.List<java.util.List<CollectedWrites.FrontierEntry>> many = s.frontierLogs(ask);
            assertEquals(ask.size(), many.size());
            for (int i = 0; i < ask.size(); i += 97) assertEquals(s.frontierLog(ask.get(i)), many.get(i), ask.get(i));
            assertEquals("T" + (keys - 1) / 3 * 3, many.get(ask.size() - 2).get(0).writer());
            assertTrue(many.get(ask.size() - 1).isEmpty(), "never");
            // a log appended and not yet written out is read back by a batched lookup too (the batch is written first)
            s.appendFrontier("fresh", new CollectedWrites.FrontierEntry("vf", "TF", 3, 0), all, 3);
            evictAll(s); // "fresh" too
            assertFalse(s.frontierCached("fresh"), "the lookup below must read it from disk");
            assertEquals("TF", s.frontierLogs(java.util.List.of("fresh")).get(0).get(0).writer());
            s.prefetchFrontierLogs(java.util.List.of("fresh"));
            assertEquals("TF", s.frontierLog("fresh").get(0).writer());
            // and by a single lookup: a log evicted while its write waits in the batch is written out before it is read
            s.appendFrontier("fresh2", new CollectedWrites.FrontierEntry("vg", "TG", 4, 0), all, 4);
            evictAll(s); // "fresh2" too, while its write waits in the batch
            assertFalse(s.frontierCached("fresh2"), "the lookup below must read it from disk");
            assertEquals("TG", s.frontierLog("fresh2").get(0).writer());
        }
    }

    /**
     * Write-back on disk: with a cache of 16 logs, 500 keys appended to three times each (so most changed logs are evicted,
     * some more than once) and the store closed without a sync: a reopened store reads every key's latest log, those
     * evicted (written back then) and those still cached at the close (written back by it).
     */
    @Test
    void changedFrontierLogsAreWrittenBackWhenEvictedAndOnClose() {
        AtomicLong now = new AtomicLong(1_000_000);
        java.util.function.Predicate<CollectedWrites.FrontierEntry> all = e -> true;
        int keys = 500;
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("wb"), false, HORIZON, now::get, 16, 64, 2)) {
            for (int round = 1; round <= 3; round++)
                for (int k = 0; k < keys; k++) s.appendFrontier("k" + k, new CollectedWrites.FrontierEntry("v" + k + "." + round, "T" + k + "." + round, round, 0), all, round);
            assertTrue(s.frontierCacheSize() <= 16, "cached " + s.frontierCacheSize());
            // the last keys appended to are cached, changed: looked up (which evicts nothing), and left for the close to write
            for (int k = keys - 10; k < keys; k++) {
                assertTrue(s.frontierCached("k" + k), "k" + k);
                assertEquals("T" + k + ".3", latest(s.frontierLog("k" + k)).writer(), "k" + k);
            }
        }
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("wb"), false, HORIZON, now::get, 16, 64, 2)) {
            java.util.List<String> ask = new java.util.ArrayList<>();
            for (int k = 0; k < keys; k++) ask.add("k" + k);
            java.util.List<java.util.List<CollectedWrites.FrontierEntry>> logs = s.frontierLogs(ask);
            for (int k = 0; k < keys; k++) assertEquals("T" + k + ".3", latest(logs.get(k)).writer(), "k" + k + " after a reopen");
            // the superseded entries went to the generations as collected writes, found there and not in the logs
            assertEquals("T7.1", s.get("k7", "v7.1").writer());
        }
    }

    private static CollectedWrites.FrontierEntry latest(java.util.List<CollectedWrites.FrontierEntry> log) {
        assertFalse(log.isEmpty(), "a log");
        return log.get(log.size() - 1);
    }

    /**
     * Looks up twice as many keys never looked up before as the cache holds: under the CLOCK rule every key cached before
     * is evicted (each is passed at most twice by the hand).
     */
    private static void evictAll(RocksDbCollectedWrites s) {
        java.util.List<String> absent = new java.util.ArrayList<>();
        for (int k = 0; k < 2 * FrontierLogStore.CACHE + 10; k++) absent.add("absent" + k);
        for (int from = 0; from < absent.size(); from += FrontierLogStore.PREFETCH_BATCH)
            s.prefetchFrontierLogs(absent.subList(from, Math.min(absent.size(), from + FrontierLogStore.PREFETCH_BATCH)));
    }

    /**
     * A batched lookup of collected writes answers what single lookups do, pair by pair: in the newest generation and an
     * older one, not yet written out of the batch, never collected, and more pairs than one multiGet takes.
     */
    @Test
    void aBatchedLookupAnswersAsSingleLookupsDo() {
        AtomicLong now = new AtomicLong(1_000_000);
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("b"), false, HORIZON, now::get)) {
            java.util.List<String> keys = new java.util.ArrayList<>(), values = new java.util.ArrayList<>();
            int n = FrontierLogStore.PREFETCH_BATCH + 500;
            for (int i = 0; i < n; i++) {
                if (i == n / 2) now.addAndGet(SPAN); // the second half in a newer generation
                if (i % 7 != 3) s.put("k" + (i % 100), "v" + i, entry("T" + i, i));
                keys.add("k" + (i % 100));
                values.add("v" + i);
            }
            keys.add("k1");
            values.add("never");
            assertTrue(s.generationCount() >= 2, "generations: " + s.generationCount());
            Entry[] all = s.getAll(keys, values); // the last puts are still in the batch
            assertEquals(keys.size(), all.length);
            int found = 0;
            for (int i = 0; i < keys.size(); i++) {
                Entry one = s.get(keys.get(i), values.get(i));
                assertEquals(one == null ? null : one.writer(), all[i] == null ? null : all[i].writer(), "pair " + i);
                if (i < n) assertEquals(i % 7 != 3, all[i] != null, "pair " + i);
                if (all[i] != null) found++;
            }
            assertEquals(n - (n + 3) / 7, found);
            assertEquals(0, s.getAll(java.util.List.of(), java.util.List.of()).length);
            // a write collected as data is answered from its key's cached frontier log, as the store has it
            s.put("fk", "fv", new Entry("TF", null, Fate.FRONTIER, 7, 2));
            s.appendFrontier("fk", new CollectedWrites.FrontierEntry("fv", "TF", 7, 2), e -> true, 7);
            Entry[] f = s.getAll(java.util.List.of("fk", "fk", "k1"), java.util.List.of("fv", "other", "v1"));
            assertEquals(s.get("fk", "fv"), f[0]);
            assertEquals(new Entry("TF", null, Fate.FRONTIER, 7, 2), f[0]);
            assertEquals(null, f[1]);
            assertEquals(s.get("k1", "v1"), f[2]);
        }
    }
}
