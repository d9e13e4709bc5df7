package org.cobraverify.workloads;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.cobraverify.collector.AbortedException;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.KvTransaction;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.Session;
import org.cobraverify.collector.StoreException;

/**
 * Runs a workload with concurrent clients, each its own session and thread, through the recorder (or,
 * for overhead measurements, straight on the store), and measures throughput, latency and aborts.
 * Aborted transactions are counted, not retried.
 */
public final class WorkloadRunner {
    /** What a run did: counts, wall time, latencies of committed transactions (nanoseconds). */
    public record Result(long committed, long aborted, long unknown, long elapsedNanos, long[] latencies, long fences, long addedBytes) {
        public double throughput() { return committed / (elapsedNanos / 1e9); }

        public double percentileMillis(double p) {
            if (latencies.length == 0) return 0;
            int i = (int) Math.min(latencies.length - 1, Math.ceil(p / 100.0 * latencies.length) - 1);
            return latencies[Math.max(0, i)] / 1e6;
        }
    }

    /** Live counters, for progress display. */
    public static final class Progress {
        public final AtomicLong committed = new AtomicLong(), aborted = new AtomicLong(), unknown = new AtomicLong();
        /** The first error that ended a client, as soon as it happens (the run reports it when every client has ended). */
        public final java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    }

    private WorkloadRunner() {}

    /** Runs {@code txns} transactions in all (committed or not) over {@code clients} sessions; {@code recorder} null runs bare. */
    public static Result run(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed, Progress progress) throws Exception {
        return run(w, store, recorder, clients, txns, seed, 0, progress);
    }

    /**
     * As {@link #run(Workload, KvStore, Recorder, int, long, long, Progress)}, offering at most {@code rate}
     * transactions per second in all (0: as fast as the clients go): transaction i starts no earlier than
     * i / rate seconds after the start.
     */
    public static Result run(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed, double rate, Progress progress)
            throws Exception {
        return run(w, store, recorder, clients, txns, seed, rate, 0, progress);
    }

    /**
     * As {@link #run(Workload, KvStore, Recorder, int, long, long, double, Progress)}, with session churn: with
     * {@code sessionTxns > 0} and a recorder, each client ends its session after that many of its transactions
     * (whatever their outcome) and opens a new one, as a pooled application's connections come and go.
     */
    public static Result run(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed, double rate, long sessionTxns,
                             Progress progress) throws Exception {
        Random loadRnd = new Random(seed);
        Workload.Client loader = recorder != null ? new Recorded(recorder.openSession()) : new Bare(store);
        w.load(loader, loadRnd);
        loader.close();
        AtomicLong remaining = new AtomicLong(txns);
        long[][] lat = new long[clients][];
        int[] latN = new int[clients];
        List<Thread> threads = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        // the clock starts once every client has connected (the store's connectThread): both a bare and a recorded
        // run then time their transactions, not how long the database takes to start its backends
        CountDownLatch connected = new CountDownLatch(clients), go = new CountDownLatch(1);
        long[] start = new long[1];
        for (int i = 0; i < clients; i++) {
            final int id = i;
            Workload.Client first = recorder != null ? new Recorded(recorder.openSession()) : new Bare(store);
            Thread t = new Thread(() -> {
                Random rnd = new Random(seed * 31 + id);
                long[] mine = new long[1024];
                int n = 0;
                Workload.Client client = first;
                long inSession = 0;
                try {
                    try {
                        store.connectThread();
                    } finally {
                        connected.countDown();
                    }
                    go.await();
                    long t0 = start[0];
                    long k;
                    while ((k = remaining.getAndDecrement()) > 0) {
                        if (sessionTxns > 0 && recorder != null && inSession++ == sessionTxns) {
                            client.close();
                            client = new Recorded(recorder.openSession());
                            inSession = 1;
                        }
                        if (rate > 0) {
                            long due = t0 + (long) ((txns - k) * 1e9 / rate);
                            long wait = due - System.nanoTime();
                            if (wait > 0) LockSupport.parkNanos(wait);
                        }
                        long s = System.nanoTime();
                        try {
                            w.runOne(client, rnd);
                            long d = System.nanoTime() - s;
                            if (n == mine.length) mine = Arrays.copyOf(mine, n * 2);
                            mine[n++] = d;
                            progress.committed.incrementAndGet();
                        } catch (AbortedException e) {
                            progress.aborted.incrementAndGet();
                        } catch (StoreException e) {
                            progress.unknown.incrementAndGet();
                        }
                    }
                    client.close();
                } catch (Throwable e) {
                    synchronized (failure) { if (failure[0] == null) failure[0] = e; }
                    progress.failure.compareAndSet(null, e);
                    remaining.set(0);
                }
                lat[id] = mine;
                latN[id] = n;
            }, "cobra-client-" + i);
            threads.add(t);
            t.start();
        }
        connected.await();
        start[0] = System.nanoTime();
        go.countDown(); // happens-before each client's await: they see start[0]
        for (Thread t : threads) t.join();
        long elapsed = System.nanoTime() - start[0];
        if (failure[0] instanceof Exception e) throw e;
        if (failure[0] instanceof Error e) throw e;
        int total = 0;
        for (int n : latN) total += n;
        long[] all = new long[total];
        int k = 0;
        for (int i = 0; i < clients; i++) { System.arraycopy(lat[i], 0, all, k, latN[i]); k += latN[i]; }
        Arrays.sort(all);
        return new Result(progress.committed.get(), progress.aborted.get(), progress.unknown.get(), elapsed, all,
                recorder == null ? 0 : recorder.fenceTransactions(), recorder == null ? 0 : recorder.addedBytes());
    }

