package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.schemas.protocol.WireNames;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnStatus;

/**
 * Step 3 of a collection, after an accepted round's final outcome: carries out what {@link GarbageCollection}
 * found collectible. Each collected write goes to {@link CollectedWrites} with its fate (superseded, with the
 * frontier write that superseded it; intermediate; aborted; of unknown outcome), except a frontier write collected as
 * data, which goes to its key's frontier log only (the log stands for its entry, {@link CollectedWrites#put}), as does the
 * supersession of a frontier record, and the {@link CollectedPast}
 * moves after every old transaction and before every entry fence of the {@link CollectionPlanner.Plan}.
 * Deleting the transactions from memory is the caller's (it owns them): {@link Outcome#gone}.
 *
 * <p>Contract: call only when the round's verdict is final and an accept (a restore after a collection would
 * bring back transactions whose writes the store now calls collected); the plan and the GC result are of
 * the same round's history. docs/DESIGN.md §7.2–§7.4.
 */
public final class Collector {
    private Collector() {}

    /** Appends to frontier logs made after one batched read of their logs (see {@link #collect}). */
    static final int APPEND_RUN = 1024;

    /**
     * What went: the ids of the collected transactions; the retained transactions left that read one of their
     * writes (they now lack that read in later rounds' histories: their edges are carried); and a note when one
     * of those is outside the checked history and of unknown outcome (a read including it later could not be checked).
     */
    public record Outcome(Set<String> gone, List<String> partlyRead, String lostProof, List<String> knownCommitted) {}

