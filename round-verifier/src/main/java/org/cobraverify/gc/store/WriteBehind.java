package org.cobraverify.gc.store;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The store's puts, batched and written behind. Writes are batched, skip the write-ahead log and are written behind (by a
 * thread of their own, one batch at a time, in key order: {@link SortedBatch}; a read looks in the batches not yet written
 * before it reads RocksDB, newest first, so it sees every write put before it without waiting for them:
 * {@link #pending}, {@link #read}); the store's sync settles them ({@link #settle}) before the verifier commits a
 * checkpoint. Puts fill a batch; a full one ({@link #flushIfFull}), or the one being filled ({@link #flush}), is handed over.
 *
 * <p>Write-behind: a full batch is written by this thread while the verifier goes on (it used to wait: 18 s of 140 on 1M
 * TPC-C transactions). Up to {@link #MAX_IN_FLIGHT} batches wait or are being written, oldest first, while the next one
 * fills; a read looks in them ({@link #pending}) and does not wait (it used to wait for every batch: 4.5 s of a
 * 61 s TPC-C 1M run, the writer thread sharing the second core with the JVM's collector and compiler); sync, close,
 * the start of a generation and a checkpoint's export wait for all ({@link #settle}).
 *
 * <p>Contract: one caller thread (the store's) calls every method, one at a time; {@link #attach} comes before the first
 * batch is handed over, and {@link #stop} before {@link #close}. The writer thread touches only what a hand-over gives it
 * (the batch, read only from then on, the database and the write options, both closed only after {@link #settle} and
 * {@link #stop}). A batch leaves the queue only once its write is known to be done ({@code Future.get}: the write
 * happens-before), so a read that finds no pending put reads a RocksDB holding every batch that left. A failed write is
 * the failure of the call that learns of it ({@link #flush} or {@link #settle}).
 *
 * <p>Invariants: at most {@code maxInFlight} batches in {@code inFlight} once a batch is handed over, oldest first; the
 * batch being filled is in no one else's hands.
 */
final class WriteBehind {
    /** Puts per batch handed to the writer thread (also at the end of a round: {@link RocksDbCollectedWrites#writeBehind}). */
    static final int BATCH_PUTS = 10_000;
    /** Batches handed to the writer thread and not yet known to be written, at most: the verifier waits for the oldest past this. */
    static final int MAX_IN_FLIGHT = 4;

    /** A batch handed to the writer thread, and its write. */
    private record InFlight(SortedBatch batch, Future<?> written) {}

    private final int batchPuts, maxInFlight;
    private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    private RocksDB db;
    private SortedBatch batch = new SortedBatch();
    private ExecutorService writer; // started with the first batch, stopped by stop (the store's close)
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    /** Tests only: while set, each batch handed over then waits for it before it is written (so that reads meet batches in flight). */
    private volatile CountDownLatch holdWrites;

    /** Batches of {@code batchPuts} puts, at most {@code maxInFlight} of them handed to the writer and not known to be written. */
    WriteBehind(int batchPuts, int maxInFlight) {
        if (batchPuts < 1 || maxInFlight < 1) throw new IllegalArgumentException(batchPuts + " puts per batch, " + maxInFlight + " batches in flight");
        this.batchPuts = batchPuts;
        this.maxInFlight = maxInFlight;
    }

    /** The database the batches are written to, once it is open. */
    void attach(RocksDB db) {
        if (this.db != null) throw new IllegalStateException("the write-behind already writes to a database");
        this.db = db;
    }

    /**
     * Adds a put to the batch being filled (a later put of the same key and family wins). Families are told apart by
     * identity: one handle object per family ({@link SortedBatch#put}).
     */
    void put(ColumnFamilyHandle family, byte[] key, byte[] value) { batch.put(family, key, value); }

    /** {@link #flush}es when the batch being filled holds {@code batchPuts} puts or more. */
    void flushIfFull() throws RocksDBException {
        if (batch.size() >= batchPuts) flush();
    }

    /**
     * Hands the batch to the writer thread, after waiting for the oldest batch handed before when {@link #MAX_IN_FLIGHT}
     * are not known to be written; those known to be written leave the queue (a failed write is this call's failure).
     */
    void flush() throws RocksDBException {
        if (batch.size() == 0) return;
        if (db == null) throw new IllegalStateException("puts to hand over and no database to write them to");
        while (!inFlight.isEmpty() && (inFlight.size() >= maxInFlight || inFlight.peekFirst().written().isDone())) awaitOldest();
        SortedBatch full = batch;
        RocksDB target = db;
        if (writer == null) writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cobra-collected-writes");
            t.setDaemon(true);
            return t;
        });
        CountDownLatch hold = holdWrites;
        inFlight.addLast(new InFlight(full, writer.submit(() -> { // one thread: batches are written in the order handed over
            if (hold != null) hold.await();
            try (WriteBatch sorted = full.toWriteBatch()) { // sorted here, off the verifier's thread
                target.write(writeOptions, sorted);
            }
            return null;
        })));
        batch = new SortedBatch();
        assert inFlight.size() <= maxInFlight : inFlight.size() + " batches in flight";
    }

    /** Waits until the oldest batch handed over is written, and drops it from the queue; its failure is this call's. */
    private void awaitOldest() throws RocksDBException {
        InFlight w = inFlight.removeFirst();
        try {
            w.written().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("collected-writes store: interrupted while a batch was written", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RocksDBException r) throw r;
            throw new IllegalStateException("collected-writes store: " + e.getCause(), e.getCause());
        }
    }

    /** Writes everything put so far (the batch, and those handed over): what RocksDB alone must hold. */
    void settle() throws RocksDBException {
        flush();
        while (!inFlight.isEmpty()) awaitOldest();
    }

    /**
     * The value of the latest put of {@code key} to {@code family} not yet known to be written: in the batch being filled,
     * else in those handed over, newest first; null when none holds one (RocksDB then has the latest). A read asks here
     * first: a batch in the writer's hands may or may not be in RocksDB yet, and a later batch overrides an earlier one.
     */
    byte[] pending(ColumnFamilyHandle family, byte[] key) {
        int h = SortedBatch.hash(key);
        byte[] v = batch.find(family, key, h);
        for (Iterator<InFlight> it = inFlight.descendingIterator(); v == null && it.hasNext(); ) v = it.next().batch().find(family, key, h);
        return v;
    }

    /** {@code pending}, else RocksDB's value of {@code key} in {@code family}. */
    byte[] read(ColumnFamilyHandle family, byte[] key) throws RocksDBException {
        byte[] v = pending(family, key);
        return v != null ? v : db.get(family, key);
    }

    /** Tests only: while {@code latch} is set (non-null), each batch handed over waits for it before it is written. */
    void holdWrites(CountDownLatch latch) { holdWrites = latch; }

    /** Stops the writer thread once the batches handed to it are written (it takes no new ones); a later batch starts another. */
    void stop() {
        if (writer != null) writer.shutdown();
        writer = null;
    }

    /** Closes the write options; contract: {@link #stop}ped first, so no write uses them afterwards. */
    void close() {
        if (writer != null) throw new IllegalStateException("the writer thread still runs: stop it first");
        writeOptions.close();
        db = null;
    }
}
