package org.cobraverify.gc.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link SortedBatch} written to a real RocksDB leaves what the same puts leave written one by one in the order they
 * were made: the last put of a key wins, in each of two column families, with keys that share prefixes and bytes above
 * 0x7f (unsigned order). Seeded.
 */
class SortedBatchTest {
    static { RocksDB.loadLibrary(); }

    @TempDir
    Path dir;

    @Test
    void theLastPutOfEachKeyWinsInEachFamily() throws Exception {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
             RocksDB db = RocksDB.open(o, dir.toString(), List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                     new ColumnFamilyDescriptor("other".getBytes(StandardCharsets.UTF_8))), handles);
             WriteOptions w = new WriteOptions().setDisableWAL(true)) {
            for (long seed = 1; seed <= 5; seed++) {
                Random rnd = new Random(seed);
                SortedBatch batch = new SortedBatch();
                List<Map<String, byte[]>> last = List.of(new HashMap<>(), new HashMap<>());
                for (int i = 0; i < 5_000; i++) {
                    int f = rnd.nextInt(2);
                    byte[] key = ("k" + rnd.nextInt(300) + (rnd.nextBoolean() ? "\u00e9" : "")).getBytes(StandardCharsets.UTF_8);
                    byte[] value = ("s" + seed + "." + i).getBytes(StandardCharsets.UTF_8);
                    batch.put(handles.get(f), key, value);
                    last.get(f).put(new String(key, StandardCharsets.UTF_8), value);
                }
                assertEquals(5_000, batch.size());
                try (WriteBatch b = batch.toWriteBatch()) {
                    db.write(w, b);
                }
                for (int f = 0; f < 2; f++)
                    for (Map.Entry<String, byte[]> e : last.get(f).entrySet())
                        assertArrayEquals(e.getValue(), db.get(handles.get(f), e.getKey().getBytes(StandardCharsets.UTF_8)),
                                "seed " + seed + " family " + f + " key " + e.getKey());
            }
        } finally {
            for (ColumnFamilyHandle h : handles) h.close();
        }
    }
}
