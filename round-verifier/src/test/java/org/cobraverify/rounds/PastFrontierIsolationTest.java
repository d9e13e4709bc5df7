package org.cobraverify.rounds;

import static org.cobraverify.testkit.Txns.txn;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * The isolation rule of {@link PastFrontier} (docs/DESIGN.md §7.9, "Isolated reads"), case by case: key {@code x}'s log
 * names {@code vF} (written by the collected {@code F}) as its latest value, and the round's history is the transactions
 * given. A key is isolated, with no synthetic writer, only when one committed or aborted transaction touches it and its
 * first operation on it is its only read of {@code vF}; every other shape keeps the synthetic writer (or, for a read of a
 * value the log has moved past, neither).
 */
class PastFrontierIsolationTest {
    static final Predicate<CollectedWrites.FrontierEntry> ALL = e -> true;

    /** What the round made of key x: isolated or current (a synthetic writer), and how many logs it looked up. */
    record Seen(boolean current, boolean isolatedRead, int isolated, int lookups) {}

    static Seen round(Predicate<Transaction> judgedBefore, Transaction... order) {
        InMemoryCollectedWrites log = new InMemoryCollectedWrites();
        log.appendFrontier("x", new CollectedWrites.FrontierEntry("vOld", "E", 1, 0), ALL, 2);
        log.appendFrontier("x", new CollectedWrites.FrontierEntry("vF", "F", 2, 0), ALL, 2);
        int[] lookups = {0};
        CollectedWrites counting = new CountingLookups(log, lookups);
        List<Transaction> txns = List.of(order);
        PastFrontier f = PastFrontier.of(txns, counting, new HeldTransactions(), ALL, t -> false,
                t -> t.getStatus() != TxnStatus.UNKNOWN, judgedBefore);
        return new Seen(f.isCurrent("x", "vF"), f.readsIsolated(order[0], "x", "vF"), f.isolatedCount(), lookups[0]);
    }

    static Seen round(Transaction... order) { return round(t -> false, order); }

    static Transaction with(Transaction t, TxnStatus s) { Transaction c = Transaction.newBuilder(t).build(); c.setStatus(s); return c; }

    @Test
    void aLoneReadModifyWriteOfTheFrontierValueIsIsolated() {
        Seen s = round(txn("T", "a", 1, 5, false, "r x vF", "w x v1"));
        assertEquals(new Seen(false, true, 1, 1), s);
    }

    @Test
    void anAbortedLoneReaderIsolatesTooAnUnknownOneDoesNot() {
        assertEquals(new Seen(false, true, 1, 1), round(with(txn("T", "a", 1, 5, false, "r x vF"), TxnStatus.ABORTED)));
        assertEquals(new Seen(true, false, 0, 1), round(with(txn("T", "a", 1, 5, false, "r x vF"), TxnStatus.UNKNOWN)));
    }

    @Test
    void twoTransactionsOnTheKeyKeepTheSyntheticWriter() {
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF", "w x v1"), txn("U", "b", 1, 5, false, "r x vF")));
        // a blind writer of the key is a second toucher too (the solver could order it before F)
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF"), txn("W", "b", 1, 5, false, "w x w1")));
        // and so is a reader of the initial value
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF"), txn("N", "b", 1, 5, false, "r x -")));
    }

    @Test
    void aReaderThatWroteFirstOrReadsTwiceKeepsTheSyntheticWriter() {
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "w x own", "r x vF")));
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF", "w x v1", "r x vF")));
        // a second read before writing, of the initial value (an edge into the synthetic writer: an internal
        // inconsistency the check must see) or of anything else (seed 1609066 of the differential)
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF", "r x -")));
        assertEquals(new Seen(true, false, 0, 1), round(txn("T", "a", 1, 5, false, "r x vF", "r x vOld", "w x v1")));
        // after its own write, a read of that write leaves the key isolated
        assertEquals(new Seen(false, true, 1, 1), round(txn("T", "a", 1, 5, false, "r x vF", "w x v1", "r x v1")));
    }

    @Test
    void aReadOfASupersededValueIsNeitherIsolatedNorCurrent() {
        // the log moved past vOld: the synthetic writer writes vF, and the read of vOld is judged as a stale read
        Seen s = round(txn("T", "a", 1, 5, false, "r x vOld", "w x v1"));
        assertTrue(s.current(), "x's synthetic writer writes vF: " + s);
        assertEquals(0, s.isolated());
    }

    @Test
    void aKeyOnlyATransactionJudgedBeforeTouchesIsNotEvenLookedUp() {
        Transaction t = txn("T", "a", 1, 5, false, "r x vF", "w x v1");
        assertEquals(new Seen(false, false, 1, 0), round(x -> x == t, t));
        // with a second toucher it is looked up and gets its synthetic writer as before
        assertEquals(new Seen(true, false, 0, 1), round(x -> x == t, t, txn("U", "b", 1, 5, false, "r x vF")));
    }

    @Test
    void aHeldTransactionNamedAsTheSyntheticWriterWouldBeTakesItsPlace() {
        // the input names a transaction as x's synthetic writer would be named: no second transaction of that id is made
        InMemoryCollectedWrites log = new InMemoryCollectedWrites();
        log.appendFrontier("x", new CollectedWrites.FrontierEntry("vF", "F", 2, 0), ALL, 2);
        Transaction reader = txn("T", "a", 1, 5, false, "r x vF"), other = txn("U", "b", 1, 5, false, "r x vF");
        for (boolean collide : new boolean[] {false, true}) {
            HeldTransactions held = new HeldTransactions();
            Transaction named = txn(collide ? PastFrontier.id("F", "x") : "F [collected; its write of y]", "c", 1, 5, false, "w z 1");
            assertNull(held.recordWrites(named));
            PastFrontier f = PastFrontier.of(List.of(reader, other), log, held, ALL, t -> false, t -> true, t -> false);
            assertEquals(!collide, f.isCurrent("x", "vF"), "held " + named.getId());
        }
    }

    /** A store that counts the frontier logs asked for, one by one or in a batch. */
    private static final class CountingLookups implements CollectedWrites {
        private final CollectedWrites inner;
        private final int[] lookups;
        private final List<String> prefetched = new ArrayList<>();

        CountingLookups(CollectedWrites inner, int[] lookups) { this.inner = inner; this.lookups = lookups; }

        @Override public void prefetchFrontierLogs(java.util.Collection<String> keys) { prefetched.addAll(keys); }
        @Override public List<FrontierEntry> frontierLog(String key) { lookups[0]++; return inner.frontierLog(key); }
        @Override public void put(String key, String value, Entry e) { inner.put(key, value, e); }
        @Override public void appendFrontier(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) { inner.appendFrontier(key, e, visible, keepFrom); }
        @Override public boolean hasFrontiers() { return inner.hasFrontiers(); }
        @Override public void trackFrontierChanges() { inner.trackFrontierChanges(); }
        @Override public java.util.Set<String> takeChangedFrontiers() { return inner.takeChangedFrontiers(); }
        @Override public void markCheckpoint(long offset) { inner.markCheckpoint(offset); }
        @Override public long checkpointMark() { return inner.checkpointMark(); }
        @Override public boolean isEmpty() { return inner.isEmpty(); }
        @Override public void importFrontierLog(String key, List<FrontierEntry> log) { inner.importFrontierLog(key, log); }
        @Override public Entry get(String key, String value) { return inner.get(key, value); }
        @Override public long size() { return inner.size(); }
        @Override public void close() { inner.close(); }
    }
}
