package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.KvTransaction;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner's clock: clients connect first (each on its own thread), and only then does any of them run a transaction. */
class WorkloadRunnerTest {
    @TempDir
    Path dir;

    @Test
    void everyClientConnectsOnItsOwnThreadBeforeAnyClientRunsATransaction() throws Exception {
        int clients = 6;
        try (RocksDbStore rocks = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Set<Thread> connected = ConcurrentHashMap.newKeySet();
            AtomicInteger clientBeginsBeforeAllConnected = new AtomicInteger(), unconnectedBegins = new AtomicInteger();
            KvStore store = new KvStore() {
                @Override public void connectThread() { connected.add(Thread.currentThread()); }

                @Override public KvTransaction begin() throws StoreException {
                    Thread me = Thread.currentThread();
                    if (me.getName().startsWith("cobra-client-")) {
                        if (!connected.contains(me)) unconnectedBegins.incrementAndGet();
                        if (connected.size() < clients) clientBeginsBeforeAllConnected.incrementAndGet();
                    }
                    return rocks.begin();
                }

                @Override public String name() { return "counting " + rocks.name(); }

                @Override public void close() {}
            };
            WorkloadRunner.Result r = WorkloadRunner.run(Workload.byName("blindw-rm", 1), store, null, clients, 3_000, 1, new WorkloadRunner.Progress());
            assertEquals(3_000, r.committed() + r.aborted() + r.unknown());
            assertEquals(clients, connected.size(), "each client thread connected once");
            assertEquals(0, unconnectedBegins.get(), "a client began a transaction on a thread that had not connected");
            assertEquals(0, clientBeginsBeforeAllConnected.get(), "a client began before every client had connected (the clock had started)");
            assertTrue(r.elapsedNanos() > 0);
        }
    }
}
