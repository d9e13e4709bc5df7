package org.cobraverify.rounds.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.cobraverify.rounds.CollectedWrites;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link CollectedWrites} in RocksDB on local disk: exact, and off the heap (the memtable is bounded by
 * RocksDB's settings). Writes are batched and skip the write-ahead log; {@link #sync} flushes them before
 * the verifier commits a checkpoint, so a verifier restarted on the same disk finds every write collected
 * up to its checkpoint. Lookups happen only for reads whose writer is not in memory, so they are rare on a
 * healthy database.
 */
public final class RocksDbCollectedWrites implements CollectedWrites {
    static { RocksDB.loadLibrary(); }

    private Path dir;
    private final boolean deleteOnClose;
    private Options options;
    private RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    private WriteBatch batch = new WriteBatch();
    private int batched;
    private long size;

    /** Opens (or creates) a store in {@code dir}; with {@code deleteOnClose} the directory is removed by {@link #close}. */
    public RocksDbCollectedWrites(Path dir, boolean deleteOnClose) {
        this.dir = dir;
        this.deleteOnClose = deleteOnClose;
        open();
    }

    private RocksDbCollectedWrites() { this.deleteOnClose = true; }

    /** A store in a fresh temporary directory, created on the first write and removed on close. */
    public static RocksDbCollectedWrites temporary() { return new RocksDbCollectedWrites(); }

    private void open() {
        try {
            if (dir == null) dir = Files.createTempDirectory("cobra-collected-");
            options = new Options().setCreateIfMissing(true).setWriteBufferSize(32L << 20).setMaxWriteBufferNumber(2);
            Files.createDirectories(dir);
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException | IOException e) {
            throw new IllegalStateException("cannot open the collected-writes store in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(String key, String value, Entry e) {
        if (db == null) open();
        try {
            batch.put(id(key, value), encode(e));
            size++;
            if (++batched >= 10_000) flush();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    private void flush() throws RocksDBException {
        if (batched == 0) return;
        db.write(writeOptions, batch);
        batch.close();
        batch = new WriteBatch();
        batched = 0;
    }

    @Override
    public Entry get(String key, String value) {
        if (db == null) return null;
        try {
            flush();
            byte[] v = db.get(id(key, value));
            return v == null ? null : decode(v);
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public long size() { return size; }

    private static byte[] id(String key, String value) { return (key + '\0' + value).getBytes(StandardCharsets.UTF_8); }

    private static byte[] encode(Entry e) {
        String s = e.fate().ordinal() + e.writer() + '\0' + (e.supersededBy() == null ? "" : e.supersededBy()) + '\0' + e.round() + '\0' + e.incarnation();
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Entry decode(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        String[] f = s.substring(1).split("\0", -1);
        Fate fate = Fate.values()[s.charAt(0) - '0'];
        return new Entry(f[0], f[1].isEmpty() ? null : f[1], fate, Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    /** Writes the batch and flushes the memtable to disk (the store writes no log): what was put survives a crash. */
    @Override
    public void sync() {
        if (db == null) return;
        try (org.rocksdb.FlushOptions fo = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
            flush();
            db.flush(fo);
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close() {
        batch.close();
        writeOptions.close();
        if (db == null) return;
        db.close();
        options.close();
        db = null;
        if (deleteOnClose) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }
}
