package org.cobraverify.gc.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.FrontierLog;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * {@link CollectedWrites} in RocksDB on local disk: exact, off the heap, and bounded in time: a write collected longer
 * ago than the horizon is forgotten, and a later read of it waits like a read of a write never seen, until the verdict
 * says unknown ({@link #horizonNote}). Never a wrong reject or accept. A verifier restarted on the same disk finds every
 * write collected up to its checkpoint ({@link #sync}, {@link #markCheckpoint}).
 *
 * <p>This class wires its parts, each in this package, and counts the writes collected:
 * <ul>
 * <li>{@link StoreDatabase}: the database, opened by the constructor, or by the first write of a {@link #temporary} store;
 * <li>{@link Generations}: the column families collected writes go to, one started every {@code horizon / GENERATIONS},
 *     dropped whole once past the horizon;
 * <li>{@link WriteBehind}: the puts, batched and written behind by a thread of their own, seen by reads before they are written;
 * <li>{@link FrontierLogStore}: the frontier logs ({@link #frontierLog}), in a column family never dropped, cached on the heap
 *     and written back by {@link #sync}, {@link #markCheckpoint} and {@link #close} at the latest;
 * <li>{@link CheckpointMark} and {@link CollectedEntryEncoding}: the checkpoint mark, and the bytes of a collected write.
 * </ul>
 * Not thread-safe: one caller thread (the verifier's); the only other thread is the write-behind's, which touches only
 * the batches handed to it.
 */
public final class RocksDbCollectedWrites implements CollectedWrites {
    static { RocksDB.loadLibrary(); }

    /** The default horizon: a week, the history topics' default retention (the replay horizon). */
    public static final long DEFAULT_HORIZON_MILLIS = 7 * 24 * 3_600_000L;

    private Path dir;
    private final boolean deleteOnClose;
    private final Generations generations;
    private final WriteBehind writes;
    private final FrontierLogStore frontiers;
    /** Null before the first write of a temporary store, and once closed. */
    private StoreDatabase store;
    private long size;

    /** Opens (or creates) a store in {@code dir} with the default horizon; with {@code deleteOnClose} the directory is removed by {@link #close}. */
    public RocksDbCollectedWrites(Path dir, boolean deleteOnClose) { this(dir, deleteOnClose, DEFAULT_HORIZON_MILLIS, System::currentTimeMillis); }

    /** As above, forgetting writes collected more than {@code horizonMillis} ago by {@code clock} (milliseconds). */
    public RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock) {
        this(dir, deleteOnClose, horizonMillis, clock, FrontierLogStore.CACHE);
    }

    /** As above, with at most {@code frontierCache} frontier logs on the heap (tests: a small cache reads logs from disk). */
    RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock, int frontierCache) {
        this(dir, deleteOnClose, horizonMillis, clock, frontierCache, WriteBehind.BATCH_PUTS, WriteBehind.MAX_IN_FLIGHT);
    }

    /** As above, with batches of {@code batchPuts} puts and at most {@code maxInFlight} of them handed to the writer (tests: small ones). */
    RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock, int frontierCache, int batchPuts, int maxInFlight) {
        this.generations = new Generations(horizonMillis, clock);
        this.writes = new WriteBehind(batchPuts, maxInFlight);
        this.frontiers = new FrontierLogStore(frontierCache, writes);
        this.dir = dir;
        this.deleteOnClose = deleteOnClose;
        if (dir != null) open();
    }

    /** A store in a fresh temporary directory, created on the first write and removed on close. */
    public static RocksDbCollectedWrites temporary() { return new RocksDbCollectedWrites(null, true, DEFAULT_HORIZON_MILLIS, System::currentTimeMillis); }

    private void open() {
        try {
            if (dir == null) dir = Files.createTempDirectory("cobra-collected-");
            store = StoreDatabase.open(dir);
            writes.attach(store.db());
            frontiers.attach(store.db(), store.frontierFamily(), generations);
            generations.attach(store, writes);
        } catch (RocksDBException | IOException | RuntimeException e) {
            throw new IllegalStateException("cannot open the collected-writes store in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** What a call of this store throws when RocksDB fails it. */
    private static IllegalStateException failed(RocksDBException ex) {
        return new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
    }

    @Override
    public void put(String key, String value, Entry e) {
        if (store == null) open();
        try {
            ColumnFamilyHandle h = generations.current();
            writes.put(h, CollectedEntryEncoding.id(key, value), CollectedEntryEncoding.encode(e));
            size++;
            writes.flushIfFull();
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public Entry get(String key, String value) {
        if (store == null) return null;
        FrontierEntry f = frontiers.naming(key, value);
        if (f != null) return FrontierLog.asEntry(f);
        try {
            return generations.get(CollectedEntryEncoding.id(key, value));
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    /**
     * As {@link #get} for each pair. A pair whose key's frontier log is cached and names its value as written by a
     * transaction is answered from the log ({@link FrontierLog#asEntry}): a frontier write collected as data lives there
     * (not put) while the log names it, and an entry of a dropped generation is still known this way. The rest, per
     * generation (newest first, then the default family): from a batch not yet written ({@link WriteBehind#pending}), else one
     * {@code multiGet} for the pairs not
     * found yet, {@link FrontierLogStore#PREFETCH_BATCH} at a time, and last the logs of the keys still not found (read in one batch, as
     * {@link #frontierLogs} reads them).
     */
    @Override
    public Entry[] getAll(List<String> keys, List<String> values) {
        if (keys.size() != values.size()) throw new IllegalArgumentException(keys.size() + " keys and " + values.size() + " values");
        Entry[] out = new Entry[keys.size()];
        if (store == null || out.length == 0) return out;
        List<Integer> ask = new ArrayList<>(out.length);
        for (int i = 0; i < out.length; i++) {
            FrontierEntry f = frontiers.namingCached(keys.get(i), values.get(i));
            if (f != null) out[i] = FrontierLog.asEntry(f);
            else ask.add(i);
        }
        if (ask.isEmpty()) return out;
        try {
            List<Integer> notFound = generations.getAll(keys, values, ask, out);
            // a frontier write collected as data whose log is not cached: the log names it
            frontiers.answerFromLogs(keys, values, notFound, out);
            return out;
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public long size() { return size; }

    @Override
    public void appendFrontier(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) {
        if (store == null) open();
        try {
            frontiers.append(key, e, visible, keepFrom);
            if (e.value() != null) size++;
            writes.flushIfFull();
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public void importFrontierLog(String key, List<FrontierEntry> log) {
        if (store == null) open();
        try {
            frontiers.importLog(key, log);
            writes.flushIfFull();
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public List<FrontierEntry> frontierLog(String key) { return frontiers.log(key); }

    /** Reads the logs of {@code keys} that are not cached, in batches, and caches them ({@link FrontierLogStore#prefetch}). */
    @Override
    public void prefetchFrontierLogs(Collection<String> keys) { frontiers.prefetch(keys); }

    /**
     * As the interface says, with one cache lookup per key: the logs not cached are read as {@link #prefetchFrontierLogs}
     * reads them (so a batch larger than the cache returns every log, though not all stay cached).
     */
    @Override
    public List<List<FrontierEntry>> frontierLogs(List<String> keys) { return frontiers.logs(keys); }

    @Override
    public boolean hasFrontiers() { return frontiers.any(); }

    @Override
    public void trackFrontierChanges() { frontiers.track(); }

    @Override
    public Set<String> takeChangedFrontiers() { return frontiers.takeChanged(); }

    @Override
    public void markCheckpoint(long offset) {
        if (store == null) open();
        try {
            writeBackAndSettle();
            CheckpointMark.write(store.db(), store.defaultFamily(), offset);
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public long checkpointMark() {
        if (store == null) return -1;
        try {
            return CheckpointMark.read(store.db(), store.defaultFamily());
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    @Override
    public boolean isEmpty() { return store == null || (generations.isEmpty() && !frontiers.any() && checkpointMark() < 0); }

    /** Where it lives (null before its first write, for a temporary one). */
    public Path dir() { return dir; }

    /** Writes forgotten so far (in generations dropped by this instance; RocksDB's estimate of their keys). */
    public long forgotten() { return generations.forgotten(); }

    @Override
    public String horizonNote() { return generations.horizonNote(); }

    @Override
    public void writeBehind() {
        if (store == null) return;
        try {
            writes.flush();
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    /** Writes the batch and flushes the memtables to disk (the store writes no log): what was put survives a crash. */
    @Override
    public void sync() {
        if (store == null) return;
        try {
            writeBackAndSettle();
            store.flush(generations.families());
        } catch (RocksDBException ex) { throw failed(ex); }
    }

    /** Puts every frontier log changed in the cache and not yet put, then settles the write-behind: RocksDB holds everything put. */
    private void writeBackAndSettle() throws RocksDBException {
        frontiers.writeBack();
        writes.settle();
    }

    @Override
    public void close() {
        try {
            if (store != null) writeBackAndSettle();
        } catch (RocksDBException ex) {
            throw failed(ex);
        } finally {
            writes.stop();
        }
        writes.close();
        if (store == null) return;
        generations.close();
        frontiers.close();
        store.close();
        store = null;
        if (deleteOnClose) StoreDatabase.delete(dir);
    }

    /** Frontier logs on the heap now (tests: bounded by {@link FrontierLogStore#CACHE}). */
    int frontierCacheSize() { return frontiers.cacheSize(); }

    /** Whether {@code key}'s log is on the heap now (tests). */
    boolean frontierCached(String key) { return frontiers.cached(key); }

    /** How many generations the store holds now (tests). */
    int generationCount() { return generations.count(); }

    /** Tests only: while {@code latch} is set, each batch handed over then waits for it before it is written (so that reads meet batches in flight). */
    void holdWrites(CountDownLatch latch) { writes.holdWrites(latch); }
}
