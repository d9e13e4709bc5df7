package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.rounds.EpochAssigner;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * End to end on real stores: record with the collector, check with the checker. Serializable stores
 * are accepted on every workload; weaker isolation under a contended workload is rejected with the
 * anomaly it allows. Runs repeat (with a bound) until the anomaly shows, so they do not depend on one
 * lucky interleaving.
 */
class RealDatabaseTest {
    static final List<String> WORKLOADS = List.of("blindw-rm", "blindw-rw", "blindw-wm", "twitter", "rubis", "tpcc", "order-entry");

    @TempDir
    Path dir;

    private static void accepted(RecordAndCheck.Outcome o, String ctx) {
        assertEquals(Verdict.Outcome.ACCEPT, o.verdict().outcome(),
                () -> ctx + ": " + (o.verdict().certificate() == null ? "" : o.verdict().certificate().summary()) + " in " + o.file());
        assertTrue(o.run().committed() > 0, ctx + ": nothing committed");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void rocksDbTransactionsAreSerializable(boolean optimistic) throws Exception {
        for (String w : WORKLOADS) {
            Path db = dir.resolve("rocks-" + optimistic + "-" + w);
            try (RocksDbStore s = new RocksDbStore(db.toString(), optimistic)) {
                accepted(RecordAndCheck.run(s, Workload.byName(w, 0.1), 6, 1500, 7, dir), s.name() + " " + w);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {RecordAndCheck.PG, RecordAndCheck.MARIADB})
    void serializableIsolationIsAccepted(String url) throws Exception {
        String why = RecordAndCheck.unavailable(url, url.contains("mariadb") ? "root" : "postgres");
        assumeTrue(why == null, why);
        for (String w : WORKLOADS) {
            JdbcStore s = RecordAndCheck.jdbc(url, "cobra_test_ser", JdbcStore.Isolation.SERIALIZABLE);
            try {
                accepted(RecordAndCheck.run(s, Workload.byName(w, 0.1), 4, 300, 3, dir), s.name() + " " + w);
            } finally {
                s.dropTable();
                s.close();
            }
        }
    }

    /**
     * Fences on PostgreSQL are one-statement swaps ({@link JdbcStore#swap}): under contention from eight
     * threads every swap read the value the previous one wrote: one chain through every write, no value read
     * twice (a read-then-write that is not atomic would fork it). And a recorded run on them is accepted,
     * with every fence chained.
     */
    @org.junit.jupiter.api.Test
    void postgresFencesAreAtomicSwapsThatChain() throws Exception {
        String why = RecordAndCheck.unavailable(RecordAndCheck.PG, "postgres");
        assumeTrue(why == null, why);
        JdbcStore s = RecordAndCheck.jdbc(RecordAndCheck.PG, "cobra_test_swap", JdbcStore.Isolation.SERIALIZABLE);
        try {
            org.junit.jupiter.api.Assertions.assertNull(s.swap("EPOCH", "v0"), "no row yet: nothing swapped (the caller creates it)");
            // sessions that start together: exactly one creates the key, the others find it
            AtomicInteger created = new AtomicInteger();
            List<Thread> starters = new ArrayList<>();
            for (int i = 0; i < 8; i++) starters.add(new Thread(() -> {
                try {
                    if (s.createIfAbsent("EPOCH", "v0")) created.incrementAndGet();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            for (Thread x : starters) x.start();
            for (Thread x : starters) x.join();
            assertEquals(1, created.get(), "one creation of the fence key");
            var t = s.begin();
            assertEquals("v0", t.get("EPOCH"));
            t.commit();
            int threads = 8, each = 150;
            Map<String, String> next = new ConcurrentHashMap<>();
            AtomicInteger twice = new AtomicInteger();
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                final int id = i;
                ts.add(new Thread(() -> {
                    try {
                        for (int k = 0; k < each; k++) {
                            String nv = "v" + id + "-" + k;
                            if (next.putIfAbsent(s.swap("EPOCH", nv), nv) != null) twice.incrementAndGet();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            for (Thread x : ts) x.start();
            for (Thread x : ts) x.join();
            assertEquals(0, twice.get(), "a value read by two swaps: not atomic");
            int chain = 0;
            for (String v = "v0"; next.containsKey(v); v = next.get(v)) chain++;
            assertEquals(threads * each, chain, "one chain from the first value through every write");
        } finally {
            s.dropTable();
            s.close();
        }
        JdbcStore r = RecordAndCheck.jdbc(RecordAndCheck.PG, "cobra_test_swap", JdbcStore.Isolation.SERIALIZABLE);
        try {
            RecordAndCheck.Outcome o = RecordAndCheck.run(r, Workload.byName("twitter", 0.1), 8, 1500, 5, dir);
            accepted(o, "twitter on swapped fences");
            var h = HistoryReaders.read(o.file()).history();
            assertEquals(o.run().fences(), new EpochAssigner(h, "EPOCH").fenceCount(), "every fence chained");
        } finally {
            r.dropTable();
            r.close();
        }
    }

    /** Runs until the checker rejects (at most {@code rounds} times), returning the rejecting verdict. */
    private Verdict untilRejected(String url, JdbcStore.Isolation iso, String workload, int rounds) throws Exception {
        Verdict last = null;
        for (int i = 0; i < rounds; i++) {
            JdbcStore s = RecordAndCheck.jdbc(url, "cobra_test_weak", iso);
            try {
                last = RecordAndCheck.run(s, Workload.byName(workload, 1), 8, 600, 100 + i, dir).verdict();
            } finally {
                s.dropTable();
                s.close();
            }
            if (last.outcome() == Verdict.Outcome.REJECT) return last;
        }
        return last;
    }

    @org.junit.jupiter.api.Test
    void postgresRepeatableReadShowsWriteSkew() throws Exception {
        String why = RecordAndCheck.unavailable(RecordAndCheck.PG, "postgres");
        assumeTrue(why == null, why);
        Verdict v = untilRejected(RecordAndCheck.PG, JdbcStore.Isolation.REPEATABLE_READ, "write-skew", 10);
        assertEquals(Verdict.Outcome.REJECT, v.outcome(), "snapshot isolation must show write skew within 10 runs");
        assertTrue(List.of(AnomalyKind.WRITE_SKEW, AnomalyKind.G2).contains(v.certificate().kind()), v.certificate().summary());
        assertEquals(2, v.certificate().cycle().stream().filter(e -> e.kind().equals("rw")).count(), v.certificate().summary());
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres READ_COMMITTED", "mariadb REPEATABLE_READ"})
    void weakIsolationLosesUpdates(String setup) throws Exception {
        String url = setup.startsWith("mariadb") ? RecordAndCheck.MARIADB : RecordAndCheck.PG;
        String why = RecordAndCheck.unavailable(url, setup.startsWith("mariadb") ? "root" : "postgres");
        assumeTrue(why == null, why);
        Verdict v = untilRejected(url, JdbcStore.Isolation.valueOf(setup.split(" ")[1]), "counter", 10);
        assertEquals(Verdict.Outcome.REJECT, v.outcome(), setup + " must lose an update within 10 runs");
        assertEquals(AnomalyKind.LOST_UPDATE, v.certificate().kind(), v.certificate().summary());
    }
}
