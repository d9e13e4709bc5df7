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

    /**
     * The write order is a stable sort by family, then key in unsigned byte order: checked against a boxed stable sort, with
     * keys shorter than eight bytes, keys that begin one another, zero bytes and bytes above 0x7f in the first eight.
     */
    @Test
    void theWriteOrderIsAStableSortByFamilyThenUnsignedKey() throws Exception {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
             RocksDB db = RocksDB.open(o, dir.toString(), List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                     new ColumnFamilyDescriptor("other".getBytes(StandardCharsets.UTF_8))), handles)) {
            for (long seed = 1; seed <= 20; seed++) {
                Random rnd = new Random(seed);
                SortedBatch batch = new SortedBatch();
                int n = 1 + rnd.nextInt(3_000);
                int[] fam = new int[n];
                byte[][] keys = new byte[n][];
                byte[] alphabet = {0, 1, 'a', 'b', (byte) 0x7f, (byte) 0x80, (byte) 0xff};
                for (int i = 0; i < n; i++) {
                    byte[] k = new byte[rnd.nextInt(12)];
                    for (int j = 0; j < k.length; j++) k[j] = alphabet[rnd.nextInt(j == 0 || j >= 6 ? alphabet.length : 2)]; // long shared prefixes
                    fam[i] = rnd.nextInt(2);
                    keys[i] = k;
                    batch.put(handles.get(fam[i]), k, new byte[] {(byte) i});
                }
                // families come in the order first put to (any fixed order of families would do for RocksDB)
                int[] rank = {fam[0] == 0 ? 0 : 1, fam[0] == 0 ? 1 : 0};
                Integer[] expected = new Integer[n];
                for (int i = 0; i < n; i++) expected[i] = i;
                java.util.Arrays.sort(expected, (a, b) -> fam[a] != fam[b] ? Integer.compare(rank[fam[a]], rank[fam[b]])
                        : java.util.Arrays.compareUnsigned(keys[a], keys[b])); // stable: equal keys keep their order
                int[] got = batch.order();
                assertEquals(n, got.length, "seed " + seed);
                for (int i = 0; i < n; i++) assertEquals(expected[i].intValue(), got[i], "seed " + seed + " position " + i);
            }
        } finally {
            for (ColumnFamilyHandle h : handles) h.close();
        }
    }

    /**
     * What a batch answers ({@link SortedBatch#find}) is the value of the latest put of the key to the family, and null for
     * a key or family never put to, as the batch grows through several re-indexings. Seeded.
     */
    @Test
    void findAnswersTheLatestPutOfTheKeyToTheFamily() throws Exception {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
             RocksDB db = RocksDB.open(o, dir.toString(), List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                     new ColumnFamilyDescriptor("other".getBytes(StandardCharsets.UTF_8)),
                     new ColumnFamilyDescriptor("never".getBytes(StandardCharsets.UTF_8))), handles)) {
            for (long seed = 1; seed <= 10; seed++) {
                Random rnd = new Random(seed);
                SortedBatch batch = new SortedBatch();
                List<Map<String, byte[]>> last = List.of(new HashMap<>(), new HashMap<>());
                int keys = 1 + rnd.nextInt(6_000), puts = rnd.nextInt(12_000);
                for (int i = 0; i < puts; i++) {
                    int f = rnd.nextInt(2);
                    String k = "k" + rnd.nextInt(keys);
                    byte[] value = ("s" + seed + "." + i).getBytes(StandardCharsets.UTF_8);
                    batch.put(handles.get(f), k.getBytes(StandardCharsets.UTF_8), value);
                    last.get(f).put(k, value);
                    if (rnd.nextInt(50) == 0) { // asked while it fills, as the verifier asks
                        String q = "k" + rnd.nextInt(keys);
                        int g = rnd.nextInt(2);
                        assertArrayEquals(last.get(g).get(q), batch.find(handles.get(g), q.getBytes(StandardCharsets.UTF_8), SortedBatch.hash(q.getBytes(StandardCharsets.UTF_8))),
                                "seed " + seed + " put " + i + " family " + g + " key " + q);
                    }
                }
                for (int f = 0; f < 2; f++)
                    for (int k = 0; k < keys; k++) {
                        byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
                        assertArrayEquals(last.get(f).get("k" + k), batch.find(handles.get(f), key, SortedBatch.hash(key)), "seed " + seed + " family " + f + " key k" + k);
                    }
                assertEquals(null, batch.find(handles.get(2), "k0".getBytes(StandardCharsets.UTF_8), SortedBatch.hash("k0".getBytes(StandardCharsets.UTF_8))), "seed " + seed + ": a family never put to");
            }
        } finally {
            for (ColumnFamilyHandle h : handles) h.close();
        }
    }
}
