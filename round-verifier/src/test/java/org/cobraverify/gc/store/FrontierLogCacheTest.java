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

    @Test
    void holdsWhatWasLastPutAndNeverMoreThanItsCapacity() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int capacity = 1 + rnd.nextInt(64), keys = 1 + rnd.nextInt(4 * capacity);
            FrontierLogCache cache = new FrontierLogCache(capacity);
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
            FrontierLogCache cache = new FrontierLogCache(capacity);
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
        FrontierLogCache cache = new FrontierLogCache(4);
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
        FrontierLogCache cache = new FrontierLogCache(3);
        for (int k = 0; k < 10; k++) cache.put("k" + k, log("v" + k));
        cache.clear();
        assertEquals(0, cache.size());
        assertNull(cache.get("k9"));
        cache.put("x", log("x"));
        assertEquals("x", cache.get("x").get(0).value());
    }
}
