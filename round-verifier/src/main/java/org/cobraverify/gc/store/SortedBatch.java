package org.cobraverify.gc.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.Hashing;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Puts waiting to be written, each to a column family, and the {@link WriteBatch} that writes them in key order: by
 * family, then by key (unsigned bytes, RocksDB's bytewise order), puts of one key in the order they were made (a stable
 * sort), so the last one made wins as it would in arrival order. A memtable's skip list inserts keys that come in order
 * from where the last insert left off; in arrival order (collected writes' ids are random) every insert searched the
 * list from its top, and that search was 60% of the writer thread's time.
 *
 * <p>It also answers what it holds ({@link #find}): a read of a key whose put waits here must see that put, and the
 * verifier reads while the writer thread writes earlier batches. An open-addressing index (linear probing, at most half
 * full) of put positions by (family, key): each slot holds the position of the latest put of its key.
 *
 * <p>Invariant: {@link #size} puts, {@code families[i]}, {@code keys[i]}, {@code values[i]} the i-th made, {@code hashes[i]}
 * its key's hash; every key put is in exactly one slot of {@code index}, reachable from its home slot without crossing an
 * empty one, and that slot holds its latest put. Not thread-safe while filled: filled by the verifier, then handed whole
 * to the writer thread ({@link #toWriteBatch}), after which both only read it.
 */
final class SortedBatch {
    private final List<ColumnFamilyHandle> handles = new ArrayList<>(4);
    private int[] families = new int[1024];
    private byte[][] keys = new byte[1024][], values = new byte[1024][];
    private int[] hashes = new int[1024];
    /** Per slot: 1 + the position of the latest put of the slot's (family, key); 0: empty. */
    private int[] index = new int[2048];
    private int size;

    /**
     * Adds a put. Families are told apart by identity (a handle's {@code equals} asks RocksDB for its id, a call into native
     * code per put): the caller passes one handle object per column family, as {@link RocksDbCollectedWrites} does.
     */
    void put(ColumnFamilyHandle family, byte[] key, byte[] value) {
        int f = familyIndex(family);
        if (size == keys.length) {
            families = Arrays.copyOf(families, size * 2);
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
            hashes = Arrays.copyOf(hashes, size * 2);
        }
        if (2 * (size + 1) > index.length) reindex(2 * index.length);
        families[size] = f;
        keys[size] = key;
        values[size] = value;
        hashes[size] = hash(key);
        int s = slot(f, key, hashes[size]);
        index[s] = size + 1; // a new key's slot, or the one of an earlier put of it: the latest wins, as in RocksDB
        size++;
    }

    /** The value of the latest put of {@code key} to {@code family} held here, or null when none is; {@code hash}: {@link #hash} of {@code key}. */
    byte[] find(ColumnFamilyHandle family, byte[] key, int hash) {
        int f = indexOf(family);
        if (f < 0) return null;
        int at = index[slot(f, key, hash)] - 1;
        return at < 0 ? null : values[at];
    }

    /** A key's hash in every batch (the family is not part of it: a reader asks several batches with one hash). */
    static int hash(byte[] key) { return Hashing.mix(Arrays.hashCode(key)); }

    /** The slot holding (family, key), or the empty one where it would go. */
    private int slot(int family, byte[] key, int h) {
        int mask = index.length - 1;
        for (int s = h & mask; ; s = (s + 1) & mask) {
            int at = index[s] - 1;
            if (at < 0 || (hashes[at] == h && families[at] == family && Arrays.equals(keys[at], key))) return s;
        }
    }

    private void reindex(int slots) {
        int[] old = index;
        index = new int[slots];
        int mask = slots - 1;
        for (int x : old) {
            if (x == 0) continue;
            int s = hashes[x - 1] & mask;
            while (index[s] != 0) s = (s + 1) & mask;
            index[s] = x;
        }
    }

    /** The index of {@code family} among those put to (a few: the frontier logs and the generations). */
    private int familyIndex(ColumnFamilyHandle family) {
        int f = indexOf(family);
        if (f >= 0) return f;
        handles.add(family);
        return handles.size() - 1;
    }

    /** The index of {@code family} among those put to, by identity; -1 when none was. */
    private int indexOf(ColumnFamilyHandle family) {
        for (int i = 0; i < handles.size(); i++) if (handles.get(i) == family) return i;
        return -1;
    }

    int size() { return size; }

    /** The puts in key order, as one batch (the caller closes it). */
    WriteBatch toWriteBatch() throws RocksDBException {
        int[] order = order();
        WriteBatch batch = new WriteBatch();
        try {
            for (int i : order) batch.put(handles.get(families[i]), keys[i], values[i]);
            return batch;
        } catch (RocksDBException | RuntimeException e) {
            batch.close();
            throw e;
        }
    }

    /**
     * The puts' positions in the order they are written: by family, then by key (unsigned bytes), then by position, so
     * that puts of one key keep the order they were made in. A merge sort of int positions, comparing the keys' first
     * eight bytes as one unsigned long before the whole keys (boxed positions and a comparator were two thirds of the
     * writer thread's time).
     */
    int[] order() {
        long[] prefix = new long[size];
        for (int i = 0; i < size; i++) prefix[i] = prefix(keys[i]);
        int[] a = new int[size], b = new int[size];
        for (int i = 0; i < size; i++) a[i] = i;
        for (int width = 1; width < size; width *= 2) {
            for (int lo = 0; lo < size; lo += 2 * width) {
                int mid = Math.min(lo + width, size), hi = Math.min(lo + 2 * width, size), i = lo, j = mid, k = lo;
                while (i < mid && j < hi) b[k++] = compare(a[i], a[j], prefix) <= 0 ? a[i++] : a[j++];
                while (i < mid) b[k++] = a[i++];
                while (j < hi) b[k++] = a[j++];
            }
            int[] t = a; a = b; b = t;
        }
        return a;
    }

    private int compare(int x, int y, long[] prefix) {
        if (families[x] != families[y]) return Integer.compare(families[x], families[y]);
        if (prefix[x] != prefix[y]) return Long.compareUnsigned(prefix[x], prefix[y]);
        int c = Arrays.compareUnsigned(keys[x], keys[y]);
        return c != 0 ? c : Integer.compare(x, y);
    }

    /**
     * The first eight bytes of {@code key}, big-endian, zero past its end: where two prefixes differ, the keys compare as
     * they do (a shorter key is padded with the least byte, and is less than any key it begins); equal prefixes say nothing.
     */
    static long prefix(byte[] key) {
        long p = 0;
        for (int i = 0; i < 8; i++) p = (p << 8) | (i < key.length ? key[i] & 0xff : 0);
        return p;
    }
}
