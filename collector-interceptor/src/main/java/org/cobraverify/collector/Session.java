package org.cobraverify.collector;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One client session of a {@link Recorder}: begin, read, write, commit or abort, one transaction at a
 * time, from one thread. Every transaction is recorded with its operations, outcome and timestamps;
 * a record the sink refuses fails the call with {@link RecordingException}. Sessions issue a fence
 * transaction (a read-modify-write of the fence key, retried until it commits) before their first
 * transaction, after every {@code fenceEvery} committed transactions, and when it closes (if it committed
 * anything since its last one).
 *
 * <p>Fences: docs/DESIGN.md §6.3; write ids: assumption A1 (§7.1).
 */
public final class Session {
    private final Recorder rec;
    private final String id, idPrefix;
    private long txnCounter, writeCounter, committedSinceFence;
    // the adaptive fence period: moving averages of a committed transaction's and a fence's duration (ns; 0: none yet)
    private double txnNanos, fenceNanos;
    private long beganAt;
    private boolean fencedAtStart;
    /** A transaction that committed (or may have) since the last fence. */
    private boolean unfenced;
    private KvTransaction txn;
    private List<TxnRecord.Op> ops;
    private long start;
    private String txnId;
    private boolean closed;

    Session(Recorder rec, int number) {
        this.rec = rec;
        this.id = rec.run + "-c" + number; // unique across recorders: many processes publish to one pipeline
        this.idPrefix = rec.run + "." + Integer.toString(number, 36) + ".";
    }

    public String id() { return id; }

    private static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    public void begin() throws StoreException {
        if (txn != null) throw new IllegalStateException("session " + id + " already has an open transaction");
        if (closed) throw new IllegalStateException("session " + id + " is closed");
        if (!fencedAtStart && rec.options.fenceEvery() > 0) {
            // a session starts with a fence: its transactions then follow the fence chain from the first one on,
            // which is what lets a verifier that has garbage-collected the past check them against it
            fencedAtStart = true;
            fence(false);
        }
        start = now();
        beganAt = System.nanoTime();
        txnId = idPrefix + "t" + Long.toString(++txnCounter, 36);
        ops = new ArrayList<>(8);
        txn = rec.store.begin();
    }

    /** Reads a key; returns the application's value (the write id stripped), or null if never written. */
    public String read(String key) throws StoreException { return read(key, false); }

    /** As {@link #read}, for a key the transaction will write: locking stores take the write lock now. */
    public String readForUpdate(String key) throws StoreException { return read(key, true); }

    private String read(String key, boolean forUpdate) throws StoreException {
        requireOpen();
        String stored;
        try {
            stored = forUpdate ? txn.getForUpdate(key) : txn.get(key);
        } catch (AbortedException e) {
            abandon();
            throw e;
        }
        if (stored == null) {
            ops.add(new TxnRecord.Op(false, key, null));
            return null;
        }
        String[] d = Recorder.decode(stored);
        if (d == null) {
            ops.add(new TxnRecord.Op(false, key, "untagged:" + stored));
            return stored;
        }
        ops.add(new TxnRecord.Op(false, key, d[0]));
        return d[1];
    }

    public void write(String key, String value) throws StoreException {
        requireOpen();
        String wid = idPrefix + Long.toString(++writeCounter, 36);
        String stored = Recorder.encode(wid, value);
        rec.addedBytes.add(stored.length() - value.length());
        ops.add(new TxnRecord.Op(true, key, wid));
        try {
            txn.put(key, stored);
        } catch (AbortedException e) {
            abandon();
            throw e;
        }
    }

    /**
     * Commits. {@link AbortedException}: the store refused (recorded as aborted). {@link StoreException}:
     * the outcome is unknown (recorded so). Either way the transaction is over.
     */
    public void commit() throws StoreException {
        requireOpen();
        commit0();
        if (rec.options.fenceEvery() <= 0) return;
        long took = System.nanoTime() - beganAt;
        txnNanos = txnNanos == 0 ? took : 0.95 * txnNanos + 0.05 * took;
        if (++committedSinceFence >= fencePeriod()) {
            committedSinceFence = 0;
            fence();
        }
    }

    /**
     * Commits between fences now: {@code fenceEvery}, or more while a fence costs more than {@code fenceShare} of the
     * time the period's transactions take (the smallest period whose fence share is within it), at most
     * {@code maxFenceEvery}.
     */
    public int fencePeriod() {
        Recorder.Options o = rec.options;
        if (!o.adaptive() || txnNanos == 0 || fenceNanos == 0) return o.fenceEvery();
        double needed = fenceNanos / (o.fenceShare() * txnNanos);
        return (int) Math.max(o.fenceEvery(), Math.min(o.maxFenceEvery(), Math.ceil(needed)));
    }

    public void abort() throws StoreException {
        requireOpen();
        try {
            txn.rollback();
        } finally {
            finish(TxnRecord.Status.ABORTED);
        }
    }

    /**
     * Ends the session: an open transaction is rolled back (recorded as aborted), and the sink is told that
     * the session records nothing more. Idempotent.
     */
    public void close() throws StoreException {
        if (closed) return;
        try {
            if (txn != null) abort();
            // a session ends with a fence when it committed anything since its last one: its last transactions
            // then precede the fence chain's later links, which is what lets a verifier retire them at once (without
            // it, rounds over a file hold them to the end, and the pipeline's verifier waits 20 rounds for the session)
            if (unfenced && rec.options.fenceEvery() > 0) fence();
        } finally {
            closed = true;
            try {
                rec.sink.endSession(id);
            } catch (IOException | RuntimeException e) {
                throw new RecordingException("the end of session " + id + " could not be recorded: " + e.getMessage(), e);
            }
        }
    }

