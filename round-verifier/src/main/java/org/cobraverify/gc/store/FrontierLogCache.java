package org.cobraverify.gc.store;

import java.util.List;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.history.Hashing;

/**
 * The frontier logs {@link RocksDbCollectedWrites} holds on the heap: at most {@code capacity} keys, evicted by the CLOCK
 * rule (a key looked up since the hand last passed it gets a second chance; one inserted and never looked up goes
 * first). One open-addressing table (linear probing, deletion by backward shift): a lookup probes an array of hashes and
 * reads the key and its log side by side ({@code entries[2i]}, {@code entries[2i + 1]}); nothing is allocated or relinked
 * per lookup. (It was an access-ordered {@code LinkedHashMap}: every hit relinked two nodes, and the lookups, four per
 * touched key of a round, were a tenth of a TPC-C round.)
 *
 * <p>Invariant: each occupied slot holds a distinct key, reachable from its home slot without crossing an empty one; a
 * slot is empty iff its hash is {@link #EMPTY}; at most {@code capacity} keys, and the table at most half full. What it
 * answers is what was last put for the key: a cache, so a key not held is for the caller to read from disk.
 */
final class FrontierLogCache {
    private static final int EMPTY = 0;
    private final int capacity;
    private Object[] entries;
    private int[] hashes;
    private boolean[] referenced;
    private int size, mask, hand;

    /** A cache of at most {@code capacity} logs (a power of two or not); its table starts small and grows to twice that. */
    FrontierLogCache(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        allocate(Math.min(1024, Integer.highestOneBit(capacity) << 2));
    }

    private void allocate(int slots) {
        entries = new Object[2 * slots];
        hashes = new int[slots];
        referenced = new boolean[slots];
        mask = slots - 1;
        hand = 0;
    }

    private static int hash(String key) {
        int h = Hashing.mix(key.hashCode());
        return h == EMPTY ? 1 : h;
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slot(String key, int h) {
        int i = h & mask;
        while (true) {
            int hi = hashes[i];
            if (hi == EMPTY) return i;
            if (hi == h) {
                Object k = entries[2 * i];
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
        referenced[i] = true;
        return (List<FrontierEntry>) entries[2 * i + 1];
    }

    /** Whether {@code key} is held (it does not count as looked up). */
    boolean containsKey(String key) { return hashes[slot(key, hash(key))] != EMPTY; }

    /** Holds {@code log} for {@code key}, replacing what was held; a new key, when {@code capacity} are held, evicts one first. */
    void put(String key, List<FrontierEntry> log) {
        int h = hash(key), i = slot(key, h);
        if (hashes[i] != EMPTY) {
            entries[2 * i + 1] = log;
            return;
        }
        if (size == capacity) {
            evictOne();
            i = slot(key, h); // the table moved under the eviction
        } else if ((size + 1) * 2 > hashes.length) {
            grow();
            i = slot(key, h);
        }
        entries[2 * i] = key;
        entries[2 * i + 1] = log;
        hashes[i] = h;
        referenced[i] = false;
        size++;
    }

    /** The hand sweeps: a key looked up since it last passed loses that mark, the first one without it goes. */
    private void evictOne() {
        while (true) {
            if (hashes[hand] != EMPTY) {
                if (!referenced[hand]) {
                    remove(hand); // the hand stays: the slot now holds what followed it, not yet swept
                    return;
                }
                referenced[hand] = false;
            }
            hand = (hand + 1) & mask;
        }
    }

    private void remove(int i) {
        size--;
        // backward shift: move later entries of the probe run into the hole unless their home lies cyclically after it
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (hashes[j] == EMPTY) break;
            int home = hashes[j] & mask;
            boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (stays) continue;
            entries[2 * i] = entries[2 * j];
            entries[2 * i + 1] = entries[2 * j + 1];
            hashes[i] = hashes[j];
            referenced[i] = referenced[j];
            i = j;
        }
        hashes[i] = EMPTY;
        entries[2 * i] = entries[2 * i + 1] = null;
        referenced[i] = false;
    }

    private void grow() {
        Object[] e = entries;
        int[] hs = hashes;
        boolean[] ref = referenced;
        allocate(hs.length * 2);
        for (int i = 0; i < hs.length; i++) {
            if (hs[i] == EMPTY) continue;
            int j = hs[i] & mask;
            while (hashes[j] != EMPTY) j = (j + 1) & mask;
            entries[2 * j] = e[2 * i];
            entries[2 * j + 1] = e[2 * i + 1];
            hashes[j] = hs[i];
            referenced[j] = ref[i];
        }
    }

    int size() { return size; }

    void clear() {
        allocate(Math.min(1024, Integer.highestOneBit(capacity) << 2));
        size = 0;
    }
}
