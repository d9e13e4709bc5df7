package org.cobraverify.gc.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The RocksDB database in a store's directory, with its options and the two column families every store has: the
 * default family (the {@link CheckpointMark}, and the collected writes of a store written before generations existed)
 * and the frontier logs' family ({@link FrontierLogStore}), never dropped. Every other family found at open is a
 * generation's ({@link #found}); {@link Generations} takes, closes and drops those.
 *
 * <p>Contract: opened by {@link #open}, closed once by {@link #close}, after every generation's handle is closed and
 * nothing writes to it any more. One handle object per family ({@link SortedBatch} tells families apart by identity).
 */
final class StoreDatabase {
    private static final byte[] FRONTIER_FAMILY = "frontier".getBytes(StandardCharsets.UTF_8);

    /** A column family found at open besides the default and the frontier family: its name and handle. */
    record Found(byte[] name, ColumnFamilyHandle handle) {}

    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final BloomFilter bloom;
    private final RocksDB db;
    private final ColumnFamilyHandle defaultFamily, frontierFamily;
    private final List<Found> found;
    private boolean closed;

    private StoreDatabase(DBOptions dbOptions, ColumnFamilyOptions cfOptions, BloomFilter bloom, RocksDB db,
            ColumnFamilyHandle defaultFamily, ColumnFamilyHandle frontierFamily, List<Found> found) {
        this.dbOptions = dbOptions;
        this.cfOptions = cfOptions;
        this.bloom = bloom;
        this.db = db;
        this.defaultFamily = defaultFamily;
        this.frontierFamily = frontierFamily;
        this.found = List.copyOf(found);
    }

    /** Opens (or creates) the database in {@code dir}, with every column family it holds. */
    static StoreDatabase open(Path dir) throws RocksDBException, IOException {
        Files.createDirectories(dir);
        DBOptions dbOptions = new DBOptions().setCreateIfMissing(true);
        ColumnFamilyOptions cfOptions = new ColumnFamilyOptions().setWriteBufferSize(16L << 20).setMaxWriteBufferNumber(2);
        // a Bloom filter per table file: most keys a round looks up in the logs (an insert's) were never collected, and
        // a lookup of an absent key then reads no block of the files that cannot hold it, however many levels the store grows
        BloomFilter bloom = new BloomFilter(10, false);
        cfOptions.setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(bloom));
        List<byte[]> names;
        try (Options o = new Options()) {
            names = Files.exists(dir.resolve("CURRENT")) ? RocksDB.listColumnFamilies(o, dir.toString()) : List.of();
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
        descriptors.add(new ColumnFamilyDescriptor(FRONTIER_FAMILY, cfOptions));
        for (byte[] n : names)
            if (!Arrays.equals(n, RocksDB.DEFAULT_COLUMN_FAMILY) && !Arrays.equals(n, FRONTIER_FAMILY)) descriptors.add(new ColumnFamilyDescriptor(n, cfOptions));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        dbOptions.setCreateMissingColumnFamilies(true);
        RocksDB db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
        List<Found> found = new ArrayList<>();
        for (int i = 2; i < handles.size(); i++) found.add(new Found(descriptors.get(i).getName(), handles.get(i)));
        return new StoreDatabase(dbOptions, cfOptions, bloom, db, handles.get(0), handles.get(1), found);
    }

    RocksDB db() { return db; }

    ColumnFamilyHandle defaultFamily() { return defaultFamily; }

    ColumnFamilyHandle frontierFamily() { return frontierFamily; }

    /** The column families found at open other than the default and the frontier family (the generations'), in no order. */
    List<Found> found() { return found; }

    /** Creates a column family named {@code name}, with the options of every other. */
    ColumnFamilyHandle createFamily(byte[] name) throws RocksDBException {
        return db.createColumnFamily(new ColumnFamilyDescriptor(name, cfOptions));
    }

    /** Flushes the memtables of the frontier family and of {@code generations} to disk, and waits for it (the store writes no log). */
    void flush(List<ColumnFamilyHandle> generations) throws RocksDBException {
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            List<ColumnFamilyHandle> all = new ArrayList<>();
            all.add(frontierFamily);
            all.addAll(generations);
            if (!all.isEmpty()) db.flush(fo, all);
        }
    }

    /** Closes the frontier and default families' handles, then the database, then its options. */
    void close() {
        if (closed) throw new IllegalStateException("the collected-writes database is closed already");
        closed = true;
        frontierFamily.close();
        defaultFamily.close();
        db.close();
        dbOptions.close();
        cfOptions.close();
        bloom.close();
    }

    /** Removes {@code dir} and everything in it, as far as it can (the database in it closed first). */
    static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