    /** A fence: read-modify-write of the fence key, retried until it commits; its duration adapts the period ({@link #fencePeriod}). */
    public void fence() throws StoreException { fence(true); }

    /**
     * A fence; {@code measured}: its duration feeds the adaptive period. A session's opening fence does not: it runs
     * with every other session's opening fence on the one fence key, against a store and code not yet warm, so it
     * costs what no periodic fence does. Measured, it set the period to its longest for the first ~50k transactions of
     * a 24-client TPC-C recording (the moving average forgets it one fence, so one long period, at a time), and those
     * coarse epochs held 11–20k transactions in a verifier's rounds where later ones hold 3k.
     */
    private void fence(boolean measured) throws StoreException {
        if (txn != null) throw new IllegalStateException("session " + id + " has an open transaction");
        long t0 = System.nanoTime();
        try {
            fence0();
        } finally {
            long took = System.nanoTime() - t0;
            if (measured) fenceNanos = fenceNanos == 0 ? took : 0.8 * fenceNanos + 0.2 * took;
        }
    }

    private void fence0() throws StoreException {
        if (swapFence()) return;
        for (int attempt = 0; ; attempt++) {
            try {
                begin();
                String e = readForUpdate(rec.options.fenceKey());
                long epoch = e == null || !e.matches("[0-9]{1,18}") ? 0 : Long.parseLong(e); // a swapped fence writes no number
                write(rec.options.fenceKey(), Long.toString(epoch + 1));
                commit0();
                fenced();
                return;
            } catch (AbortedException ex) {
                if (attempt > 10_000) throw ex;
                backoff(attempt);
            }
        }
    }

    /**
     * A fence as the store's atomic swap ({@link KvStore#swap}), where it has one and the fence key exists:
     * recorded like the transactional fence (a read of the key, then a write of it, committed). False: the
     * store has no swap, or the key does not exist yet; the caller runs the transaction.
     */
    private boolean swapFence() throws StoreException {
        String key = rec.options.fenceKey();
        start = now();
        txnId = idPrefix + "t" + Long.toString(txnCounter + 1, 36);
        String wid = idPrefix + Long.toString(writeCounter + 1, 36);
        String prev;
        for (int attempt = 0; ; attempt++) {
            try {
                prev = rec.store.swap(key, Recorder.encode(wid, "fence"));
                break;
            } catch (AbortedException ex) {
                if (attempt > 10_000) throw ex;
                backoff(attempt);
            } catch (StoreException ex) {
                // the outcome is unknown: recorded so, as a commit whose answer was lost
                recordSwap(key, null, wid, TxnRecord.Status.UNKNOWN);
                throw ex;
            }
        }
        if (prev == null) {
            // no key yet: create it (a write that read the initial state); if another session did first, swap after all
            try {
                if (!rec.store.createIfAbsent(key, Recorder.encode(wid, "fence"))) {
                    prev = rec.store.swap(key, Recorder.encode(wid, "fence"));
                    if (prev == null) return false;
                }
            } catch (AbortedException ex) {
                return false; // nothing happened: the transactional fence runs
            } catch (StoreException ex) {
                recordSwap(key, null, wid, TxnRecord.Status.UNKNOWN);
                throw ex;
            }
        }
        recordSwap(key, prev, wid, TxnRecord.Status.COMMITTED);
        fenced();
        return true;
    }

    /** A fence committed: nothing since it is unfenced, and it is counted. */
    private void fenced() {
        unfenced = false;
        rec.fenceTxns.increment();
        rec.addedBytes.add(2L * rec.options.fenceKey().length() + 24);
    }

    private void recordSwap(String key, String prev, String wid, TxnRecord.Status status) {
        txnCounter++;
        writeCounter++;
        ops = new ArrayList<>(2);
        String[] d = Recorder.decode(prev);
        if (prev != null || status == TxnRecord.Status.COMMITTED) ops.add(new TxnRecord.Op(false, key, prev == null ? null : d == null ? "untagged:" + prev : d[0]));
        ops.add(new TxnRecord.Op(true, key, wid));
        finish(status);
    }

    /** Fences of all sessions contend on one key: retry after a short randomized, growing pause. */
    private static void backoff(int attempt) {
        long maxMicros = Math.min(20_000, 100L << Math.min(attempt, 8));
        LockSupport.parkNanos(1000 * ThreadLocalRandom.current().nextLong(maxMicros + 1));
    }

    private void commit0() throws StoreException {
        try {
            txn.commit();
        } catch (AbortedException e) {
            abandon(); // a refused commit is over; rolling back again is harmless and frees anything left
            throw e;
        } catch (StoreException | RuntimeException e) {
            finish(TxnRecord.Status.UNKNOWN);
            throw e;
        }
        finish(TxnRecord.Status.COMMITTED);
    }

    /** The store aborted mid-transaction: release it and record the abort. */
    private void abandon() {
        try {
            txn.rollback();
        } catch (StoreException | RuntimeException ignored) {
            // the store already gave up on it
        }
        finish(TxnRecord.Status.ABORTED);
    }

    private void requireOpen() {
        if (txn == null) throw new IllegalStateException("session " + id + " has no open transaction");
    }

    private void finish(TxnRecord.Status status) {
        if (status != TxnRecord.Status.ABORTED) unfenced = true;
        TxnRecord r = new TxnRecord(txnId, id, status, start, now(), ops);
        txn = null;
        ops = null;
        try {
            rec.sink.record(r);
        } catch (IOException | RuntimeException e) {
            throw new RecordingException("transaction " + r.id() + " (" + status.name().toLowerCase()
                    + ") could not be recorded: " + e.getMessage(), e);
        }
    }
}
