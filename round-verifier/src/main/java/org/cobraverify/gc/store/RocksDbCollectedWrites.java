package org.cobraverify.gc.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.FrontierLog;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link CollectedWrites} in RocksDB on local disk: exact, off the heap, and bounded in time. Writes go to the
 * newest of a few <em>generations</em> (column families, each named for when it was started); every
 * {@code horizon / GENERATIONS} a new one starts, and a generation whose successor started more than
 * {@code horizon} ago holds only writes collected longer ago than that: it is dropped whole (no compaction
 * work). So the store holds what was collected within the horizon, and a generation's worth more (a
 * generation lasts until the next collection after its span ends); a write collected longer ago is forgotten, and a later read of it waits like a read of a write never seen,
 * until the verdict says unknown ({@link #horizonNote}). Never a wrong reject or accept.
 *
 * <p>Writes are batched, skip the write-ahead log and are written behind (by a thread of their own, one batch at a
 * time, in key order: {@link SortedBatch}; a read looks in the batches not yet written before it reads RocksDB, newest
 * first, so it sees every write put before it without waiting for them); {@link #sync} flushes them before the verifier
 * commits a checkpoint, so a verifier restarted on the same disk finds every write collected up to its
 * checkpoint (the generations, and when each started, are the column families). Lookups happen only for
 * reads whose writer is not in memory, newest generation first: rare on a healthy database.
 *
 * <p>Frontier logs ({@link #frontierLog}) live in a column family of their own that is never dropped: a key's latest
 * write must be known for as long as the key exists (forgetting it would let a later read of the key's initial value
 * pass). So they grow with the key space, on disk; on the heap only a cache of {@link #FRONTIER_CACHE} logs
 * ({@link FrontierLogCache}: a round looks up each key it touches, and keys touched again are mostly cached). An append
 * changes the cached log only; the log is put when the cache evicts it, and every changed one by {@link #sync},
 * {@link #markCheckpoint} and {@link #close} (write-back: a hot key appended to every few rounds is put once in a while,
 * not once per append). So RocksDB's logs may be older than the cache's, never after a sync; every read of a log looks
 * in the cache first, and a log leaves the cache only into the batch, which reads look in next ({@link #pending}).
 */
public final class RocksDbCollectedWrites implements CollectedWrites {
    static { RocksDB.loadLibrary(); }

    /** How many generations span the horizon. */
    static final int GENERATIONS = 8;
    /** The default horizon: a week, the history topics' default retention (the replay horizon). */
    public static final long DEFAULT_HORIZON_MILLIS = 7 * 24 * 3_600_000L;
    private static final String PREFIX = "g-";
    private static final byte[] FRONTIER_FAMILY = "frontier".getBytes(StandardCharsets.UTF_8);
    /**
     * Frontier logs cached on the heap (by the CLOCK rule: those not looked up since the last sweep are evicted): about 270 bytes a log of one entry, so
     * 70 MB at most. A TPC-C round looks up some 30k keys and its collection appends to 20k others: 65,536 thrashed.
     */
    static final int FRONTIER_CACHE = 1 << 18;

    private Path dir;
    private final boolean deleteOnClose;
    private final long horizonMillis;
    private final LongSupplier clock;
    private DBOptions dbOptions;
    private ColumnFamilyOptions cfOptions;
    private BloomFilter bloom;
    private RocksDB db;
    private ColumnFamilyHandle defaultFamily, frontierFamily;
    private long frontierKeys;
    private final FrontierLogCache frontierCache;
    /** Oldest first; the last is where writes go. */
    private final List<Generation> generations = new ArrayList<>();
    private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    private SortedBatch batch = new SortedBatch();
    private int batched;
    /** Puts per batch handed to the writer thread (also at the end of a round: {@link #writeBehind}). */
    static final int BATCH_PUTS = 10_000;
    /** Batches handed to the writer thread and not yet known to be written, at most: the verifier waits for the oldest past this. */
    static final int MAX_IN_FLIGHT = 4;
    private final int batchPuts, maxInFlight;
    /**
     * Write-behind: a full batch is written by this thread while the verifier goes on (it used to wait: 18 s of 140 on 1M
     * TPC-C transactions). Up to {@link #MAX_IN_FLIGHT} batches wait or are being written, oldest first, while the next one
     * fills; a read looks in them ({@link #pending}) and does not wait (it used to wait for every batch: 4.5 s of a
     * 61 s TPC-C 1M run, the writer thread sharing the second core with the JVM's collector and compiler); sync, close,
     * the start of a generation and a checkpoint's export wait for all ({@link #settle}).
     */
    private java.util.concurrent.ExecutorService writer; // started with the first batch, stopped by close
    private final java.util.ArrayDeque<InFlight> inFlight = new java.util.ArrayDeque<>();

    /** Tests only: while set, each batch handed over then waits for it before it is written (so that reads meet batches in flight). */
    volatile java.util.concurrent.CountDownLatch holdWrites;

    /** A batch handed to the writer thread, and its write. */
    private record InFlight(SortedBatch batch, java.util.concurrent.Future<?> written) {}
    private long size, forgotten;
    private long forgottenBefore = -1;

    private record Generation(long startedAt, long seq, ColumnFamilyHandle handle) {}

    /** Opens (or creates) a store in {@code dir} with the default horizon; with {@code deleteOnClose} the directory is removed by {@link #close}. */
    public RocksDbCollectedWrites(Path dir, boolean deleteOnClose) { this(dir, deleteOnClose, DEFAULT_HORIZON_MILLIS, System::currentTimeMillis); }

    /** As above, forgetting writes collected more than {@code horizonMillis} ago by {@code clock} (milliseconds). */
    public RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock) {
        this(dir, deleteOnClose, horizonMillis, clock, FRONTIER_CACHE);
    }

    /** As above, with at most {@code frontierCache} frontier logs on the heap (tests: a small cache reads logs from disk). */
    RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock, int frontierCache) {
        this(dir, deleteOnClose, horizonMillis, clock, frontierCache, BATCH_PUTS, MAX_IN_FLIGHT);
    }

    /** As above, with batches of {@code batchPuts} puts and at most {@code maxInFlight} of them handed to the writer (tests: small ones). */
    RocksDbCollectedWrites(Path dir, boolean deleteOnClose, long horizonMillis, LongSupplier clock, int frontierCache, int batchPuts, int maxInFlight) {
        if (horizonMillis < GENERATIONS) throw new IllegalArgumentException("a horizon of " + horizonMillis + " ms is too short");
        if (batchPuts < 1 || maxInFlight < 1) throw new IllegalArgumentException(batchPuts + " puts per batch, " + maxInFlight + " batches in flight");
        this.batchPuts = batchPuts;
        this.maxInFlight = maxInFlight;
        this.frontierCache = new FrontierLogCache(frontierCache, this::putFrontierLog);
        this.dir = dir;
        this.deleteOnClose = deleteOnClose;
        this.horizonMillis = horizonMillis;
        this.clock = clock;
        if (dir != null) open();
    }

    /** A store in a fresh temporary directory, created on the first write and removed on close. */
    public static RocksDbCollectedWrites temporary() { return new RocksDbCollectedWrites(null, true, DEFAULT_HORIZON_MILLIS, System::currentTimeMillis); }

    private void open() {
        try {
            if (dir == null) dir = Files.createTempDirectory("cobra-collected-");
            Files.createDirectories(dir);
            dbOptions = new DBOptions().setCreateIfMissing(true);
            cfOptions = new ColumnFamilyOptions().setWriteBufferSize(16L << 20).setMaxWriteBufferNumber(2);
            // a Bloom filter per table file: most keys a round looks up in the logs (an insert's) were never collected, and
            // a lookup of an absent key then reads no block of the files that cannot hold it, however many levels the store grows
            bloom = new BloomFilter(10, false);
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
            db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
            defaultFamily = handles.get(0);
            frontierFamily = handles.get(1);
            try (RocksIterator it = db.newIterator(frontierFamily)) {
                it.seekToFirst();
                frontierKeys = it.isValid() ? 1 : 0; // at least one: a round looks keys up
            }
            for (int i = 2; i < handles.size(); i++) {
                String[] f = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8).substring(PREFIX.length()).split("-");
                generations.add(new Generation(Long.parseLong(f[1]), Long.parseLong(f[0]), handles.get(i)));
            }
            generations.sort(Comparator.comparingLong(Generation::seq));
        } catch (RocksDBException | IOException | RuntimeException e) {
            throw new IllegalStateException("cannot open the collected-writes store in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(String key, String value, Entry e) {
        if (db == null) open();
        try {
            ColumnFamilyHandle h = current();
            batch.put(h, id(key, value), encode(e));
            size++;
            if (++batched >= batchPuts) flush();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** The generation writes go to now: a new one when the newest is older than a generation's span; old ones dropped. */
    private ColumnFamilyHandle current() throws RocksDBException {
        long now = clock.getAsLong();
        long span = horizonMillis / GENERATIONS;
        Generation newest = generations.isEmpty() ? null : generations.get(generations.size() - 1);
        if (newest == null || now - newest.startedAt() >= span) {
            settle(); // the batch holds puts to the generation that is ending
            long seq = newest == null ? 1 : newest.seq() + 1;
            ColumnFamilyHandle h = db.createColumnFamily(new ColumnFamilyDescriptor((PREFIX + seq + "-" + now).getBytes(StandardCharsets.UTF_8), cfOptions));
            generations.add(new Generation(now, seq, h));
            // a generation whose successor started more than the horizon ago holds nothing younger than the horizon
            while (generations.size() > 1 && now - generations.get(1).startedAt() > horizonMillis) {
                Generation old = generations.remove(0);
                forgottenBefore = Math.max(forgottenBefore, generations.get(0).startedAt());
                forgotten += db.getLongProperty(old.handle(), "rocksdb.estimate-num-keys"); // O(1): no scan in a round
                db.dropColumnFamily(old.handle());
                old.handle().close();
            }
            newest = generations.get(generations.size() - 1);
        }
        return newest.handle();
    }

    /**
     * Hands the batch to the writer thread, after waiting for the oldest batch handed before when {@link #MAX_IN_FLIGHT}
     * are not known to be written; those known to be written leave the queue (a failed write is this call's failure).
     */
    private void flush() throws RocksDBException {
        if (batched == 0) return;
        while (!inFlight.isEmpty() && (inFlight.size() >= maxInFlight || inFlight.peekFirst().written().isDone())) awaitOldest();
        SortedBatch full = batch;
        RocksDB target = db;
        if (writer == null) writer = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cobra-collected-writes");
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.CountDownLatch hold = holdWrites;
        inFlight.addLast(new InFlight(full, writer.submit(() -> { // one thread: batches are written in the order handed over
            if (hold != null) hold.await();
            try (WriteBatch sorted = full.toWriteBatch()) { // sorted here, off the verifier's thread
                target.write(writeOptions, sorted);
            }
            return null;
        })));
        batch = new SortedBatch();
        batched = 0;
    }

    /** Waits until the oldest batch handed over is written, and drops it from the queue; its failure is this call's. */
    private void awaitOldest() throws RocksDBException {
        InFlight w = inFlight.removeFirst();
        try {
            w.written().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("collected-writes store: interrupted while a batch was written", e);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RocksDBException r) throw r;
            throw new IllegalStateException("collected-writes store: " + e.getCause(), e.getCause());
        }
    }

    /** Writes everything put so far (the batch, and those handed over): what RocksDB alone must hold. */
    private void settle() throws RocksDBException {
        flush();
        while (!inFlight.isEmpty()) awaitOldest();
    }

    /**
     * The value of the latest put of {@code key} to {@code family} not yet known to be written: in the batch being filled,
     * else in those handed over, newest first; null when none holds one (RocksDB then has the latest). A read asks here
     * first: a batch in the writer's hands may or may not be in RocksDB yet, and a later batch overrides an earlier one.
     */
    private byte[] pending(ColumnFamilyHandle family, byte[] key) {
        int h = SortedBatch.hash(key);
        byte[] v = batch.find(family, key, h);
        for (java.util.Iterator<InFlight> it = inFlight.descendingIterator(); v == null && it.hasNext(); ) v = it.next().batch().find(family, key, h);
        return v;
    }

    /** {@code pending}, else RocksDB's value of {@code key} in {@code family}. */
    private byte[] read(ColumnFamilyHandle family, byte[] key) throws RocksDBException {
        byte[] v = pending(family, key);
        return v != null ? v : db.get(family, key);
    }

    @Override
    public Entry get(String key, String value) {
        if (db == null) return null;
        FrontierEntry f = frontierKeys == 0 ? null : FrontierLog.naming(frontierLog(key), value);
        if (f != null) return FrontierLog.asEntry(f);
        try {
            byte[] k = id(key, value);
            for (int i = generations.size() - 1; i >= 0; i--) {
                byte[] v = read(generations.get(i).handle(), k);
                if (v != null) return decode(v);
            }
            byte[] v = read(defaultFamily, k); // a store written before generations existed
            return v == null ? null : decode(v);
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /**
     * As {@link #get} for each pair. A pair whose key's frontier log is cached and names its value as written by a
     * transaction is answered from the log ({@link FrontierLog#asEntry}): a frontier write collected as data lives there
     * (not put) while the log names it, and an entry of a dropped generation is still known this way. The rest, per
     * generation (newest first, then the default family): from a batch not yet written ({@link #pending}), else one
     * {@code multiGet} for the pairs not
     * found yet, {@link #PREFETCH_BATCH} at a time, and last the logs of the keys still not found (read in one batch, as
     * {@link #frontierLogs} reads them).
     */
    @Override
    public Entry[] getAll(List<String> keys, List<String> values) {
        if (keys.size() != values.size()) throw new IllegalArgumentException(keys.size() + " keys and " + values.size() + " values");
        Entry[] out = new Entry[keys.size()];
        if (db == null || out.length == 0) return out;
        List<Integer> ask = new ArrayList<>(out.length);
        for (int i = 0; i < out.length; i++) {
            List<FrontierEntry> log = frontierCache.get(keys.get(i));
            FrontierEntry f = log == null ? null : FrontierLog.naming(log, values.get(i));
            if (f != null) out[i] = FrontierLog.asEntry(f);
            else ask.add(i);
        }
        if (ask.isEmpty()) return out;
        try {
            List<ColumnFamilyHandle> families = new ArrayList<>(generations.size() + 1);
            for (int g = generations.size() - 1; g >= 0; g--) families.add(generations.get(g).handle());
            families.add(defaultFamily); // a store written before generations existed
            List<Integer> notFound = new ArrayList<>();
            for (int from = 0; from < ask.size(); from += PREFETCH_BATCH) {
                int to = Math.min(ask.size(), from + PREFETCH_BATCH);
                byte[][] ids = new byte[to - from][];
                for (int a = from; a < to; a++) ids[a - from] = id(keys.get(ask.get(a)), values.get(ask.get(a)));
                List<Integer> missing = new ArrayList<>(to - from);
                for (int a = from; a < to; a++) missing.add(a);
                for (ColumnFamilyHandle h : families) {
                    if (missing.isEmpty()) break;
                    // a put not yet written first (newer than what RocksDB holds), then one multiGet for the rest
                    List<Integer> stored = new ArrayList<>(missing.size());
                    for (int i : missing) {
                        byte[] v = pending(h, ids[i - from]);
                        if (v != null) out[ask.get(i)] = decode(v);
                        else stored.add(i);
                    }
                    if (stored.isEmpty()) { missing = stored; break; }
                    List<ColumnFamilyHandle> hs = new ArrayList<>(stored.size());
                    List<byte[]> raw = new ArrayList<>(stored.size());
                    for (int i : stored) { hs.add(h); raw.add(ids[i - from]); }
                    List<byte[]> found = db.multiGetAsList(hs, raw);
                    List<Integer> still = new ArrayList<>();
                    for (int j = 0; j < stored.size(); j++) {
                        byte[] v = found.get(j);
                        if (v != null) out[ask.get(stored.get(j))] = decode(v);
                        else still.add(stored.get(j));
                    }
                    missing = still;
                }
                for (int a : missing) notFound.add(ask.get(a));
            }
            // a frontier write collected as data whose log is not cached: the log names it
            if (!notFound.isEmpty() && frontierKeys > 0) {
                List<String> logKeys = new ArrayList<>(notFound.size());
                for (int i : notFound) logKeys.add(keys.get(i));
                List<List<FrontierEntry>> logs = frontierLogs(logKeys);
                for (int j = 0; j < notFound.size(); j++) {
                    FrontierEntry f = FrontierLog.naming(logs.get(j), values.get(notFound.get(j)));
                    if (f != null) out[notFound.get(j)] = FrontierLog.asEntry(f);
                }
            }
            return out;
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public long size() { return size; }

    @Override
    public void appendFrontier(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) {
        if (db == null) open();
        List<FrontierEntry> before = frontierLog(key);
        List<FrontierEntry> after = FrontierLog.append(before, e, visible, keepFrom);
        try {
            putDropped(key, before, after);
            if (e.value() != null) size++;
            if (before.isEmpty()) frontierKeys++;
            frontierCache.putChanged(key, after); // put when evicted, or by the next sync (write-back)
            if (changedFrontiers != null) changedFrontiers.add(key);
            if (batched >= batchPuts) flush();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** Puts {@code key}'s frontier log in the batch: the cache's {@link FrontierLogCache.WriteBack}. */
    private void putFrontierLog(String key, List<FrontierEntry> log) {
        batch.put(frontierFamily, key.getBytes(StandardCharsets.UTF_8), FrontierLog.encode(log));
        batched++;
    }

    /** Puts every frontier log changed in the cache and not yet put, then {@link #settle}s: RocksDB holds everything put. */
    private void writeBackAndSettle() throws RocksDBException {
        frontierCache.writeBack();
        settle();
    }

    /** Puts, as collected writes, the writes {@code before} named and {@code after} does not (the log stood for their entries). */
    private void putDropped(String key, List<FrontierEntry> before, List<FrontierEntry> after) throws RocksDBException {
        List<FrontierEntry> dropped = FrontierLog.droppedWrites(before, after);
        if (dropped.isEmpty()) return;
        ColumnFamilyHandle h = current();
        for (FrontierEntry d : dropped) {
            batch.put(h, id(key, d.value()), encode(FrontierLog.asEntry(d)));
            batched++;
        }
    }

    @Override
    public List<FrontierEntry> frontierLog(String key) {
        if (db == null) return List.of();
        List<FrontierEntry> cached = frontierCache.get(key);
        if (cached != null) return cached;
        try {
            List<FrontierEntry> log = FrontierLog.decode(read(frontierFamily, key.getBytes(StandardCharsets.UTF_8)));
            frontierCache.put(key, log);
            return log;
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /**
     * Reads the logs of {@code keys} that are not cached with one {@code multiGet} (those written in a batch not yet written: from the batch) and
     * caches them, at most {@link #FRONTIER_CACHE} at a time: a lookup each, one crossing into RocksDB instead of one
     * per key, and the later {@link #frontierLog} calls hit the cache.
     */
    @Override
    public void prefetchFrontierLogs(java.util.Collection<String> keys) {
        if (db == null || frontierKeys == 0 || keys.isEmpty()) return;
        List<String> missing = new ArrayList<>(keys.size());
        for (String k : keys) if (!frontierCache.containsKey(k)) missing.add(k);
        readFrontierLogs(missing);
    }

    /**
     * As the interface says, with one cache lookup per key: the logs not cached are read as {@link #prefetchFrontierLogs}
     * reads them (so a batch larger than the cache returns every log, though not all stay cached).
     */
    @Override
    public List<List<FrontierEntry>> frontierLogs(List<String> keys) {
        List<List<FrontierEntry>> out = new ArrayList<>(keys.size());
        List<Integer> at = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            List<FrontierEntry> cached = db == null ? List.of() : frontierCache.get(keys.get(i));
            out.add(cached);
            if (cached == null) { at.add(i); missing.add(keys.get(i)); }
        }
        List<List<FrontierEntry>> read = frontierKeys == 0 ? null : readFrontierLogs(missing);
        for (int j = 0; j < at.size(); j++) out.set(at.get(j), read == null ? List.of() : read.get(j));
        return out;
    }

    /**
     * Reads the logs of {@code keys} (none of them cached): those with a write not yet known to be written from their
     * batches ({@link #pending}), the rest with a {@code multiGet} per {@link #PREFETCH_BATCH}; caches them and returns
     * them in order.
     */
    private List<List<FrontierEntry>> readFrontierLogs(List<String> keys) {
        List<List<FrontierEntry>> out = new ArrayList<>(keys.size());
        if (keys.isEmpty()) return out;
        try {
            for (int from = 0; from < keys.size(); from += PREFETCH_BATCH) {
                List<String> part = keys.subList(from, Math.min(keys.size(), from + PREFETCH_BATCH));
                byte[][] raw = new byte[part.size()][], got = new byte[part.size()][];
                List<byte[]> stored = new ArrayList<>(part.size());
                List<ColumnFamilyHandle> families = new ArrayList<>(part.size());
                for (int i = 0; i < part.size(); i++) {
                    raw[i] = part.get(i).getBytes(StandardCharsets.UTF_8);
                    got[i] = pending(frontierFamily, raw[i]);
                    if (got[i] == null) { stored.add(raw[i]); families.add(frontierFamily); }
                }
                List<byte[]> read = stored.isEmpty() ? List.of() : db.multiGetAsList(families, stored);
                for (int i = 0, j = 0; i < part.size(); i++) {
                    List<FrontierEntry> log = FrontierLog.decode(got[i] != null ? got[i] : read.get(j++));
                    frontierCache.put(part.get(i), log);
                    out.add(log);
                }
            }
            return out;
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** Keys per {@code multiGet} of {@link #prefetchFrontierLogs}: a part of the cache, so that one batch never evicts itself. */
    static final int PREFETCH_BATCH = FRONTIER_CACHE / 4;

    @Override
    public boolean hasFrontiers() { return frontierKeys > 0; }

    /** The default family's key of the checkpoint mark (no collected write lives in that family). */
    private static final byte[] MARK = "checkpoint-mark".getBytes(StandardCharsets.UTF_8);

    @Override
    public void markCheckpoint(long offset) {
        if (db == null) open();
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            writeBackAndSettle();
            db.put(defaultFamily, MARK, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
            db.flush(fo, defaultFamily);
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public long checkpointMark() {
        if (db == null) return -1;
        try {
            byte[] b = db.get(defaultFamily, MARK);
            return b == null ? -1 : Long.parseLong(new String(b, StandardCharsets.UTF_8));
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public boolean isEmpty() { return db == null || (generations.isEmpty() && frontierKeys == 0 && checkpointMark() < 0); }

    /** Where it lives (null before its first write, for a temporary one). */
    public Path dir() { return dir; }

    /** Keys whose frontier log changed since they were last taken; null: not tracked. */
    private Set<String> changedFrontiers;

    @Override
    public void trackFrontierChanges() { if (changedFrontiers == null) changedFrontiers = new HashSet<>(); }

    @Override
    public Set<String> takeChangedFrontiers() {
        if (changedFrontiers == null || changedFrontiers.isEmpty()) return Set.of();
        Set<String> out = changedFrontiers;
        changedFrontiers = new HashSet<>();
        return out;
    }

    @Override
    public void importFrontierLog(String key, List<FrontierEntry> log) {
        if (db == null) open();
        List<FrontierEntry> before = frontierLog(key);
        boolean had = !before.isEmpty();
        try {
            putDropped(key, before, log);
            if (!had && !log.isEmpty()) frontierKeys++;
            frontierCache.putChanged(key, List.copyOf(log));
            if (batched >= batchPuts) flush();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** Frontier logs on the heap now (tests: bounded by {@link #FRONTIER_CACHE}). */
    int frontierCacheSize() { return frontierCache.size(); }

    /** Whether {@code key}'s log is on the heap now (tests). */
    boolean frontierCached(String key) { return frontierCache.containsKey(key); }

    /** Writes forgotten so far (in generations dropped by this instance; RocksDB's estimate of their keys). */
    public long forgotten() { return forgotten; }

    /** How many generations the store holds now (tests). */
    int generationCount() { return generations.size(); }

    @Override
    public String horizonNote() {
        if (forgottenBefore < 0) return null;
        return "or a write collected before " + Instant.ofEpochMilli(forgottenBefore) + ", which the verifier no longer remembers (it keeps "
                + horizonMillis / 3_600_000.0 + " hours of collected writes)";
    }

    /** A collected write's key in its generation: the key's and the value's UTF-8 bytes, a zero byte between them. */
    static byte[] id(String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8), v = value.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1 + v.length];
        System.arraycopy(k, 0, out, 0, k.length);
        System.arraycopy(v, 0, out, k.length + 1, v.length);
        return out;
    }

    /**
     * A collected write's entry, as text in UTF-8: its fate's ordinal (one digit), the writer, then zero-byte separated the
     * superseding writer (empty for none), the round and the incarnation in decimal; {@link #decode} reads it back. Built
     * into one array of the exact size (string concatenation, with its decimal conversions, was 4% of a TPC-C round).
     */
    static byte[] encode(Entry e) {
        byte[] w = String.valueOf(e.writer()).getBytes(StandardCharsets.UTF_8);
        byte[] by = e.supersededBy() == null ? new byte[0] : e.supersededBy().getBytes(StandardCharsets.UTF_8);
        int roundLength = decimalLength(e.round()), incarnationLength = decimalLength(e.incarnation());
        byte[] out = new byte[1 + w.length + 1 + by.length + 1 + roundLength + 1 + incarnationLength];
        int at = 0;
        out[at++] = (byte) ('0' + e.fate().ordinal());
        System.arraycopy(w, 0, out, at, w.length);
        at += w.length + 1; // (the separator: arrays start zeroed)
        System.arraycopy(by, 0, out, at, by.length);
        at += by.length + 1;
        putDecimal(out, at, roundLength, e.round());
        at += roundLength + 1;
        putDecimal(out, at, incarnationLength, e.incarnation());
        return out;
    }

    /** The characters of {@code v} in decimal, its sign included. */
    static int decimalLength(long v) {
        int n = v < 0 ? 2 : 1;
        for (long q = v < 0 ? v : -v; q <= -10; q /= 10) n++; // on the negative magnitude: Long.MIN_VALUE has no positive one
        return n;
    }

    /** Writes {@code v} in decimal into {@code b[from, from + length)}, {@code length} being its {@link #decimalLength}. */
    private static void putDecimal(byte[] b, int from, int length, long v) {
        long q = v < 0 ? v : -v;
        int i = from + length - 1;
        do {
            b[i--] = (byte) ('0' - q % 10);
            q /= 10;
        } while (q != 0);
        if (v < 0) b[from] = '-';
    }

    static Entry decode(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        String[] f = s.substring(1).split("\0", -1);
        Fate fate = Fate.values()[s.charAt(0) - '0'];
        return new Entry(f[0], f[1].isEmpty() ? null : f[1], fate, Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    @Override
    public void writeBehind() {
        if (db == null) return;
        try {
            flush();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** Writes the batch and flushes the memtables to disk (the store writes no log): what was put survives a crash. */
    @Override
    public void sync() {
        if (db == null) return;
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            writeBackAndSettle();
            List<ColumnFamilyHandle> all = new ArrayList<>();
            all.add(frontierFamily);
            for (Generation g : generations) all.add(g.handle());
            if (!all.isEmpty()) db.flush(fo, all);
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close() {
        try {
            if (db != null) writeBackAndSettle();
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        } finally {
            if (writer != null) writer.shutdown();
            writer = null;
        }
        writeOptions.close();
        if (db == null) return;
        for (Generation g : generations) g.handle().close();
        generations.clear();
        frontierFamily.close();
        frontierCache.clear();
        defaultFamily.close();
        db.close();
        dbOptions.close();
        cfOptions.close();
        bloom.close();
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
