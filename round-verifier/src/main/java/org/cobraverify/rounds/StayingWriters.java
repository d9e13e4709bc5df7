package org.cobraverify.rounds;

import java.util.HashMap;
import java.util.Map;
import org.cobraverify.schemas.protocol.WireNames;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * Collecting the superseded writes of old writers that stay ({@link GarbageCollection#markOps}; docs/DESIGN.md §7.9): each
 * goes to the collected-write store, superseded by the frontier writer that went as data, and leaves the writer index;
 * the held transactions that read it lack that read from then on (a retained one is partly read, its order after the
 * writer carried as a fact; a waiting one has it recorded as a read of a collected write, judged when it is admitted).
 */
final class StayingWriters {
    private StayingWriters() {}

    /** Collects {@code gc}'s marked writes of round {@code roundNo}'s history {@code h}; {@code careless}: the careless rule (tests). */
    static void collectMarkedWrites(History h, GarbageCollection gc, long roundNo, long incarnation, boolean careless, HeldTransactions held,
                                    CollectedWrites collected, StaleReads stale) {
        if (gc.markOps.length == 0) return;
        Map<String, Map<String, CollectedWrites.Entry>> gone = new HashMap<>();
        for (int i = 0; i < gc.markOps.length; i++) {
            int op = gc.markOps[i];
            Transaction w = held.get(h.name(gc.markTxn[i]));
            String key = WireNames.of(h.keyName(h.key(op))), value = WireNames.of(h.valueName(h.value(op))), by = h.name(gc.markBy[i]);
            if (w == null || held.writerOf(key, value) != w) continue;
            if (careless) continue; // the write stays in the index and the histories: a later round takes it for the frontier
            // its last write of the key, superseded; any earlier one, intermediate (as the Collector records them)
            for (TxnOp o : w.getOps()) {
                if (!o.getWrite() || !o.getKey().equals(key) || held.writerOf(key, o.getValue()) != w) continue;
                CollectedWrites.Entry e = o.getValue().equals(value)
                        ? new CollectedWrites.Entry(w.getId(), by, CollectedWrites.Fate.SUPERSEDED, roundNo, incarnation)
                        : new CollectedWrites.Entry(w.getId(), null, CollectedWrites.Fate.INTERMEDIATE, roundNo, incarnation);
                collected.put(key, o.getValue(), e);
                held.removeWrite(key, o.getValue());
                gone.computeIfAbsent(key, k -> new HashMap<>()).put(o.getValue(), e);
            }
            held.markSuperseded(w.getId(), key, by);
        }
        if (!gone.isEmpty()) held.loseReadsOf(gone, stale);
    }
}