    /**
     * Collects in {@code h} (the round's history, {@code order} its transactions) what {@code gc} marked, under
     * {@code plan}; {@code included}: the checked history; {@code round} and {@code incarnation} stamp the writes; transactions
     * of {@code h} from {@code order.size()} on are the synthetic writers of frontier records; {@code visible}: the frontier
     * log entries this verifier may see (the others are dropped when a key's log is written), {@code keepFrom} the older of its
     * last two checkpoints' rounds ({@link FrontierLog#append}). {@code chainKeys}: keys of {@code h} whose synthetic writer was
     * left out by the chain rule (docs/DESIGN.md §7.9, "Chains from a frontier value"): every writer of such a key in {@code h}
     * follows the frontier record, so when a committed one is collected, the key's log says that the record was superseded,
     * as collecting the synthetic writer would have.
     */
    public static Outcome collect(History h, List<Transaction> order, CollectionPlanner.Plan plan, GarbageCollection gc, boolean[] included,
                                CollectedWrites store, CollectedPast past, long round, long incarnation,
                                Predicate<CollectedWrites.FrontierEntry> visible, long keepFrom, int[] chainKeys) {
        Set<String> gone = new HashSet<>();
        boolean[] asData = new boolean[h.opCount()];
        for (int op : gc.frontierAsData) asData[op] = true;
        boolean[] unordered = gc.unorderedOps.length == 0 ? null : new boolean[h.opCount()];
        for (int op : gc.unorderedOps) unordered[op] = true;
        // the appends to frontier logs, in the order they are made (appendFrontier below)
        List<String> logged = new ArrayList<>(gc.frontierAsData.length + h.size() - order.size());
        List<CollectedWrites.FrontierEntry> appended = new ArrayList<>(gc.frontierAsData.length + h.size() - order.size());
        // the chain rule's keys with a committed writer collected now: that writer (the first in the history) superseded the record
        int[] chainSupersededBy = null;
        if (chainKeys.length > 0) {
            chainSupersededBy = new int[h.keyCount()];
            for (int k : chainKeys) chainSupersededBy[k] = -1;
            for (int i = 0; i < order.size(); i++) {
                if (!gc.collect[i] || h.status(i) != History.COMMITTED) continue;
                for (int op = h.opStart(i); op < h.opEnd(i); op++) {
                    if (h.kind(op) != History.WRITE || chainSupersededBy[h.key(op)] != -1) continue;
                    chainSupersededBy[h.key(op)] = i + 1;
                }
            }
        }
        // a synthetic writer (from order.size() on) collected: a later old writer superseded the key's frontier record;
        // its log says so (then, if that writer is collected as data too, the entry below names its value)
        for (int i = order.size(); i < h.size(); i++) {
            if (!gc.collect[i]) continue;
            for (int op = h.opStart(i); op < h.opEnd(i); op++) {
                if (h.kind(op) != History.WRITE) continue;
                int by = gc.supersededBy[op];
                logged.add(WireNames.of(h.keyName(h.key(op))));
                appended.add(new CollectedWrites.FrontierEntry(null, by >= 0 ? h.name(by) : null, round, incarnation));
            }
        }
        // the chain rule's keys (each once: the first collected writer of the key in the history stands for the rest)
        if (chainSupersededBy != null)
            for (int k : chainKeys)
                if (chainSupersededBy[k] > 0) {
                    logged.add(WireNames.of(h.keyName(k)));
                    appended.add(new CollectedWrites.FrontierEntry(null, h.name(chainSupersededBy[k] - 1), round, incarnation));
                }
        LongIntMap goneWrites = new LongIntMap(Math.max(1024, h.opCount() / 2)); // (key, value) ids in h (sized for most rounds: grown, 1% of a TPC-C check's allocation)
        int[] lastWrite = null;
        for (int i = 0; i < order.size(); i++) {
            Transaction t = order.get(i);
            // (an end of a transaction of unknown outcome orders nothing: its commit may take effect later, docs/DESIGN.md §1.2)
            if (gc.old[i] && included[i]) past.widen(t.getStart(), h.acknowledged(i) ? t.getEnd() : 0);
            if (!gc.collect[i]) continue;
            gone.add(t.getId());
            // the round's history may lack some of t's reads (of writes collected earlier), never its writes; t's last write
            // of each key (per key id, set by t's own writes before they are read here: no clearing between transactions)
            if (lastWrite == null) lastWrite = new int[h.keyCount()];
            for (int op = h.opStart(i); op < h.opEnd(i); op++) if (h.kind(op) == History.WRITE) lastWrite[h.key(op)] = op;
            for (int op = h.opStart(i); op < h.opEnd(i); op++) {
                if (h.kind(op) != History.WRITE) continue;
                String key = WireNames.of(h.keyName(h.key(op))), value = WireNames.of(h.valueName(h.value(op)));
                goneWrites.put(LongIntMap.pack(h.key(op), h.value(op)), i);
                CollectedWrites.Fate fate = t.getStatus() == TxnStatus.ABORTED ? CollectedWrites.Fate.ABORTED
                        : t.getStatus() == TxnStatus.UNKNOWN ? CollectedWrites.Fate.UNKNOWN_OUTCOME
                        : asData[op] ? CollectedWrites.Fate.FRONTIER
                        : lastWrite[h.key(op)] != op ? CollectedWrites.Fate.INTERMEDIATE
                        : unordered != null && unordered[op] ? CollectedWrites.Fate.UNORDERED : CollectedWrites.Fate.SUPERSEDED;
                int by = gc.supersededBy[op];
                // a frontier write collected as data goes to its key's log only: the log stands for its entry, and the
                // store puts that entry when the log drops it (CollectedWrites#put); not written twice
                if (fate != CollectedWrites.Fate.FRONTIER) // (nothing supersedes a frontier write: by < 0)
                    store.put(key, value, new CollectedWrites.Entry(t.getId(), by >= 0 ? h.name(by) : null, fate, round, incarnation));
                if (asData[op]) {
                    logged.add(key);
                    appended.add(new CollectedWrites.FrontierEntry(value, t.getId(), round, incarnation));
                }
            }
        }
        // the appends, in order, a run of them at a time: the run's logs read in one batch (appending reads each first; a
        // key twice is read twice, harmlessly), then appended to while the cache's lines that batch touched are still near
        // (one batch for the whole collection left them to be fetched again, a lookup per append: 5% of a TPC-C round).
        // Puts above and appends here touch different collected writes (a write is put, or its log stands for it), so
        // that the appends come after the puts changes nothing.
        for (int from = 0; from < logged.size(); from += APPEND_RUN) {
            int to = Math.min(logged.size(), from + APPEND_RUN);
            store.prefetchFrontierLogs(logged.subList(from, to));
            for (int a = from; a < to; a++) store.appendFrontier(logged.get(a), appended.get(a), visible, keepFrom);
        }
        List<String> partlyRead = new ArrayList<>();
        String lostProof = gone.isEmpty() ? null : partlyRead(h, gc.collect, goneWrites, included, partlyRead);
        // the new past: after every old transaction, before every entry fence
        Set<String> before = new HashSet<>();
        for (int i = 0; i < order.size(); i++) {
            Transaction t = order.get(i);
            if (gc.old[i] && !gc.collect[i] && t.getStatus() == TxnStatus.COMMITTED) before.add(t.getId());
        }
        Set<String> entries = new HashSet<>();
        for (Transaction f : plan.entryFences()) entries.add(f.getId());
        past.advance(before, entries, plan.closedEpoch(), h, gc);
        return new Outcome(gone, partlyRead, lostProof, knownCommitted(h, order, gc.collect, included));
    }

