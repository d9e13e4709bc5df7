package org.cobraverify.collector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collector on embedded RocksDB: ids in, ids out, fences, outcomes, and a sink that fails loudly. */
class RecorderTest {
    @TempDir
    Path dir;

    /** Keeps records in memory (and can be told to fail). */
    static final class ListSink implements HistorySink {
        final List<TxnRecord> records = new ArrayList<>();
        boolean fail;

        @Override
        public synchronized void record(TxnRecord txn) throws IOException {
            if (fail) throw new IOException("disk full");
            records.add(txn);
        }

        @Override
        public void close() {}
    }

    @Test
    void writeIdsAreEmbeddedAndStripped() throws Exception {
        ListSink sink = new ListSink();
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Recorder rec = new Recorder(store, sink, new Recorder.Options(0, "EPOCH"));
            Session s = rec.openSession();
            s.begin();
            assertNull(s.read("x"));
            s.write("x", "hello");
            assertEquals("hello", s.read("x"));
            s.commit();
            s.begin();
            assertEquals("hello", s.read("x"));
            s.commit();
            // the store holds the id; the application never sees it
            KvTransaction raw = store.begin();
            String stored = raw.get("x");
            raw.commit();
            assertTrue(stored.startsWith("#") && stored.endsWith("|hello"), stored);
            TxnRecord w = sink.records.get(0), r = sink.records.get(1);
            assertEquals(TxnRecord.Status.COMMITTED, w.status());
            String wid = w.ops().get(1).value();
            assertEquals(wid, r.ops().get(0).value(), "the read records the write id it observed");
            assertTrue(w.start() > 1_600_000_000_000_000_000L && w.end() >= w.start(), "wall-clock nanoseconds");
        }
    }

    @Test
    void aValueWithoutAnIdIsRecordedAsUnwrittenAndRejected() throws Exception {
        Path file = dir.resolve("h.jsonl");
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
            KvTransaction raw = store.begin();
            raw.put("x", "planted by someone else");
            raw.commit();
            try (Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.defaults())) {
                Session s = rec.openSession();
                s.begin();
                assertEquals("planted by someone else", s.read("x"));
                s.commit();
            }
        }
        Verdict v = Checker.check(HistoryReaders.read(file).history());
        assertEquals(AnomalyKind.UNWRITTEN_READ, v.certificate().kind());
    }

    @Test
    void fencesEveryNTransactionsAndAbortsAreRecorded() throws Exception {
        ListSink sink = new ListSink();
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), true)) {
            Recorder rec = new Recorder(store, sink, new Recorder.Options(3, "EPOCH"));
            Session s = rec.openSession();
            for (int i = 0; i < 7; i++) {
                s.begin();
                s.write("k" + i, "v");
                s.commit();
            }
            s.begin();
            s.write("gone", "v");
            s.abort();
            assertEquals(3, rec.fenceTransactions(), "one before the first transaction, then after the 3rd and the 6th commit");
            long fences = sink.records.stream().filter(t -> t.ops().size() == 2 && t.ops().get(0).key().equals("EPOCH")).count();
            assertEquals(3, fences);
            assertEquals("EPOCH", sink.records.get(0).ops().get(0).key(), "the session starts with a fence");
            assertEquals(TxnRecord.Status.ABORTED, sink.records.get(sink.records.size() - 1).status());
            assertEquals(7 + 3 + 1, sink.records.size());
            s.close();
            assertEquals(4, rec.fenceTransactions(), "the 7th commit came after the last fence: the session ends with one");
            assertEquals("EPOCH", sink.records.get(sink.records.size() - 1).ops().get(0).key());
            Session quiet = rec.openSession();
            quiet.close();
            assertEquals(4, rec.fenceTransactions(), "a session that ran nothing ends without one");
        }
    }

    @Test
    void aSinkFailureFailsTheTransactionLoudly() throws Exception {
        ListSink sink = new ListSink();
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Recorder rec = new Recorder(store, sink, new Recorder.Options(0, "EPOCH"));
            Session s = rec.openSession();
            s.begin();
            s.write("x", "1");
            sink.fail = true;
            RecordingException e = assertThrows(RecordingException.class, s::commit);
            assertTrue(e.getMessage().contains("could not be recorded") && e.getMessage().contains("disk full"), e.getMessage());
        }
    }

    @Test
    void jsonlSinkFlushesOnCloseAndIsReadable() throws Exception {
        Path file = dir.resolve("h.jsonl.gz");
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false);
             Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.defaults())) {
            Session a = rec.openSession(), b = rec.openSession();
            for (int i = 0; i < 50; i++) {
                Session s = i % 2 == 0 ? a : b;
                s.begin();
                String v = s.read("counter");
                s.write("counter", Integer.toString(v == null ? 1 : Integer.parseInt(v) + 1));
                s.commit();
            }
        }
        assertTrue(Files.size(file) > 0);
        var loaded = HistoryReaders.read(file);
        assertEquals(50 + 2 * 2, loaded.history().size(), "50 transactions and two fences per session (at its start, after its 20th commit)");
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(loaded.history()).outcome());
    }

    @Test
    void oddKeysAndValuesSurviveTheFile() throws Exception {
        Path file = dir.resolve("odd.jsonl");
        String key = "we\"ird\\key\nwith\ttabs\u0001";
        try (RocksDbStore store = new RocksDbStore(dir.resolve("db").toString(), false);
             Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.defaults())) {
            Session s = rec.openSession();
            s.begin();
            s.write(key, "a|b#c");
            s.commit();
            s.begin();
            assertEquals("a|b#c", s.read(key));
            s.commit();
        }
        var h = HistoryReaders.read(file).history();
        assertEquals(key, h.keyName(h.key(h.opStart(1))), "the first transaction after the opening fence");
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(h).outcome());
    }

    /** The real store commits, then the reply is lost (a network failure, injected around real RocksDB). */
    /** RocksDB whose fences (the swap) take 3 ms: a store where fences contend on one hot row. */
    static final class SlowFenceStore implements KvStore {
        final RocksDbStore inner;

        SlowFenceStore(RocksDbStore inner) { this.inner = inner; }

        @Override public KvTransaction begin() throws StoreException { return inner.begin(); }

        @Override
        public String swap(String key, String value) throws StoreException {
            KvTransaction t = inner.begin();
            String prev = t.getForUpdate(key);
            if (prev == null) { t.rollback(); return null; }
            t.put(key, value);
            t.commit();
            LockSupport.parkNanos(3_000_000);
            return prev;
        }

        @Override public String name() { return "slow-fence rocksdb"; }

        @Override public void close() {}
    }

    /**
     * The fence period adapts: where a fence costs a hundred transactions, a session fences at its longest period;
     * with a fixed period it fences every N commits whatever the cost. Either way every fence reads the previous one's
     * write (the chain holds), which the checker confirms.
     */
    @Test
    void expensiveFencesStretchTheAdaptivePeriodAndTheChainHolds() throws Exception {
        for (boolean adaptive : new boolean[] {false, true}) {
            ListSink sink = new ListSink();
            try (RocksDbStore rocks = new RocksDbStore(dir.resolve("db-" + adaptive).toString(), false)) {
                Recorder.Options o = adaptive ? new Recorder.Options(10, "EPOCH", 100, 0.05) : new Recorder.Options(10, "EPOCH");
                Recorder rec = new Recorder(new SlowFenceStore(rocks), sink, o);
                Session s = rec.openSession();
                for (int i = 0; i < 1000; i++) {
                    s.begin();
                    s.write("k" + (i % 7), "v");
                    s.commit();
                }
                s.close();
                long fences = sink.records.stream().filter(r -> r.ops().stream().anyMatch(op -> op.key().equals("EPOCH") && op.write())).count();
                if (adaptive) {
                    assertTrue(fences <= 1000 / 100 + 10, "fences at the longest period once they proved expensive: " + fences + ", period " + s.fencePeriod());
                    assertEquals(100, s.fencePeriod());
                } else {
                    assertEquals(1000 / 10 + 1, fences, "one at the start, then every 10 (the last one closes the session)");
                }
                String prev = null; // each fence read what the previous one wrote
                for (TxnRecord r : sink.records) {
                    if (r.ops().stream().noneMatch(op -> op.key().equals("EPOCH") && op.write())) continue;
                    if (prev != null) assertEquals(prev, r.ops().get(0).value(), "fence " + r.id() + " reads the previous fence's write");
                    prev = r.ops().get(r.ops().size() - 1).value();
                }
            }
        }
    }

    /**
     * A session's opening fence, slow as it is when every session opens at once on a cold store, does not set the
     * adaptive period: the periodic fences, cheap here against the transactions, keep it at {@code fenceEvery}. (Measured
     * as it used to be, the opening fence's 200 ms held the period at its longest, 100, through these 300 commits: about
     * four fences in all.) The share allowed is half of the period's transactions' time, so periodic fences stretch it
     * only when their moving average passes 5 ms; at 5% (0.5 ms), a single periodic fence slower than about 2.5 ms, as one
     * may be on a busy two-core machine, stretched a period: 30 fences of 31 in a CI run.
     */
    @Test
    void aSlowOpeningFenceDoesNotStretchTheAdaptivePeriod() throws Exception {
        ListSink sink = new ListSink();
        try (RocksDbStore rocks = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Recorder rec = new Recorder(new SlowStartStore(rocks), sink, new Recorder.Options(10, "EPOCH", 100, 0.5));
            Session s = rec.openSession();
            for (int i = 0; i < 300; i++) {
                s.begin();
                s.write("k" + (i % 7), "v");
                s.commit();
            }
            long fences = sink.records.stream().filter(r -> r.ops().stream().anyMatch(op -> op.key().equals("EPOCH") && op.write())).count();
            assertEquals(10, s.fencePeriod(), "fences cost a few percent of a transaction here");
            // the opening fence, then one every 10 commits; a periodic fence slowed past 25 ms (a collection in this JVM, a
            // busy machine) may stretch one or two periods, never the ~27 fences a measured opening fence costs
            assertTrue(fences >= 1 + 300 / 10 - 2 && fences <= 1 + 300 / 10, "the opening fence, then one every 10 commits: " + fences);
        }
    }

    /** RocksDB whose transactions take 1 ms to commit, but fences (which write EPOCH) none, except the first: 200 ms. */
    static final class SlowStartStore implements KvStore {
        final RocksDbStore inner;
        boolean fenced;

        SlowStartStore(RocksDbStore inner) { this.inner = inner; }

        @Override
        public KvTransaction begin() throws StoreException {
            KvTransaction t = inner.begin();
            return new KvTransaction() {
                boolean fence;

                @Override public String get(String key) throws StoreException { return t.get(key); }
                @Override public String getForUpdate(String key) throws StoreException { return t.getForUpdate(key); }

                @Override
                public void put(String key, String value) throws StoreException {
                    fence |= key.equals("EPOCH");
                    t.put(key, value);
                }

                @Override
                public void commit() throws StoreException {
                    t.commit();
                    if (!fence) LockSupport.parkNanos(1_000_000);
                    else if (!fenced) { fenced = true; LockSupport.parkNanos(200_000_000); }
                }

                @Override public void rollback() throws StoreException { t.rollback(); }
            };
        }

        @Override public String name() { return "slow-start rocksdb"; }

        @Override public void close() {}
    }

    static final class LostReplyStore implements KvStore {
        final KvStore inner;

        LostReplyStore(KvStore inner) { this.inner = inner; }

        @Override
        public KvTransaction begin() throws StoreException {
            KvTransaction t = inner.begin();
            return new KvTransaction() {
                @Override public String get(String key) throws StoreException { return t.get(key); }
                @Override public void put(String key, String value) throws StoreException { t.put(key, value); }
                @Override public void rollback() throws StoreException { t.rollback(); }
                @Override public void commit() throws StoreException {
                    t.commit();
                    throw new StoreException("connection reset while waiting for the commit reply");
                }
            };
        }

        @Override public String name() { return "lost replies"; }
        @Override public void close() throws StoreException { inner.close(); }
    }

    @Test
    void aLostCommitReplyIsRecordedAsUnknownAndResolvedByLaterReads() throws Exception {
        Path file = dir.resolve("unknown.jsonl");
        try (RocksDbStore rocks = new RocksDbStore(dir.resolve("db").toString(), false)) {
            Recorder lossy = new Recorder(new LostReplyStore(rocks), new JsonlSink(file), new Recorder.Options(0, "EPOCH"));
            Session s = lossy.openSession();
            s.begin();
            s.write("x", "1");
            assertThrows(StoreException.class, s::commit);
            lossy.close();
        }
        var h = HistoryReaders.read(file).history();
        assertEquals(History.UNKNOWN, h.status(0));
        // nobody read it: dropped, and the history is trivially serializable
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(h).outcome());
    }
}
