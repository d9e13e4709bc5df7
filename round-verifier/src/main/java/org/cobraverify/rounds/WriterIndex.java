package org.cobraverify.rounds;

import java.util.Arrays;
import org.cobraverify.history.Hashing;
import org.cobraverify.history.OpenAddressing;
import org.cobraverify.schemas.Transaction;

/**
 * Which transaction installed each (key, value) write id. One open-addressing table (linear probing, deletion
 * by backward shift, so no tombstones build up as garbage collection removes writes): a lookup hashes the two
 * strings the operation already holds (their hash codes are cached), probes one array of hashes, and allocates nothing.
 * A slot's key, value and writer lie side by side in one array ({@code entries[3i..3i+2]}), so a hit reads two cache lines
 * of the table, not four (the table outgrows the caches: 11% of a TPC-C round was spent probing it with four parallel arrays).
 *
 * <p>Invariant: each occupied slot holds a distinct (key, value) pair and is reachable from its home slot
 * without crossing an empty one ({@link OpenAddressing}'s contract); the table is at most half full. (It was a map of maps: two lookups and two string comparisons per read of
 * every round's history, a third of the verifier's time in the pipeline.)
 */
final class WriterIndex {
    private static final int EMPTY = OpenAddressing.EMPTY;
    private Object[] entries;
    private int[] hashes;
    private int size, mask;

    WriterIndex() { allocate(64); }

    private void allocate(int capacity) {
        entries = new Object[3 * capacity];
        hashes = new int[capacity];
        mask = capacity - 1;
    }

    private static int hash(String key, String value) {
        return OpenAddressing.stored(Hashing.mix(key.hashCode() * 31 + value.hashCode()));
    }

    /** The slot holding (key, value), or the empty slot where it would go. */
    private int slot(String key, String value, int h) {
        int i = h & mask;
        while (true) {
            int hi = hashes[i];
            if (hi == EMPTY) return i;
            if (hi == h) {
                Object k = entries[3 * i], v = entries[3 * i + 1];
                if ((k == key || k.equals(key)) && (v == value || v.equals(value))) return i;
            }
            i = (i + 1) & mask;
        }
    }

    Transaction get(String key, String value) {
        int i = slot(key, value, hash(key, value));
        return hashes[i] == EMPTY ? null : (Transaction) entries[3 * i + 2];
    }

    boolean contains(String key, String value) { return get(key, value) != null; }

    /**
     * As {@link #get} for the read {@code o}; when a writer is recorded, {@code o} takes the index's value string (the
     * writer's, equal to its own), and its key string unless the operation after it in {@code ops} shares that one
     * ({@link IncrementalVerifier#shareKeys}): the reader's copies can go, and later lookups of the read compare by identity.
     */
    Transaction getSharing(java.util.List<org.cobraverify.schemas.TxnOp> ops, int j) {
        org.cobraverify.schemas.TxnOp o = ops.get(j);
        String key = o.getKey(), value = o.getValue();
        int i = slot(key, value, hash(key, value));
        if (hashes[i] == EMPTY) return null;
        Object k = entries[3 * i], v = entries[3 * i + 1];
        if (v != value) o.setValue((String) v);
        if (k != key && (j + 1 == ops.size() || ops.get(j + 1).getKey() != key)) o.setKey((String) k);
        return (Transaction) entries[3 * i + 2];
    }

    /** Records {@code t} as the writer unless one is recorded already (the first write of a value wins); returns that one, or null. */
    Transaction putIfAbsent(String key, String value, Transaction t) {
        int h = hash(key, value), i = slot(key, value, h);
        if (hashes[i] != EMPTY) return (Transaction) entries[3 * i + 2];
        entries[3 * i] = key;
        entries[3 * i + 1] = value;
        entries[3 * i + 2] = t;
        hashes[i] = h;
        if (++size * 2 > hashes.length) grow();
        return null;
    }

    /** Removes (key, value) if {@code t} is its writer (one probe, not a lookup and then a removal); whether it did. */
    boolean removeIfWrittenBy(String key, String value, Transaction t) {
        int i = slot(key, value, hash(key, value));
        if (hashes[i] == EMPTY || entries[3 * i + 2] != t) return false;
        size--;
        OpenAddressing.remove(hashes, entries, 3, i);
        return true;
    }

    void remove(String key, String value) {
        int i = slot(key, value, hash(key, value));
        if (hashes[i] == EMPTY) return;
        size--;
        OpenAddressing.remove(hashes, entries, 3, i);
    }

    private void grow() {
        Object[] e = entries;
        int[] hs = hashes;
        allocate(hs.length * 2);
        OpenAddressing.rehash(hs, e, hashes, entries, 3);
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
        entries = Arrays.copyOf(other.entries, other.entries.length);
        hashes = Arrays.copyOf(other.hashes, other.hashes.length);
        mask = other.mask;
        size = other.size;
    }
}