    /**
     * The retained transactions of unknown outcome that a collected transaction of the checked history read: they are
     * included for good (an included read observed their write), though no reader of theirs is left to say so. The
     * caller records them as committed; left unknown, a later round could leave them out (nobody reads them any more) and
     * miss the cycles they close (docs/DESIGN.md §7.1, A7).
     */
    private static List<String> knownCommitted(History h, List<Transaction> order, boolean[] collect, boolean[] included) {
        int real = order.size();
        LongIntMap unknownWrites = null;
        for (int t = 0; t < real; t++) {
            if (collect[t] || h.status(t) != History.UNKNOWN || !included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.WRITE) continue;
                if (unknownWrites == null) unknownWrites = new LongIntMap(64);
                unknownWrites.put(LongIntMap.pack(h.key(op), h.value(op)), t);
            }
        }
        if (unknownWrites == null) return List.of();
        boolean[] known = new boolean[real];
        List<String> out = new ArrayList<>();
        for (int t = 0; t < real; t++) {
            if (!collect[t] || !included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = unknownWrites.get(LongIntMap.pack(h.key(op), h.value(op)));
                if (w != LongIntMap.MISSING && w != t && !known[w]) { known[w] = true; out.add(order.get(w).getId()); }
            }
        }
        return out;
    }

    /**
     * Adds to {@code out} the transactions of {@code h} left that read one of the {@code goneWrites} (packed
     * (key, value) ids). Such a transaction outside the checked history (of unknown outcome, unread) would, if a later
     * read included it, lack that read: {@link CollectionPlanner} never lets it come to this (its reads pin their
     * writers until it is collected itself); if it ever did, the returned note says so and no later round may be accepted.
     */
    private static String partlyRead(History h, boolean[] collect, LongIntMap goneWrites, boolean[] included, List<String> out) {
        String lost = null;
        for (int t = 0; t < h.size(); t++) {
            if (collect[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.READ && h.value(op) != History.NIL
                        && goneWrites.get(LongIntMap.pack(h.key(op), h.value(op))) != LongIntMap.MISSING) {
                    out.add(h.name(t));
                    if (!included[t] && h.status(t) == History.UNKNOWN && lost == null)
                        lost = "internal: " + h.name(t) + ", of unknown outcome and outside the checked history, lost the writer of its read of "
                                + History.show(h.keyName(h.key(op))) + " to garbage collection; should a read include it later, that read could not be checked";
                    break;
                }
        }
        return lost;
    }
}
