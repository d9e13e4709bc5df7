package org.cobraverify.gc.store;

import java.util.List;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.history.Hashing;
import org.cobraverify.history.OpenAddressing;

/**
 * The frontier logs {@link RocksDbCollectedWrites} holds on the heap: at most {@code capacity} keys, evicted by the CLOCK
 * rule (a key looked up since the hand last passed it gets a second chance; one inserted and never looked up goes
 * first). One open-addressing table ({@link OpenAddressing}: linear probing, deletion by backward shift): a lookup probes
 * an array of hashes and reads the key, its log and its mark side by side ({@code entries[3i]}, {@code entries[3i + 1]},
 * {@code entries[3i + 2]}: non-null when looked up since the hand passed); nothing is allocated or relinked per lookup.
 * (It was an access-ordered {@code LinkedHashMap}: every hit relinked two nodes, and the lookups, four per touched key
 * of a round, were a tenth of a TPC-C round.)
 *
 * <p>Invariant: each occupied slot holds a distinct key, reachable from its home slot without crossing an empty one
 * ({@link OpenAddressing}'s contract); at most {@code capacity} keys, and the table at most half full. What it
 * answers is what was last put for the key: a cache, so a key not held is for the caller to read from disk.
 */
final class FrontierLogCache {
    private static final int EMPTY = OpenAddressing.EMPTY;
    /** Per slot: key, log, looked-up mark. */
    private static final int STRIDE = 3;
    private final int capacity;
    private Object[] entries;
    private int[] hashes;
    private int size, mask, hand;
    /**
     * The slot {@link #get} last found a key in (-1: none): a {@link #put} of the same key object, the append that follows
     * the lookup, replaces its log there without probing again. Checked by identity before use; any move resets it.
     */
    private int lastFound = -1;

    /** A cache of at most {@code capacity} logs (a power of two or not); its table starts small and grows to twice that. */
    FrontierLogCache(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        allocate(Math.min(1024, Integer.highestOneBit(capacity) << 2));
    }

    private void allocate(int slots) {
        entries = new Object[STRIDE * slots];
        hashes = new int[slots];
        mask = slots - 1;
        hand = 0;
        lastFound = -1;
    }

    private static int hash(String key) {
        return OpenAddressing.stored(Hashing.mix(key.hashCode()));
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slot(String key, int h) {
        int i = h & mask;
        while (true) {
            int hi = hashes[i];
            if (hi == EMPTY) return i;
            if (hi == h) {
                Object k = entries[STRIDE * i];
                if (k == key || k.equals(key)) return i;
            }
            i = (i + 1) & mask;
        }
    }

    /** The log last put for {@code key}, or null when it is not held (it counts as looked up). */
    @SuppressWarnings("unchecked")
    List<FrontierEntry> get(String key) {
        int i = slot(key, hash(key));
        if (hashes[i] == EMPTY) return null;
        if (entries[STRIDE * i + 2] == null) entries[STRIDE * i + 2] = Boolean.TRUE; // (a store only when it changes: each dirties a card)
        lastFound = i;
        return (List<FrontierEntry>) entries[STRIDE * i + 1];
    }

    /** Whether {@code key} is held (it does not count as looked up). */
    boolean containsKey(String key) { return hashes[slot(key, hash(key))] != EMPTY; }

    /** Holds {@code log} for {@code key}, replacing what was held; a new key, when {@code capacity} are held, evicts one first. */
    void put(String key, List<FrontierEntry> log) {
        if (lastFound >= 0 && entries[STRIDE * lastFound] == key) {
            entries[STRIDE * lastFound + 1] = log;
            return;
        }
        int h = hash(key), i = slot(key, h);
        if (hashes[i] != EMPTY) {
            entries[STRIDE * i + 1] = log;
            return;
        }
        if (size == capacity) {
            evictOne();
            i = slot(key, h); // the table moved under the eviction
        } else if ((size + 1) * 2 > hashes.length) {
            grow();
            i = slot(key, h);
        }
        entries[STRIDE * i] = key;
        entries[STRIDE * i + 1] = log; // not marked: a key put and never looked up goes first
        hashes[i] = h;
        size++;
    }

    /** The hand sweeps: a key looked up since it last passed loses that mark, the first one without it goes. */
    private void evictOne() {
        while (true) {
            if (hashes[hand] != EMPTY) {
                if (entries[STRIDE * hand + 2] == null) {
                    size--;
                    OpenAddressing.remove(hashes, entries, STRIDE, hand); // the hand stays: the slot now holds what followed it, not yet swept
                    lastFound = -1;
                    return;
                }
                entries[STRIDE * hand + 2] = null;
            }
            hand = (hand + 1) & mask;
        }
    }

    private void grow() {
        Object[] e = entries;
        int[] hs = hashes;
        allocate(hs.length * 2);
        OpenAddressing.rehash(hs, e, hashes, entries, STRIDE);
    }

    int size() { return size; }

    void clear() {
        allocate(Math.min(1024, Integer.highestOneBit(capacity) << 2));
        size = 0;
    }
}
