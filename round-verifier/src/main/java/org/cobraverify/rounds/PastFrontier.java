package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.cobraverify.schemas.protocol.WireNames;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * A round's view of the frontier records (docs/DESIGN.md §7.9): for each key the round's history reads (with no held
 * writer) whose latest write was collected as data, one synthetic committed transaction that writes that value, alone
 * in its session, in the barrier's {@code before} set (its writer was old, so it precedes the past), with an edge to
 * each writer of the key that is known to follow it ({@link #edges}). Reads of the value read from it; a read of the
 * key's initial value meets it as it would have met the writer.
 *
 * <p>Invariant: a key has a synthetic writer iff the latest entry of its log that this verifier may see names a value,
 * whose writer is not held and which no held transaction wrote (a held one would be the writer itself: never two
 * writers of one value), and the key is not <em>isolated</em>. A key is isolated when a single transaction of the round's
 * history touches it, that transaction is committed or aborted (not of unknown outcome, not forced in a last round),
 * its first operation on the key reads that value, and it reads the value only there: the synthetic writer would have
 * no edge in (nothing reads the key's initial value, no other writer could be ordered before it) and so lie on no
 * cycle; its read is left out of the round's history and needs no judging (docs/DESIGN.md §7.9, "Isolated reads").
 * A key is isolated by the <em>chain rule</em> too ({@link #chainKeys}) when every transaction on it is committed or
 * aborted, one of them (the head) reads that value as its first operation on the key and reads no other value whose
 * writer is not held, every other read of the key has a held writer, and every transaction's first operation on the key
 * is a read: every writer of the key then follows the synthetic writer through reads-from facts, nothing can be ordered
 * before it, and garbage collection logs its supersession when it takes a writer of the key (docs/DESIGN.md §7.9,
 * "Chains from a frontier value"). Built fresh each round; never retained, never checkpointed (the log is on disk).
 */
final class PastFrontier {
    static final PastFrontier NONE = new PastFrontier(Map.of(), List.of(), new int[0], new CollectedWrites.FrontierEntry[0], new int[0], 0, 0, null,
            new int[0]);

    /**
     * What the round knows of one touched key whose log has a visible entry: that entry ({@code latest}), whether it has
     * a synthetic writer ({@code current}), and the transaction whose one read of it is isolated ({@code isolatedBy}, else null),
     * with the id in the round's value table of the value it reads there ({@code isolatedValue}: the key's frontier value).
     */
    private record Key(CollectedWrites.FrontierEntry latest, boolean current, Transaction isolatedBy, int isolatedValue) {}

    /** Each touched key whose log has a visible entry (one map, looked up once per question). */
    private final Map<String, Key> known;
    /** The keys with a synthetic writer, in the order their writers are added. */
    private final List<String> keys;
    /** Per synthetic writer (parallel to {@link #keys}): its key's id in the round's key table, and the log entry it stands for. */
    private final int[] keyIds;
    private final CollectedWrites.FrontierEntry[] entries;
    /** Per key id of the round: 1 + the value id of its synthetic writer's write, or 0 (the build pass asks by id, not by name). */
    private final int[] currentValue;
    private final int isolatedCount;
    /** Isolable keys not looked up (only a transaction judged before touches them). */
    private final int skipped;
    private final String unknowable;
    /**
     * The keys (ids in the round's key table) isolated by the chain rule: their synthetic writer is left out though the
     * round's history may write them, so garbage collection logs for it what collecting it would have ({@link #chainKeys}).
     */
    private final int[] chainKeys;
    private int[] writers = new int[0];

    private PastFrontier(Map<String, Key> known, List<String> keys, int[] keyIds, CollectedWrites.FrontierEntry[] entries, int[] currentValue,
                         int isolatedCount, int skipped, String unknowable, int[] chainKeys) {
        if (keyIds.length != keys.size() || entries.length != keys.size()) throw new IllegalArgumentException("one key id and entry per synthetic writer");
        this.known = known;
        this.keys = keys;
        this.keyIds = keyIds;
        this.entries = entries;
        this.currentValue = currentValue;
        this.isolatedCount = isolatedCount;
        this.skipped = skipped;
        this.unknowable = unknowable;
        this.chainKeys = chainKeys;
    }

    /** Below serializability, where no synthetic writer stands for the past (docs/DESIGN.md §7.11): only why a read cannot be judged, or null. */
    static PastFrontier sealed(String unknowable) {
        return unknowable == null ? NONE : new PastFrontier(Map.of(), List.of(), new int[0], new CollectedWrites.FrontierEntry[0], new int[0], 0, 0, unknowable,
                new int[0]);
    }

    /**
     * Looks up the log of every key {@code order}'s transactions read with no held writer, or read the initial value
     * of (one batched lookup for the logs not cached): only a read needs the synthetic writer (writers of the key are
     * ordered after it by {@link #edges}). {@code whole}: transactions whose every read of a value has a held writer
     * (the verifier's invariant for retained transactions not partly read): only their reads of initial values are
     * looked at. {@code mayOmit}: transactions whose read of a frontier value may make its key isolated (see the class
     * comment). {@code judgedBefore}: transactions none of whose reads of collected writes is judged this round (they were
     * when the transaction was admitted): a key that only such a transaction touches, as an isolated key's reader would,
     * is not even looked up, since its read is left out of the round's history whatever the log says (current: isolated;
     * superseded since: as any read of a collected write by a retained transaction).
     */
    static PastFrontier of(List<Transaction> order, CollectedWrites store, HeldTransactions held, Predicate<CollectedWrites.FrontierEntry> visible,
                           Predicate<Transaction> whole, Predicate<Transaction> mayOmit, Predicate<Transaction> judgedBefore) {
        RoundIds ids = new RoundIds();
        return of(order, ids.compile(order), heldReads(order, whole, held), ids, store, held, visible, mayOmit, judgedBefore, t -> false);
    }

    /**
     * Per transaction of {@code order}: null when it is {@code whole} (every read of a value has its writer held); else,
     * per operation, whether it is a read of a value whose writer is held. One writer lookup per read of a transaction
     * that is not whole, shared by the round's passes.
     */
    static boolean[][] heldReads(List<Transaction> order, Predicate<Transaction> whole, HeldTransactions held) {
        return heldReads(order, whole, held, Map.of());
    }

    /**
     * As above, taking a transaction's answer from {@code known} when it is there (what {@link Admission} found for the
     * transactions it admitted: the same, while the writer index has not changed since).
     */
    static boolean[][] heldReads(List<Transaction> order, Predicate<Transaction> whole, HeldTransactions held, Map<Transaction, boolean[]> known) {
        boolean[][] out = new boolean[order.size()][];
        for (int i = 0; i < out.length; i++) {
            Transaction t = order.get(i);
            if (whole.test(t)) continue;
            boolean[] k = known.isEmpty() ? null : known.get(t);
            if (k != null) { out[i] = k; continue; }
            List<TxnOp> ops = t.getOps();
            boolean[] r = new boolean[ops.size()];
            for (int j = 0; j < r.length; j++) {
                TxnOp o = ops.get(j);
                r[j] = !o.getWrite() && o.getValue() != null && held.written(o.getKey(), o.getValue());
            }
            out[i] = r;
        }
        return out;
    }

    /**
     * As above, with the operations' key and value ids ({@code opIds}, per transaction of {@code order}, from {@code ids})
     * and which reads have a held writer ({@link #heldReads}, computed from {@code whole}): the passes over the round's
     * operations look keys up by id, in arrays, not by name.
     */
    static PastFrontier of(List<Transaction> order, int[][] opIds, boolean[][] heldReads, RoundIds ids, CollectedWrites store, HeldTransactions held,
                           Predicate<CollectedWrites.FrontierEntry> visible, Predicate<Transaction> mayOmit, Predicate<Transaction> judgedBefore,
                           Predicate<Transaction> beforePast) {
        // the keys to look up, in the order first read (each with how the round's history touches it, filled below)
        ids.beginPass();
        org.cobraverify.history.IntVec touched = new org.cobraverify.history.IntVec();
        for (int i = 0; i < order.size(); i++) {
            Transaction t = order.get(i);
            int[] x = opIds[i];
            boolean[] resolved = heldReads[i]; // null: every read of a value has its writer held, only reads of the initial value matter
            List<TxnOp> ops = t.getOps();
            for (int j = 0; j < ops.size(); j++) {
                // by the ids first: the operation itself (an object of its own, often not in the caches) only when they leave it
                // open (a write has a value, and resolved[j] holds only for reads)
                if (x[2 * j + 1] != History.NIL && (resolved == null || resolved[j])) continue;
                if (ops.get(j).getWrite()) continue;
                int k = x[2 * j];
                if (ids.mark(k)) { ids.slot(k, touched.size()); touched.add(k); }
            }
        }
        if (touched.size() == 0) return NONE;
        // how the round's history touches those keys: who may leave one isolated
        Touch[] touch = new Touch[touched.size()];
        for (int s = 0; s < touch.length; s++) touch[s] = new Touch();
        for (int i = 0; i < order.size(); i++) {
            int[] x = opIds[i];
            boolean[] resolved = heldReads[i];
            for (int j = 0; j < x.length; j += 2) {
                if (!ids.marked(x[j])) continue;
                Transaction t = order.get(i);
                TxnOp o = t.getOps().get(j / 2);
                Touch k = touch[ids.slot(x[j])];
                k.add(t, o, x[j + 1], mayOmit, beforePast, held);
                k.chain(t, o, x[j + 1], resolved == null || resolved[j / 2], mayOmit);
            }
        }
        List<String> lookup = new ArrayList<>(touched.size());
        List<Touch> lookedUp = new ArrayList<>(touched.size());
        org.cobraverify.history.IntVec lookedUpIds = new org.cobraverify.history.IntVec(touched.size());
        int skipped = 0;
        for (int s = 0; s < touch.length; s++) {
            Touch x = touch[s];
            if (x.isolable() && judgedBefore.test(x.sole)) skipped++;
            else { lookup.add(WireNames.of(ids.keys().name(touched.get(s)))); lookedUp.add(x); lookedUpIds.add(touched.get(s)); }
        }
        List<List<CollectedWrites.FrontierEntry>> logs = store.frontierLogs(lookup);
        Map<String, Key> known = new HashMap<>(Math.max(16, lookup.size() * 2));
        List<String> current = new ArrayList<>();
        org.cobraverify.history.IntVec currentIds = new org.cobraverify.history.IntVec();
        List<CollectedWrites.FrontierEntry> currentEntries = new ArrayList<>();
        int[] currentValue = new int[ids.keys().size()];
        int isolated = 0;
        String unknowable = null;
        org.cobraverify.history.IntVec chained = new org.cobraverify.history.IntVec();
        // a held transaction named as a synthetic writer would be (one in the input so named) takes that id; asked by name
        // only when some held id has the mark (building each key's synthetic id was 4% of a TPC-C round)
        boolean namedLikeSynthetic = false;
        for (String heldId : held.ids()) if (heldId.contains(SYNTHETIC_MARK)) { namedLikeSynthetic = true; break; }
        for (int s = 0; s < lookup.size(); s++) {
            String key = lookup.get(s);
            CollectedWrites.FrontierEntry e = FrontierLog.latest(logs.get(s), visible);
            if (e == null) continue;
            if (e == FrontierLog.UNKNOWABLE) {
                if (unknowable == null) unknowable = "the latest write of " + key + " was collected, but its frontier log holds no entry this"
                        + " incarnation may see (a restart from a checkpoint older than the entries kept): reads of it cannot be judged";
                continue;
            }
            Transaction isolatedBy = null;
            int isolatedValue = History.NIL;
            boolean synthetic = false;
            if (e.value() != null && !held.holds(e.writer()) && !held.written(key, e.value())
                && !(namedLikeSynthetic && held.holds(id(e.writer(), key)))) {
                Touch x = lookedUp.get(s);
                if (x.isolable() && x.firstRead.equals(e.value())) { isolatedBy = x.sole; isolatedValue = x.firstReadId; isolated++; }
                else if (x.chainFrom(e.value())) { isolatedBy = x.chainHead; isolatedValue = x.chainValueId; isolated++; chained.add(lookedUpIds.get(s)); }
                else if (x.needed) {
                    synthetic = true;
                    current.add(key);
                    currentIds.add(lookedUpIds.get(s));
                    currentEntries.add(e);
                    currentValue[lookedUpIds.get(s)] = 1 + ids.values().of(e.value());
                }
            }
            known.put(key, new Key(e, synthetic, isolatedBy, isolatedValue));
        }
        return new PastFrontier(known, current, currentIds.toArray(), currentEntries.toArray(new CollectedWrites.FrontierEntry[0]), currentValue,
                isolated, skipped, unknowable, chained.toArray());
    }

    /**
     * How the transactions of a round's history touch one key: the first one to ({@code sole}); the value its first
     * operation on the key read, when that was a read of a value (else null); and whether the key is shared (a second
     * transaction touches it, or the first reads {@code firstRead} again). Isolable: not shared, a first read of a value,
     * by a transaction that may omit it.
     */
    private static final class Touch {
        Transaction sole;
        /** The value id of the sole toucher's first operation on the key, a read that may be omitted (else -2), and its name. */
        int firstReadId = -2;
        String firstRead;
        boolean shared;
        /**
         * Whether the synthetic writer would have an edge besides {@code P_x -> B} and reads of the initial value by
         * transactions before the collected past: a toucher that is not before the past, a write of the key in the
         * round's history, or a read of a value. Without one it lies on no cycle and adds no path (its readers precede
         * the past already), so it is not built (docs/DESIGN.md §7.9, "Superseded writes of staying writers").
         */
        boolean needed;

        void add(Transaction t, TxnOp o, int value, Predicate<Transaction> mayOmit, Predicate<Transaction> beforePast, HeldTransactions held) {
            if (!needed) needed = !beforePast.test(t) || (o.getWrite() ? !held.isCollectedWrite(t, o) : value != History.NIL);
            if (sole == null) {
                sole = t;
                if (!o.getWrite() && value != History.NIL && mayOmit.test(t)) {
                    firstReadId = value;
                    firstRead = o.getValue();
                }
            } else if (t != sole) shared = true;
            else if (o.getWrite()) soleWrote = true;
            // the sole toucher reads the key again: before writing it, any value (the initial one would give it an edge into
            // the synthetic writer: seed 1609066 of the differential); after, the frontier value again
            else if (!soleWrote || (firstReadId != -2 && firstReadId == value)) shared = true;
        }

        /** Whether the sole toucher wrote the key (after its first read). */
        private boolean soleWrote;

        boolean isolable() { return !shared && firstRead != null; }

        // ---- the chain rule (docs/DESIGN.md §7.9, "Chains from a frontier value"): every transaction on the key may omit
        // a read (committed or aborted, not forced); one of them (the head) reads a value whose writer is not held, as its
        // first operation on the key, and reads no other such value; every other read of the key is of a value with a held
        // writer; and every transaction's first operation on the key is a read
        /** Whether the key's operations so far fit the rule. */
        private boolean chainOk = true;
        /** The one reader of a value whose writer is not held, and that value's name (null: none yet). */
        Transaction chainHead;
        private String chainValue;
        /** {@code chainValue}'s id in the round's value table. */
        int chainValueId = History.NIL;
        /** The transaction whose operations on the key were seen last (each transaction's come in a row). */
        private Transaction chainCur;

        void chain(Transaction t, TxnOp o, int value, boolean resolvedRead, Predicate<Transaction> mayOmit) {
            boolean first = t != chainCur;
            chainCur = t;
            if (!chainOk) return;
            if (first && !mayOmit.test(t)) chainOk = false;
            else if (o.getWrite()) {
                if (first) chainOk = false; // a blind write: the solver could order it before the synthetic writer
            } else if (value == History.NIL) chainOk = false; // an edge into the synthetic writer
            else if (!resolvedRead) {
                if (!first || chainHead != null) chainOk = false; // a second read of a value whose writer is not held
                else { chainHead = t; chainValue = o.getValue(); chainValueId = value; }
            }
        }

        /** Whether the key is isolated by the chain rule, {@code v} being the value its frontier record names. */
        boolean chainFrom(String v) { return chainOk && chainHead != null && chainValue.equals(v); }
    }

    /**
     * The edges from each synthetic writer to the writers of its key in the round's history ({@code order}), as facts
     * carried into the round: every such writer follows the collected one. One present when it was collected was reached
     * from an entry fence of that collection's past (FrontierAsData, condition 3); one that arrived later followed the
     * past it arrived after (A3). Not to a writer whose A3 is still to be checked: one {@code admitted} this round, or one
     * outside the checked history until now ({@code unincluded}; the barrier orders them, if they follow it); and none at all
     * when a proof was lost (a transaction that did not follow the past may be among them: the edge would be a guess).
     * By index in the round's history (after {@link #addWriters}): transaction {@code i} of {@code order} is its {@code i}-th,
     * each synthetic writer where {@link #writers} says; keys by their id in the round's key table.
     */
    CollectedPast.RoundFacts edges(List<Transaction> order, int[][] opIds, RoundIds ids, List<Transaction> admitted, java.util.Set<String> unincluded,
                                   boolean proofLost, HeldTransactions held) {
        if (writers.length == 0 || proofLost) return CollectedPast.RoundFacts.NONE;
        java.util.Set<String> unchecked = new java.util.HashSet<>(unincluded);
        for (Transaction t : admitted) unchecked.add(t.getId());
        // the synthetic writers' keys, marked by id
        ids.beginPass();
        for (int i = 0; i < keyIds.length; i++) {
            ids.mark(keyIds[i]);
            ids.slot(keyIds[i], i);
        }
        org.cobraverify.history.IntVec src = new org.cobraverify.history.IntVec(), dst = new org.cobraverify.history.IntVec(),
                key = new org.cobraverify.history.IntVec();
        for (int ti = 0; ti < order.size(); ti++) {
            Transaction t = order.get(ti);
            int[] x = opIds[ti];
            boolean any = false;
            for (int j = 0; j < x.length && !any; j += 2) any = ids.marked(x[j]);
            if (!any || unchecked.contains(t.getId())) continue;
            List<TxnOp> ops = t.getOps();
            for (int j = 0; j < ops.size(); j++) {
                TxnOp o = ops.get(j);
                if (!o.getWrite() || !ids.marked(x[2 * j])) continue;
                if (held.isCollectedWrite(t, o)) continue; // collected while t stays: it precedes the synthetic writer
                src.add(writers[ids.slot(x[2 * j])]);
                dst.add(ti);
                key.add(x[2 * j]);
            }
        }
        int[] kind = new int[src.size()];
        java.util.Arrays.fill(kind, org.cobraverify.checker.KnownGraph.PATH);
        return new CollectedPast.RoundFacts(src.toArray(), dst.toArray(), kind, key.toArray());
    }

    /**
     * The keys (ids in the round's key table, which the round's history shares) isolated by the chain rule this round: when
     * garbage collection takes a committed writer of one, the key's frontier record was superseded, and its log must say
     * so as collecting the synthetic writer would have ({@link org.cobraverify.gc.Collector#collect}).
     */
    int[] chainKeys() { return chainKeys; }

    /** Why some touched key's frontier cannot be known, or null. */
    String unknowable() { return unknowable; }

    /**
     * Whether {@code reader}'s read of {@code key} = {@code value} is the one read of an isolated key (left out of the round's
     * history). By name, for tests; judging holds the key's record.
     */
    boolean readsIsolated(Transaction reader, String key, String value) {
        if (isolatedCount == 0 || value == null) return false;
        Key k = known.get(key);
        return k != null && readsIsolated(k, reader, value);
    }

    /** As below, the value by its id in the round's value table. */
    private static boolean readsIsolated(Key k, Transaction reader, int value) {
        Transaction by = k.isolatedBy();
        return by != null && (by == reader || by.getId().equals(reader.getId())) && value != History.NIL && value == k.isolatedValue();
    }

    private static boolean readsIsolated(Key k, Transaction reader, String value) {
        Transaction by = k.isolatedBy(); // (the same object when it is the reader, as a rule: no walk over two ids then)
        return by != null && (by == reader || by.getId().equals(reader.getId())) && value.equals(k.latest().value());
    }

    /** How many keys were isolated this round (no synthetic writer), those not even looked up included. */
    int isolatedCount() { return isolatedCount + skipped; }

    /** Whether the key of id {@code key} (in the round's key table) has a synthetic writer this round. */
    boolean hasWriter(int key) { return key < currentValue.length && currentValue[key] != 0; }

    /** Whether value id {@code value} is the frontier record of key id {@code key}, written by a synthetic writer this round. */
    boolean isCurrent(int key, int value) { return value != History.NIL && key < currentValue.length && currentValue[key] == value + 1; }

    /** As above, by name (for tests: the round's own passes ask by id, or hold the key's record). */
    boolean isCurrent(String key, String value) {
        if (keys.isEmpty() || value == null) return false;
        Key k = known.get(key);
        return k != null && isCurrent(k, value);
    }

    private static boolean isCurrent(Key k, String value) { return k.current() && k.latest().value().equals(value); }

    /** The synthetic writers' id: the collected writer's, marked (a certificate shows it). */
    static String id(String writer, String key) { return writer + SYNTHETIC_MARK + key + "]"; }

    /** What every synthetic writer's id contains. */
    private static final String SYNTHETIC_MARK = " [collected; its write of ";

    /**
     * Appends the synthetic writers to {@code b} (after the round's transactions; its {@link HistoryBuilder#index} has them). Requires {@code b} to
     * intern into the round's tables (those {@link #of} was given): keys and values are written by the ids found there. Each
     * writer is alone in a session of its own ({@link HistoryBuilder#freshSession}: never merged with one of the input's).
     */
    void addWriters(HistoryBuilder b) {
        if (keys.isEmpty()) return;
        writers = new int[keys.size()];
        for (int i = 0; i < writers.length; i++) {
            String key = keys.get(i);
            String id = id(entries[i].writer(), key);
            writers[i] = b.size();
            b.begin(id, b.freshSession("\0frontier\0" + key), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            b.write(keyIds[i], currentValue[keyIds[i]] - 1);
            b.end();
        }
    }

    /** The synthetic writers' indexes in the round's history. */
    int[] writers() { return writers; }

    /** {@code planOld} extended to the synthetic writers, which are old. */
    boolean[] old(boolean[] planOld, int size) {
        boolean[] out = java.util.Arrays.copyOf(planOld, size);
        for (int w : writers) out[w] = true;
        return out;
    }

    /** The plan's pins extended to the synthetic writers: pinned when a transaction that may still join reads their value. */
    boolean[] pinned(CollectionPlanner.Plan plan, History h) {
        boolean[] out = java.util.Arrays.copyOf(plan.pinned(), h.size());
        if (!plan.anyPastRead()) return out;
        for (int i = 0; i < writers.length; i++) out[writers[i]] = plan.pastRead(keys.get(i), entries[i].value());
        return out;
    }

    /**
     * This round's reads of collected writes to judge after the check: a read of a frontier record that is current was
     * checked in the graph, or needs no check when its key is isolated (dropped); one whose record a later write
     * superseded is a stale read like any other, superseded by the writer the log names last. {@code ids}: the round's,
     * compiled for its transactions.
     */
    List<StaleReads.StaleRead> judgeable(List<StaleReads.StaleRead> reads, RoundIds ids) {
        if (reads.isEmpty()) return reads;
        List<StaleReads.StaleRead> out = new ArrayList<>(reads.size());
        Transaction lastReader = null;
        int lastAt = -1;
        for (StaleReads.StaleRead s : reads) {
            CollectedWrites.Entry e = s.entry();
            if (e.fate() != CollectedWrites.Fate.FRONTIER) { out.add(s); continue; }
            // a current frontier record, by id (an array lookup): the read's place among its reader's operations, found by
            // identity (a record's equals walks its schema) from just after the reader's last one, as they are recorded in order
            int[] x = keys.isEmpty() ? null : ids.compiled(s.reader());
            if (x != null) {
                List<TxnOp> ops = s.reader().getOps();
                int from = s.reader() == lastReader ? lastAt + 1 : 0, j = -1;
                for (int step = 0; step < ops.size(); step++) {
                    int c = (from + step) % ops.size();
                    if (ops.get(c) == s.op()) { j = c; break; }
                }
                lastReader = s.reader();
                lastAt = j;
                if (j >= 0 && isCurrent(x[2 * j], x[2 * j + 1])) continue;
            }
            Key k = known.get(s.op().getKey());
            // an isolated reader's value compared by id when the read's place was found (no walk over two strings), else by name
            boolean placed = x != null && lastAt >= 0;
            if (k != null && (isCurrent(k, s.op().getValue()) || (placed ? readsIsolated(k, s.reader(), x[2 * lastAt + 1])
                    : readsIsolated(k, s.reader(), s.op().getValue())))) continue;
            CollectedWrites.FrontierEntry last = k == null ? null : k.latest();
            if (last == null || last.writer() == null || s.op().getValue().equals(last.value())) { out.add(s); continue; } // cannot be judged
            out.add(new StaleReads.StaleRead(s.reader(), s.op(),
                    new CollectedWrites.Entry(e.writer(), last.writer(), CollectedWrites.Fate.SUPERSEDED, e.round(), e.incarnation())));
        }
        return out;
    }
}