    /** A client through the recorder. */
    static final class Recorded implements Workload.Client {
        private final Session s;

        Recorded(Session s) { this.s = s; }

        @Override public void begin() throws StoreException { s.begin(); }
        @Override public String read(String key) throws StoreException { return s.read(key); }
        @Override public void write(String key, String value) throws StoreException { s.write(key, value); }
        @Override public void commit() throws StoreException { s.commit(); }
        @Override public void abort() throws StoreException { s.abort(); }
        @Override public void close() throws StoreException { s.close(); }
    }

    /** A client straight on the store: no write ids, no fences, no recording (the overhead baseline). */
    static final class Bare implements Workload.Client {
        private final KvStore store;
        private KvTransaction t;

        Bare(KvStore store) { this.store = store; }

        @Override public void begin() throws StoreException { t = store.begin(); }
        @Override public String read(String key) throws StoreException { return t.get(key); }
        @Override public void write(String key, String value) throws StoreException { t.put(key, value); }
        @Override public void commit() throws StoreException {
            KvTransaction x = t;
            t = null;
            x.commit();
        }
        @Override public void abort() throws StoreException {
            KvTransaction x = t;
            t = null;
            x.rollback();
        }
    }

    /** Runs the workload and calls {@code tick} about once a second with the progress so far. */
    public static Result runWithProgress(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed,
                                         Consumer<Progress> tick) throws Exception {
        return runWithProgress(w, store, recorder, clients, txns, seed, 0, tick);
    }

    /** As {@link #runWithProgress(Workload, KvStore, Recorder, int, long, long, Consumer)}, at most {@code rate} transactions per second (0: no limit). */
    public static Result runWithProgress(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed, double rate,
                                         Consumer<Progress> tick) throws Exception {
        return runWithProgress(w, store, recorder, clients, txns, seed, rate, 0, tick);
    }

    /** As above, with session churn ({@code sessionTxns}, see {@link #run(Workload, KvStore, Recorder, int, long, long, double, long, Progress)}). */
    public static Result runWithProgress(Workload w, KvStore store, Recorder recorder, int clients, long txns, long seed, double rate,
                                         long sessionTxns, Consumer<Progress> tick) throws Exception {
        Progress p = new Progress();
        Thread ticker = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(1000);
                    tick.accept(p);
                }
            } catch (InterruptedException ignored) {
                // done
            }
        }, "cobra-progress");
        ticker.setDaemon(true);
        ticker.start();
        try {
            return run(w, store, recorder, clients, txns, seed, rate, sessionTxns, p);
        } finally {
            ticker.interrupt();
        }
    }
}
