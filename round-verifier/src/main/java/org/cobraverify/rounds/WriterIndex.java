package org.cobraverify.rounds;

import java.util.Arrays;
import org.cobraverify.history.Hashing;
import org.cobraverify.schemas.Transaction;

/**
 * Which transaction installed each (key, value) write id. One open-addressing table (linear probing, deletion
 * by backward shift, so no tombstones build up as garbage collection removes writes): a lookup hashes the two
 * strings the operation already holds (their hash codes are cached), probes one array, and allocates nothing.
 *
 * <p>Invariant: each occupied slot holds a distinct (key, value) pair and is reachable from its home slot
 * without crossing an empty one; the table is at most half full. (It was a map of maps: two lookups and two
 * string comparisons per read of every round's history, a third of the verifier's time in the pipeline.)
 */
final class WriterIndex {
    private String[] keys, values;
    private Transaction[] writers;
    private int[] hashes;
    private int size, mask;

    WriterIndex() { allocate(64); }

    private void allocate(int capacity) {
        keys = new String[capacity];
        values = new String[capacity];
        writers = new Transaction[capacity];
        hashes = new int[capacity];
        mask = capacity - 1;
    }

    private static int hash(String key, String value) {
        return Hashing.mix(key.hashCode() * 31 + value.hashCode());
    }

    /** The slot holding (key, value), or the empty slot where it would go. */
    private int slot(String key, String value, int h) {
        int i = h & mask;
        while (true) {
            String k = keys[i];
            if (k == null) return i;
            if (hashes[i] == h && (k == key || k.equals(key)) && (values[i] == value || values[i].equals(value))) return i;
            i = (i + 1) & mask;
        }
    }

    Transaction get(String key, String value) {
        return writers[slot(key, value, hash(key, value))];
    }

    boolean contains(String key, String value) { return get(key, value) != null; }

    /** Records {@code t} as the writer unless one is recorded already (the first write of a value wins); returns that one, or null. */
    Transaction putIfAbsent(String key, String value, Transaction t) {
        int h = hash(key, value), i = slot(key, value, h);
        if (keys[i] != null) return writers[i];
        keys[i] = key;
        values[i] = value;
        writers[i] = t;
        hashes[i] = h;
        if (++size * 2 > keys.length) grow();
        return null;
    }

    void remove(String key, String value) {
        int i = slot(key, value, hash(key, value));
        if (keys[i] == null) return;
        size--;
        // backward shift: move later entries of the probe run into the hole unless their home lies cyclically after it
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (keys[j] == null) break;
            int home = hashes[j] & mask;
            boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (stays) continue;
            keys[i] = keys[j];
            values[i] = values[j];
            writers[i] = writers[j];
            hashes[i] = hashes[j];
            i = j;
        }
        keys[i] = null;
        values[i] = null;
        writers[i] = null;
    }

    private void grow() {
        String[] k = keys, v = values;
        Transaction[] w = writers;
        int[] hs = hashes;
        allocate(k.length * 2);
        for (int i = 0; i < k.length; i++) {
            if (k[i] == null) continue;
            int j = hs[i] & mask;
            while (keys[j] != null) j = (j + 1) & mask;
            keys[j] = k[i];
            values[j] = v[i];
            writers[j] = w[i];
            hashes[j] = hs[i];
        }
    }

    int size() { return size; }

    void clear() {
        allocate(64);
        size = 0;
    }

    WriterIndex copy() {
        WriterIndex c = new WriterIndex();
        c.replaceWith(this);
        return c;
    }

    void replaceWith(WriterIndex other) {
        keys = Arrays.copyOf(other.keys, other.keys.length);
        values = Arrays.copyOf(other.values, other.values.length);
        writers = Arrays.copyOf(other.writers, other.writers.length);
        hashes = Arrays.copyOf(other.hashes, other.hashes.length);
        mask = other.mask;
        size = other.size;
    }
}
