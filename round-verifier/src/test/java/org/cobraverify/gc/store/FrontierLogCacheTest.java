package org.cobraverify.gc.store;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.junit.jupiter.api.Test;

/**
 * {@link FrontierLogCache} against a plain {@link HashMap} of everything put (an independent implementation): what it
 * holds is what was last put for the key, it never holds more than its capacity, a key put and never looked up goes
 * before one looked up since the hand passed, and a full table keeps working as keys come and go (backward shift across
 * the table's end). Seeded: each seed's case reruns from the seed in the message.
 */
class FrontierLogCacheTest {
    private static List<FrontierEntry> log(String value) { return List.of(new FrontierEntry(value, "T" + value, 1, 0)); }

    /** The write-back of a cache whose logs are all put as read from disk: never called. */
    private static void neverChanged(String key, List<FrontierEntry> log) { fail("no log was changed, yet " + key + " was written back"); }

    /**
     * Write-back against a model: a "disk" map that receives what the cache writes back, and a map of the latest log put
     * for each key. At every step each key's latest log is in the cache or on the disk (nothing changed is lost to an
     * eviction); after {@link FrontierLogCache#writeBack} the disk holds every latest log and nothing is changed; and a key
     * changed many times between write-backs is written no more often than it is evicted or flushed, each time with its
     * latest log. Logs read from disk are put unchanged and never written back.
     */
    @Test
    void aChangedLogIsWrittenBackBeforeItLeavesAndOnlyThen() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int capacity = 1 + rnd.nextInt(64), keys = 1 + rnd.nextInt(4 * capacity);
            Map<String, List<FrontierEntry>> disk = new HashMap<>(), latest = new HashMap<>();
            long[] written = new long[1];
            long seedNow = seed;
            FrontierLogCache cache = new FrontierLogCache(capacity, (k, l) -> {
                assertSame(latest.get(k), l, "seed " + seedNow + ": " + k + " is written back with its latest log");
                disk.put(k, l);
                written[0]++;
            });
            long changes = 0, flushes = 0;
            for (int step = 0; step < 20_000; step++) {
                String k = new String("k" + rnd.nextInt(keys));
                int op = rnd.nextInt(100);
                if (op < 40) { // an append: looked up (read from disk if not held), then changed
                    if (cache.get(k) == null && disk.containsKey(k)) cache.put(k, disk.get(k));
                    List<FrontierEntry> l = log(k + "." + step);
                    latest.put(k, l);
                    cache.putChanged(k, l);
                    changes++;
                } else if (op < 99) { // a lookup, reading from disk what the cache does not hold
                    List<FrontierEntry> held = cache.get(k);
                    if (held == null && disk.containsKey(k)) cache.put(k, held = disk.get(k));
                    assertSame(latest.get(k), held, "seed " + seed + " step " + step + ": " + k);
                } else {
                    long before = written[0];
                    int n = cache.writeBack();
                    assertEquals(before + n, written[0]);
                    assertEquals(0, cache.changed(), "seed " + seed + " step " + step);
                    assertHoldsLatest(latest, disk, "seed " + seed + " step " + step + ": after a write-back");
                    flushes++;
                }
                assertTrue(cache.size() <= capacity, "seed " + seed + " step " + step);
            }
            cache.writeBack();
            assertHoldsLatest(latest, disk, "seed " + seed + ": after the last write-back");
            assertTrue(written[0] <= changes, "seed " + seed + ": " + written[0] + " writes for " + changes + " changes");
            if (keys <= capacity) assertTrue(written[0] <= (flushes + 1) * keys, "seed " + seed + ": with every key held, a key is written only by write-backs");
            cache.clear();
        }
    }

    private static void assertHoldsLatest(Map<String, List<FrontierEntry>> latest, Map<String, List<FrontierEntry>> disk, String when) {
        for (Map.Entry<String, List<FrontierEntry>> e : latest.entrySet())
            assertSame(e.getValue(), disk.get(e.getKey()), when + ", the disk holds " + e.getKey() + "'s latest log");
        assertEquals(latest.size(), disk.size(), when);
    }

    @Test
    void clearRefusesToLoseAChangedLog() {
        FrontierLogCache cache = new FrontierLogCache(4, (k, l) -> {});
        cache.putChanged("a", log("a"));
        assertThrows(IllegalStateException.class, cache::clear);
        assertEquals(1, cache.writeBack());
        cache.clear();
        assertEquals(0, cache.size());
    }

    @Test
    void holdsWhatWasLastPutAndNeverMoreThanItsCapacity() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int capacity = 1 + rnd.nextInt(64), keys = 1 + rnd.nextInt(4 * capacity);
            FrontierLogCache cache = new FrontierLogCache(capacity, FrontierLogCacheTest::neverChanged);
            Map<String, List<FrontierEntry>> reference = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                String k = new String("k" + rnd.nextInt(keys)); // equal strings, not the same references
                if (rnd.nextInt(3) == 0) {
                    List<FrontierEntry> l = log(k + "." + step);
                    cache.put(k, l);
                    reference.put(k, l);
                    assertSame(l, cache.get(k), "seed " + seed + " step " + step + ": a key just put is held");
                } else {
                    List<FrontierEntry> held = cache.get(k);
                    if (held != null) assertSame(reference.get(k), held, "seed " + seed + " step " + step + ": " + k);
                    assertEquals(held != null, cache.containsKey(k), "seed " + seed + " step " + step);
                }
                assertTrue(cache.size() <= capacity, "seed " + seed + " step " + step + ": " + cache.size() + " > " + capacity);
            }
            int held = 0;
            for (int k = 0; k < keys; k++) {
                List<FrontierEntry> l = cache.get("k" + k);
                if (l != null) { held++; assertSame(reference.get("k" + k), l, "seed " + seed + ": k" + k); }
            }
            assertEquals(cache.size(), held, "seed " + seed + ": every key it counts is found");
            assertEquals(Math.min(capacity, reference.size()), cache.size(), "seed " + seed + ": full once enough keys were put");
        }
    }

    /**
     * The append's pattern: a lookup, then a put of the same key object, sometimes with other keys put in between (which
     * evict and shift slots under the remembered one). Keys are the same objects throughout, so a put may take the slot
     * its last lookup found; what it answers must not change.
     */
    @Test
    void aPutAfterALookupOfTheSameKeyHoldsWhatWasPut() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int capacity = 1 + rnd.nextInt(64), keys = 1 + rnd.nextInt(4 * capacity);
            String[] names = new String[keys];
            for (int k = 0; k < keys; k++) names[k] = "k" + k;
            FrontierLogCache cache = new FrontierLogCache(capacity, FrontierLogCacheTest::neverChanged);
            Map<String, List<FrontierEntry>> reference = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                String k = names[rnd.nextInt(keys)];
                cache.get(k);
                for (int other = rnd.nextInt(3) == 0 ? rnd.nextInt(4) : 0; other > 0; other--) {
                    String o = names[rnd.nextInt(keys)];
                    List<FrontierEntry> l = log(o + "." + step + "." + other);
                    cache.put(o, l);
                    reference.put(o, l);
                }
                List<FrontierEntry> l = log(k + "." + step);
                cache.put(k, l);
                reference.put(k, l);
                assertSame(l, cache.get(k), "seed " + seed + " step " + step + ": a key just put is held");
                assertTrue(cache.size() <= capacity, "seed " + seed + " step " + step + ": " + cache.size() + " > " + capacity);
            }
            int held = 0;
            for (int k = 0; k < keys; k++) {
                List<FrontierEntry> l = cache.get(new String(names[k]));
                if (l != null) { held++; assertSame(reference.get(names[k]), l, "seed " + seed + ": k" + k); }
            }
            assertEquals(cache.size(), held, "seed " + seed + ": every key it counts is found");
            assertEquals(Math.min(capacity, reference.size()), cache.size(), "seed " + seed + ": full once enough keys were put");
        }
    }

    @Test
    void aKeyLookedUpSinceTheHandPassedOutlivesOneNeverLookedUp() {
        FrontierLogCache cache = new FrontierLogCache(4, FrontierLogCacheTest::neverChanged);
        for (String k : List.of("a", "b", "c", "d")) cache.put(k, log(k));
        cache.get("a");
        cache.get("c");
        cache.put("e", log("e")); // evicts b or d: the first, in table order from the hand, not looked up
        assertTrue(cache.containsKey("a") && cache.containsKey("c") && cache.containsKey("e"));
        assertTrue(cache.containsKey("b") != cache.containsKey("d"), "one of b and d went");
        for (String k : List.of("a", "c", "e")) cache.get(k); // looked up again: only the other of b and d is not
        cache.put("f", log("f"));
        for (String k : List.of("a", "c", "e", "f")) assertTrue(cache.containsKey(k), k);
        assertFalse(cache.containsKey("b") || cache.containsKey("d"), "b and d were never looked up after they were put");
        assertEquals(4, cache.size());
    }

    @Test
    void clearEmptiesItAndItFillsAgain() {
        FrontierLogCache cache = new FrontierLogCache(3, FrontierLogCacheTest::neverChanged);
        for (int k = 0; k < 10; k++) cache.put("k" + k, log("v" + k));
        cache.clear();
        assertEquals(0, cache.size());
        assertNull(cache.get("k9"));
        cache.put("x", log("x"));
        assertEquals("x", cache.get("x").get(0).value());
    }
}
