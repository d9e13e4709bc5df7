package org.cobraverify.gc.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.cobraverify.gc.CollectedWrites.Fate;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every collected write stays found, whichever way it was recorded: put, or appended to its key's frontier log as a
 * frontier write collected as data, which the log stands for until it drops the entry (pruned past {@code keepFrom},
 * rejected by {@code visible}, replaced by an import) and the store then puts. Both stores, {@link InMemoryCollectedWrites}
 * and {@link RocksDbCollectedWrites} (with a cache of four logs, so that logs are read back from disk, also while their
 * writes wait in a batch, and reopened midway), are held against a plain map of every write collected, each as it
 * was collected (the reference: what the stores answered when frontier writes were put as well), by {@code get} and by
 * {@code getAll}, pair by pair, after every step; and the disk's frontier logs against the memory's, key by key (the
 * cache's changed logs are written back when evicted, synced or closed: a close without a sync loses none). Seeded: a
 * failure names its seed and step.
 */
class CollectedWritesContractTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyCollectedWriteIsFoundAsItWasCollected(long seed) {
        check(seed, WriteBehind.BATCH_PUTS, WriteBehind.MAX_IN_FLIGHT, false);
    }

    /**
     * As above, with batches of one to three puts, so that most reads meet writes still in the batches handed to the writer
     * thread: with one or two batches in flight at most (the verifier waits for the oldest), and with the writer held back
     * for stretches of steps (every batch of the stretch in flight, and read from there), let go before a sync or a close.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16, 17, 18})
    void readsMeetWritesStillInFlight(long seed) {
        Random rnd = new Random(seed);
        check(seed, 1 + rnd.nextInt(3), 1 + rnd.nextInt(2), false);
        check(seed + 1000, 1 + rnd.nextInt(3), 100_000, true);
    }

    private void check(long seed, int batchPuts, int maxInFlight, boolean hold) {
        Random rnd = new Random(seed);
        java.util.concurrent.CountDownLatch[] held = {null};
        java.util.function.Consumer<RocksDbCollectedWrites> letGo = s -> {
            s.holdWrites(null);
            if (held[0] != null) held[0].countDown();
            held[0] = null;
        };
        Path where0 = dir.resolve("s" + seed);
        AtomicLong now = new AtomicLong(1_000);
        Map<String, Entry> reference = new HashMap<>();
        List<String[]> pairs = new ArrayList<>();
        InMemoryCollectedWrites memory = new InMemoryCollectedWrites();
        RocksDbCollectedWrites disk = new RocksDbCollectedWrites(where0, false, Long.MAX_VALUE / 2, now::get, 4, batchPuts, maxInFlight);
        try {
            int keys = 2 + rnd.nextInt(8);
            long round = 1;
            int values = 0, collected = 0;
            for (int step = 0; step < 400; step++) {
                String key = "k" + rnd.nextInt(keys), where = "seed " + seed + " (" + batchPuts + " puts a batch, " + maxInFlight
                        + " in flight" + (hold ? ", the writer held back at times" : "") + ") step " + step + " " + key;
                int op = rnd.nextInt(10);
                long keepFrom = round - rnd.nextInt(3);
                long hidden = rnd.nextInt(4) == 0 ? round - 1 - rnd.nextInt(2) : -1; // a restart: entries of incarnation 0 after it are not visible
                Predicate<FrontierEntry> visible = e -> hidden < 0 || e.incarnation() != 0 || e.round() <= hidden;
                if (op < 4) { // a collected write put, with its fate
                    String value = "v" + values++;
                    Fate fate = Fate.values()[rnd.nextInt(4)];
                    Entry e = new Entry("T" + step, fate == Fate.SUPERSEDED ? "S" + step : null, fate, round, rnd.nextInt(2));
                    memory.put(key, value, e);
                    disk.put(key, value, e);
                    reference.put(key + '\0' + value, e);
                    pairs.add(new String[] {key, value});
                    collected++;
                } else if (op < 8) { // a frontier write collected as data
                    String value = "v" + values++;
                    FrontierEntry f = new FrontierEntry(value, "F" + step, round, rnd.nextInt(2));
                    memory.appendFrontier(key, f, visible, keepFrom);
                    disk.appendFrontier(key, f, visible, keepFrom);
                    reference.put(key + '\0' + value, FrontierLog.asEntry(f));
                    pairs.add(new String[] {key, value});
                    collected++;
                } else if (op == 8) { // the frontier record superseded by a retained writer
                    FrontierEntry f = new FrontierEntry(null, "R" + step, round, 0);
                    memory.appendFrontier(key, f, visible, keepFrom);
                    disk.appendFrontier(key, f, visible, keepFrom);
                } else if (rnd.nextBoolean()) { // a published log imported, naming new writes
                    List<FrontierEntry> log = new ArrayList<>();
                    for (int i = rnd.nextInt(3); i > 0; i--) {
                        String value = "v" + values++;
                        FrontierEntry f = new FrontierEntry(value, "I" + step + "." + i, round, 0);
                        log.add(f);
                        reference.put(key + '\0' + value, FrontierLog.asEntry(f));
                        pairs.add(new String[] {key, value});
                    }
                    memory.importFrontierLog(key, log);
                    disk.importFrontierLog(key, log);
                } else if (rnd.nextInt(4) == 0) { // the store on disk closed (synced first or not) and opened again
                    letGo.accept(disk);
                    if (rnd.nextBoolean()) disk.sync();
                    disk.close();
                    disk = new RocksDbCollectedWrites(where0, false, Long.MAX_VALUE / 2, now::get, 4, batchPuts, maxInFlight);
                }
                if (hold && rnd.nextInt(10) == 0) { // the writer held back from now on, or let go
                    if (held[0] == null) { held[0] = new java.util.concurrent.CountDownLatch(1); disk.holdWrites(held[0]); }
                    else letGo.accept(disk);
                }
                if (rnd.nextInt(3) == 0) round++;
                now.addAndGet(1);
                // every pair, one by one and in a batch with pairs never written
                List<String> ks = new ArrayList<>(), vs = new ArrayList<>();
                List<Entry> expected = new ArrayList<>();
                for (String[] p : pairs) {
                    Entry want = reference.get(p[0] + '\0' + p[1]);
                    assertEquals(want, memory.get(p[0], p[1]), where + ": in memory, " + p[0] + " = " + p[1]);
                    if (rnd.nextInt(4) == 0) assertEquals(want, disk.get(p[0], p[1]), where + ": on disk, " + p[0] + " = " + p[1]);
                    ks.add(p[0]); vs.add(p[1]); expected.add(want);
                    if (rnd.nextInt(8) == 0) { ks.add(p[0]); vs.add("never" + step); expected.add(null); }
                }
                assertArrayEquals(expected.toArray(), memory.getAll(ks, vs), where + ": in memory, all");
                assertArrayEquals(expected.toArray(), disk.getAll(ks, vs), where + ": on disk, all");
                // every key's frontier log as the store in memory has it (the cache's changed logs written back when evicted,
                // synced or closed), one by one or in a batch
                List<String> logKeys = new ArrayList<>();
                for (int k = 0; k < keys; k++) logKeys.add("k" + k);
                List<List<FrontierEntry>> logs = rnd.nextBoolean() ? disk.frontierLogs(logKeys) : null;
                for (int k = 0; k < keys; k++)
                    assertEquals(memory.frontierLog("k" + k), logs != null ? logs.get(k) : disk.frontierLog("k" + k), where + ": k" + k + "'s frontier log");
            }
            assertEquals(collected, memory.size(), "seed " + seed + ": every write put or appended counted once (imported ones are not collected here)");
        } finally {
            letGo.accept(disk);
            memory.close();
            disk.close();
        }
    }
}
