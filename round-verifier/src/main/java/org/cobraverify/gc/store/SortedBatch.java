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

    void put(ColumnFamilyHandle family, byte[] key, byte[] value) {
        int f = handles.indexOf(family); // a few families: the frontier logs and the generations
        if (f < 0) { f = handles.size(); handles.add(family); }
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

    int size() { return size; }

    /** The puts in key order, as one batch (the caller closes it). */
    WriteBatch toWriteBatch() throws RocksDBException {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> { // stable: puts of one key keep their order
            int c = Integer.compare(families[a], families[b]);
            return c != 0 ? c : Arrays.compareUnsigned(keys[a], keys[b]);
        });
        WriteBatch batch = new WriteBatch();
        try {
            for (Integer i : order) batch.put(handles.get(families[i]), keys[i], values[i]);
            return batch;
        } catch (RocksDBException | RuntimeException e) {
            batch.close();
            throw e;
        }
    }
}
