package org.cobraverify.gc.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * <p>Invariant: {@link #size} puts, {@code families[i]}, {@code keys[i]}, {@code values[i]} the i-th made. Not thread-safe:
 * filled by the verifier, then handed whole to the writer thread ({@link #toWriteBatch}).
 */
final class SortedBatch {
    private final List<ColumnFamilyHandle> handles = new ArrayList<>(4);
    private int[] families = new int[1024];
    private byte[][] keys = new byte[1024][], values = new byte[1024][];
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
        }
        families[size] = f;
        keys[size] = key;
        values[size] = value;
        size++;
    }

    /** The index of {@code family} among those put to (a few: the frontier logs and the generations). */
    private int familyIndex(ColumnFamilyHandle family) {
        for (int i = 0; i < handles.size(); i++) if (handles.get(i) == family) return i;
        handles.add(family);
        return handles.size() - 1;
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
