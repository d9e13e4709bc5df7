package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.KvTransaction;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's clock: clients connect first (each on its own thread), and only then does any of them run a
 * transaction; the elapsed time covers every client transaction and none of the connecting.
 */
class WorkloadRunnerTest {
    @TempDir
    Path dir;

    @Test
    void everyClientConnectsOnItsOwnThreadBeforeAnyClientRunsATransaction() throws Exception {
        int clients = 6;
        try (RocksDbStore rocks = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Set<Thread> connected = ConcurrentHashMap.newKeySet();
            AtomicInteger clientBeginsBeforeAllConnected = new AtomicInteger(), unconnectedBegins = new AtomicInteger();
            AtomicLong firstBegin = new AtomicLong(Long.MAX_VALUE), lastBegin = new AtomicLong(Long.MIN_VALUE);
            long connectNanos = TimeUnit.MILLISECONDS.toNanos(200);
            KvStore store = new KvStore() {
                @Override public void connectThread() {
                    try {
                        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(connectNanos)); // a slow database backend starting: never on the clock
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    connected.add(Thread.currentThread());
                }

                @Override public KvTransaction begin() throws StoreException {
                    Thread me = Thread.currentThread();
                    if (me.getName().startsWith("cobra-client-")) {
                        long now = System.nanoTime();
                        firstBegin.accumulateAndGet(now, Math::min);
                        lastBegin.accumulateAndGet(now, Math::max);
                        if (!connected.contains(me)) unconnectedBegins.incrementAndGet();
                        if (connected.size() < clients) clientBeginsBeforeAllConnected.incrementAndGet();
                    }
                    return rocks.begin();
                }

                @Override public String name() { return "counting " + rocks.name(); }

                @Override public void close() {}
            };
            long before = System.nanoTime();
            WorkloadRunner.Result r = WorkloadRunner.run(Workload.byName("blindw-rm", 1), store, null, clients, 3_000, 1, new WorkloadRunner.Progress());
            long wall = System.nanoTime() - before;
            assertEquals(3_000, r.committed() + r.aborted() + r.unknown());
            assertEquals(clients, connected.size(), "each client thread connected once");
            assertEquals(0, unconnectedBegins.get(), "a client began a transaction on a thread that had not connected");
            assertEquals(0, clientBeginsBeforeAllConnected.get(), "a client began before every client had connected (the clock had started)");
            // orderings of one clock, not speeds: the elapsed time spans the first to the last client transaction...
            assertTrue(r.elapsedNanos() >= lastBegin.get() - firstBegin.get(),
                    "the clock missed client transactions: " + r.elapsedNanos() + " ns < " + (lastBegin.get() - firstBegin.get()) + " ns between the first and last begin");
            // ...and leaves out the connecting (each client waits connectNanos before the clock starts)
            assertTrue(r.elapsedNanos() <= wall - connectNanos,
                    "the clock counted the connecting: " + r.elapsedNanos() + " ns of a " + wall + " ns run that spent " + connectNanos + " ns connecting");
        }
    }
}
