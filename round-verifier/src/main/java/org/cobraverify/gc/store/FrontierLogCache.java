package org.cobraverify.gc.store;

import java.util.List;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.history.Hashing;
import org.cobraverify.history.OpenAddressing;

/**
 * The frontier logs {@link RocksDbCollectedWrites} holds on the heap: at most {@code capacity} keys, evicted by the CLOCK
 * rule (a key looked up since the hand last passed it gets a second chance; one inserted and never looked up goes
 * first). One open-addressing table ({@link OpenAddressing}: linear probing, deletion by backward shift): a lookup probes
 * an array of hashes and reads the key, its log and its marks side by side ({@code entries[4i]}, {@code entries[4i + 1]},
 * {@code entries[4i + 2]}: non-null when looked up since the hand passed, {@code entries[4i + 3]}: non-null when changed
 * and not written back); nothing is allocated or relinked per lookup.
 * (It was an access-ordered {@code LinkedHashMap}: every hit relinked two nodes, and the lookups, four per touched key
 * of a round, were a tenth of a TPC-C round.)
 *
 * <p>Write-back: a log put as changed ({@link #putChanged}) is the only copy of the key's latest log until it is written
 * back, through the {@link WriteBack} given at construction, when it is evicted or when {@link #writeBack} writes every
 * changed one (the store's sync, checkpoint mark and close). A key appended to again before either happens is written
 * once, not once per append: on 1M TPC-C transactions, 5.1M appends to 580k keys.
 *
 * <p>Invariant: each occupied slot holds a distinct key, reachable from its home slot without crossing an empty one
 * ({@link OpenAddressing}'s contract); at most {@code capacity} keys, and the table at most half full. What it
 * answers is what was last put for the key: a cache, so a key not held is for the caller to read from disk, and no
 * key leaves it changed without its log going to the {@link WriteBack} first ({@code changed} counts those held).
 */
final class FrontierLogCache {
    private static final int EMPTY = OpenAddressing.EMPTY;
    /** Per slot: key, log, looked-up mark, changed mark (both non-null when set). */
    private static final int STRIDE = 4;
    /** Where a changed log goes before it leaves the cache: the store's batch. */
    interface WriteBack { void write(String key, List<FrontierEntry> log); }
    private final int capacity;
    private final WriteBack writeBack;
    private int changed;
    private Object[] entries;
    private int[] hashes;
    private int size, mask, hand;
    /**
     * The slot {@link #get} last found a key in (-1: none): a {@link #put} of the same key object, the append that follows
     * the lookup, replaces its log there without probing again. Checked by identity before use; any move resets it.
     */
    private int lastFound = -1;

    /**
     * A cache of at most {@code capacity} logs (a power of two or not); its table starts small and grows to twice that.
     * Changed logs go to {@code writeBack} when they are evicted or written back.
     */
    FrontierLogCache(int capacity, WriteBack writeBack) {
        if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        this.writeBack = writeBack;
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

    /**
     * Holds {@code log}, as read from disk, for {@code key}; a new key, when {@code capacity} are held, evicts one first.
     * Contract: {@code key} is not held changed (a log read from disk would replace one newer than the disk's).
     */
    void put(String key, List<FrontierEntry> log) { put(key, log, false); }

    /** Holds {@code log} for {@code key}, replacing what was held, as changed: it is written back before it leaves. */
    void putChanged(String key, List<FrontierEntry> log) { put(key, log, true); }

    private void put(String key, List<FrontierEntry> log, boolean change) {
        int h = 0, i; // (a stored hash is never 0)
        if (lastFound >= 0 && entries[STRIDE * lastFound] == key) i = lastFound;
        else i = slot(key, h = hash(key));
        if (hashes[i] != EMPTY) {
            entries[STRIDE * i + 1] = log;
            if (change) mark(i);
            else assert entries[STRIDE * i + 3] == null : "a log read from disk replaces a changed one: " + key;
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
        if (change) mark(i);
    }

    private void mark(int i) {
        if (entries[STRIDE * i + 3] != null) return;
        entries[STRIDE * i + 3] = Boolean.TRUE;
        changed++;
    }

    /** Writes every changed log to the {@link WriteBack}, in table order; afterwards none is changed. Returns how many. */
    @SuppressWarnings("unchecked")
    int writeBack() {
        int n = 0;
        for (int i = 0; changed > 0 && i < hashes.length; i++) {
            if (hashes[i] == EMPTY || entries[STRIDE * i + 3] == null) continue;
            writeBack.write((String) entries[STRIDE * i], (List<FrontierEntry>) entries[STRIDE * i + 1]);
            entries[STRIDE * i + 3] = null;
            changed--;
            n++;
        }
        return n;
    }

    /** Changed logs held (written back by neither an eviction nor {@link #writeBack} yet). */
    int changed() { return changed; }

    /**
     * The hand sweeps: a key looked up since it last passed loses that mark, the first one without it goes (its log to
     * the {@link WriteBack} first when it is changed).
     */
    @SuppressWarnings("unchecked")
    private void evictOne() {
        while (true) {
            if (hashes[hand] != EMPTY) {
                if (entries[STRIDE * hand + 2] == null) {
                    if (entries[STRIDE * hand + 3] != null) {
                        writeBack.write((String) entries[STRIDE * hand], (List<FrontierEntry>) entries[STRIDE * hand + 1]);
                        changed--;
                    }
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

    /** Forgets every log; contract: none is changed ({@link #writeBack} first). */
    void clear() {
        if (changed > 0) throw new IllegalStateException(changed + " changed frontier logs would be lost");
        allocate(Math.min(1024, Integer.highestOneBit(capacity) << 2));
        size = 0;
    }
}
