package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.gc.WireText;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * The transactions a verifier in rounds holds between rounds: <em>retained</em> ones (checked, not collected yet)
 * and <em>waiting</em> ones (a read's writer has not arrived), with the writer index over both and what each
 * round needs to know of them.
 *
 * <p>Invariants, kept by its operations (its state is private) and asserted by {@link #invariantsHold} under {@code -ea}
 * at every round's end: every held transaction is in {@code byId} and in exactly one of {@code retained} and
 * {@code waiting}; {@code writers} maps each write of a held transaction to it (writes are unique, A1, so
 * a transaction that would break that is never held), and names no transaction that is not held; {@code partlyRead}
 * lists retained transactions with a read whose writer is not in the index (collected after the reader was checked, or a
 * stale read), so every other retained transaction's reads all resolve; {@code unknownSince}, {@code unincluded} and the
 * superseded marks only name held transactions, the open marks only retained ones. The size is what garbage collection leaves (bounded by the verifier's
 * {@code maxRetained}).
 */
final class HeldTransactions {
    private final WriterIndex writers = new WriterIndex();
    private final Map<String, Transaction> byId = new HashMap<>();
    private final List<Transaction> retained = new ArrayList<>();
    private final Set<String> retainedIds = new HashSet<>();
    private final List<Transaction> waiting = new ArrayList<>();
    /** Per waiting transaction, the round it arrived in (how long it has waited counts from there). */
    private final Map<String, Long> waitingSince = new HashMap<>();
    private final Set<String> partlyRead = new HashSet<>();
    /**
     * Held transactions of unknown outcome, with the round each arrived in. One that nobody has read may still turn
     * out committed when a later transaction reads its write, so it holds collection back until it is set aside
     * ({@link org.cobraverify.gc.CollectionPlanner}, A7).
     */
    private final Map<String, Long> unknownSince = new HashMap<>();
    /**
     * Held transactions recorded of unknown outcome and since found committed ({@link #knownCommitted}): committed, but their
     * client never learned it, so session order does not run from them (docs/DESIGN.md §1.2).
     */
    private final Set<String> unacknowledged = new HashSet<>();
    /**
     * Retained transactions outside the last checked history (of unknown outcome, read by nobody yet). A read that
     * includes one later makes it part of the checked history then, and it is checked against the collected past
     * then, as a newly admitted transaction is.
     */
    private final Set<String> unincluded = new HashSet<>();
    /**
     * Writes of transactions set aside after a violation ({@link SetAside}) since the last collection or checkpoint, by
     * key and value. They move to the collected-write store then ({@link IncrementalVerifier}), not before: until a
     * collection, a batch of rounds may still be decided again from a snapshot that held those transactions, and the
     * store is not part of a snapshot.
     */
    private final Map<String, Map<String, CollectedWrites.Entry>> setAsideWrites = new HashMap<>();
    /**
     * Keys a set-aside transaction wrote, with the round it was set aside in, and their writers from before. What garbage
     * collection recorded of such a key (which write was the latest, which were superseded) was decided with that writer
     * present; without it, which write of the key came last before it is not known, so a later read of a write of the key
     * made before then (its initial value, a collected write, or a write of a transaction held then) cannot be judged
     * (docs/DESIGN.md §7.10). Bounded: {@link TaintedKeys#MAX_KEYS}.
     */
    private final TaintedKeys tainted = new TaintedKeys();
    /**
     * Superseded writes of staying writers (docs/DESIGN.md §7.9): per retained transaction, the keys whose frontier writer
     * went as data while it stayed, each with that writer's id. Its writes of such a key were collected then (the last one
     * superseded by that writer, any earlier one intermediate): they are in the collected-write store, not in
     * {@link #writers}, and later rounds' histories leave them out (its readers that stayed are partly read). Only held
     * transactions are named (a mark goes with its transaction); at most one entry per key a retained transaction writes.
     */
    private final Map<String, Map<String, String>> supersededMarks = new HashMap<>();
    /**
     * Below serializability, condition 4's open writers (docs/DESIGN.md §7.11): per retained transaction, the keys it wrote
     * whose sealed version's writer does not reach it in {@code so ∪ wr}. A later reader of such a key's sealed version that
     * the writer may precede is left unchecked. At most one entry per key a retained transaction writes; a mark goes with its
     * transaction, and a key's marks are renewed whenever the key is sealed again.
     */
    private final Map<String, Set<String>> openKeys = new HashMap<>();
    /** The keys whose latest sealed version was sealed by an open writer ({@link ChosenSeals}). */
    private final ChosenSeals chosen = new ChosenSeals();

    // ---- what the rounds read of the held transactions (views: nothing here is changed through them)

    /** The held transaction with id {@code id}, or null. */
    Transaction get(String id) { return byId.get(id); }

    /** Whether a transaction with id {@code id} is held (retained or waiting). */
    boolean holds(String id) { return byId.containsKey(id); }

    /** Every held transaction (unmodifiable, in no particular order). */
    java.util.Collection<Transaction> all() { return Collections.unmodifiableCollection(byId.values()); }

    /** The ids of the held transactions (unmodifiable). */
    Set<String> ids() { return Collections.unmodifiableSet(byId.keySet()); }

    /** The held transaction that wrote {@code value} to {@code key}, or null. */
    Transaction writerOf(String key, String value) { return writers.get(key, value); }

    /** Whether a held transaction wrote {@code value} to {@code key}. */
    boolean written(String key, String value) { return writers.contains(key, value); }

    /** {@link WriterIndex#getSharing}: the writer of {@code ops[j]}'s value, the read taking the writer's strings. */
    Transaction writerSharing(List<TxnOp> ops, int j) { return writers.getSharing(ops, j); }

    /** The retained transactions, in admission order (unmodifiable). */
    List<Transaction> retained() { return Collections.unmodifiableList(retained); }

    int retainedCount() { return retained.size(); }

    boolean isRetained(String id) { return retainedIds.contains(id); }

    /** The waiting transactions, oldest first (unmodifiable). */
    List<Transaction> waiting() { return Collections.unmodifiableList(waiting); }

    int waitingCount() { return waiting.size(); }

    /** Per waiting transaction, the round it arrived in (unmodifiable). */
    Map<String, Long> waitingSince() { return Collections.unmodifiableMap(waitingSince); }

    boolean isPartlyRead(String id) { return partlyRead.contains(id); }

    /** Per held transaction of unknown outcome, the round it arrived in (unmodifiable). */
    Map<String, Long> unknownSince() { return Collections.unmodifiableMap(unknownSince); }

    /** The retained transactions outside the last checked history (unmodifiable). */
    Set<String> unincluded() { return Collections.unmodifiableSet(unincluded); }

    /** Whether {@code id} has a superseded mark (one lookup: the round's history leaves its marked writes out). */
    boolean hasSupersededMarks(String id) { return !supersededMarks.isEmpty() && supersededMarks.containsKey(id); }

    /** The superseded marks, by transaction and key (unmodifiable). */
    Map<String, Map<String, String>> supersededMarks() { return Collections.unmodifiableMap(supersededMarks); }

    /** The tainted keys (docs/DESIGN.md §7.10). */
    TaintedKeys tainted() { return tainted; }

    ChosenSeals chosen() { return chosen; }

    // ---- what the rounds change

    /**
     * Records {@code t} as the writer of its writes; or, when one of them was written already, by a held transaction
     * or by {@code t} itself (unique writes, A1), records none of them and says why.
     */
    String recordWrites(Transaction t) {
        List<TxnOp> ops = t.getOps();
        for (int i = 0; i < ops.size(); i++) {
            TxnOp o = ops.get(i);
            if (!o.getWrite()) continue;
            Transaction w = writers.putIfAbsent(o.getKey(), o.getValue(), t);
            if (w == null) continue;
            for (int j = 0; j < i; j++) { // undo this transaction's writes recorded so far (the first write of a value wins)
                TxnOp p = ops.get(j);
                if (p.getWrite()) writers.removeIfWrittenBy(p.getKey(), p.getValue(), t);
            }
            return t.getId() + " writes " + WireText.shown(o.getKey()) + " = " + WireText.shown(o.getValue()) + (w == t ? " twice" : ", which " + w.getId() + " wrote too")
                    + " (every write must be unique)";
        }
        byId.put(t.getId(), t);
        return null;
    }

    /** Adds an arrived transaction (its writes recorded) to the waiting ones. */
    void arrive(Transaction t, long round) {
        waiting.add(t);
        waitingSince.put(t.getId(), round);
        if (t.getStatus() == TxnStatus.UNKNOWN) unknownSince.put(t.getId(), round);
    }

    /** Takes {@code admitted} (waiting ones) out of the waiting list; they are retained by {@link #retain} after the check. */
    void stopWaiting(List<Transaction> admitted) {
        if (admitted.isEmpty()) return;
        Set<Transaction> in = Collections.newSetFromMap(new IdentityHashMap<>(admitted.size() * 2));
        for (Transaction t : admitted) { in.add(t); waitingSince.remove(t.getId()); }
        if (in.size() == waiting.size()) waiting.clear();
        else waiting.removeIf(in::contains);
    }

    /** Every waiting transaction, taken out of the waiting list (the last round checks them as they are). */
    List<Transaction> takeAllWaiting() {
        List<Transaction> out = new ArrayList<>(waiting);
        waiting.clear();
        waitingSince.clear();
        return out;
    }

    /** Retains checked transactions; those {@code partly} names lack a read in later rounds' histories. */
    void retain(List<Transaction> checked, Predicate<String> partly) {
        retained.addAll(checked);
        for (Transaction t : checked) {
            retainedIds.add(t.getId());
            if (partly.test(t.getId())) partlyRead.add(t.getId());
        }
    }

    /** Forgets collected transactions: their writes leave the index (the collected-write store has them now). */
    void forget(Set<String> gone) {
        if (gone.isEmpty()) return;
        for (String id : gone) {
            Transaction t = byId.remove(id);
            if (t != null)
                for (TxnOp o : t.getOps()) if (o.getWrite()) writers.removeIfWrittenBy(o.getKey(), o.getValue(), t);
            retainedIds.remove(id);
            partlyRead.remove(id);
            unknownSince.remove(id);
            unacknowledged.remove(id);
            unincluded.remove(id);
            supersededMarks.remove(id);
            openKeys.remove(id);
        }
        retained.removeIf(t -> gone.contains(t.getId()));
    }

    /**
     * Records that the retained transaction {@code id}, of unknown outcome, committed: a collected transaction of the
     * checked history read its write ({@link org.cobraverify.gc.Collector.Outcome#knownCommitted}). From now on it is
     * in every round's checked history, and no longer one that may still join.
     */
    void knownCommitted(String id) {
        Transaction t = byId.get(id);
        if (t == null || t.getStatus() != TxnStatus.UNKNOWN) return;
        t.setStatus(TxnStatus.COMMITTED);
        unacknowledged.add(id);
        unknownSince.remove(id);
        unincluded.remove(id);
    }

    /**
     * Whether held {@code t}'s client learned its outcome: not if it is of unknown outcome, nor if it was and was found
     * committed since ({@link #knownCommitted}). Session order runs only from an acknowledged transaction (docs/DESIGN.md §1.2).
     */
    boolean acknowledged(Transaction t) { return t.getStatus() != TxnStatus.UNKNOWN && !unacknowledged.contains(t.getId()); }

    /** Records which retained transactions of the round's history ({@code order}) are outside the checked history. */
    void noteUnincluded(List<Transaction> order, boolean[] included) {
        unincluded.clear();
        for (int i = 0; i < order.size(); i++)
            if (!included[i] && order.get(i).getStatus() == TxnStatus.UNKNOWN) unincluded.add(order.get(i).getId());
    }

    /** A read of {@code t} whose writer is not held: the first, described for a verdict that gives up waiting. */
    String firstMissingRead(Transaction t) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writers.get(o.getKey(), o.getValue());
            if (w == null) return WireText.shown(o.getKey()) + " = " + WireText.shown(o.getValue()) + ", which nobody has written yet";
            if (w != t && !retainedIds.contains(w.getId())) return WireText.shown(o.getKey()) + " = " + WireText.shown(o.getValue()) + " from " + w.getId() + ", itself waiting";
        }
        return "?";
    }

    /** The sessions of the transactions held. */
    Set<String> sessions() {
        Set<String> s = new HashSet<>();
        for (Transaction t : byId.values()) s.add(t.getSession());
        return s;
    }

    int size() { return retained.size() + waiting.size(); }

    boolean isEmpty() { return byId.isEmpty(); }

    /** Forgets everything (after a reject, or past the memory bound). */
    void clear() {
        writers.clear();
        byId.clear();
        retained.clear();
        retainedIds.clear();
        waiting.clear();
        waitingSince.clear();
        partlyRead.clear();
        unknownSince.clear();
        unacknowledged.clear();
        unincluded.clear();
        setAsideWrites.clear();
        tainted.clearAll();
        supersededMarks.clear();
        openKeys.clear();
        chosen.clear();
    }

    /** The keys on which retained {@code id}'s write is open ({@link #openKeys}); empty when none. */
    Set<String> openKeys(String id) {
        Set<String> ks = openKeys.get(id);
        return ks == null ? Set.of() : Collections.unmodifiableSet(ks);
    }

    /** Whether any retained transaction's write is open on its key. */
    boolean hasOpen() { return !openKeys.isEmpty(); }

    /**
     * A collection sealed {@code sealed} (keys): the open marks on them end, and {@code opened} (retained transaction to the
     * keys among them its write is open on) are the new ones.
     */
    void reopen(Set<String> sealed, Map<String, Set<String>> opened) {
        if (!openKeys.isEmpty() && !sealed.isEmpty()) {
            openKeys.values().forEach(ks -> ks.removeAll(sealed));
            openKeys.values().removeIf(Set::isEmpty);
        }
        opened.forEach((id, ks) -> { if (byId.containsKey(id)) openKeys.computeIfAbsent(id, x -> new HashSet<>()).addAll(ks); });
    }

    /**
     * Makes the held transactions lack their reads of {@code gone} writes (by key and value, each with the entry the
     * collected-write store has for it): a waiting reader has the read recorded in {@code stale} as a read of a collected
     * write (admission resolves it so, and it is judged then); any other is partly read from now on. Returns how many reads.
     */
    int loseReadsOf(Map<String, Map<String, CollectedWrites.Entry>> gone, org.cobraverify.gc.StaleReads stale) {
        Set<String> waitingIds = new HashSet<>();
        for (Transaction t : waiting) waitingIds.add(t.getId());
        int lost = 0;
        for (Transaction t : byId.values())
            for (TxnOp o : t.getOps()) {
                if (o.getWrite() || o.getValue() == null) continue;
                Map<String, CollectedWrites.Entry> byValue = gone.get(o.getKey());
                CollectedWrites.Entry e = byValue == null ? null : byValue.get(o.getValue());
                if (e == null) continue;
                lost++;
                if (waitingIds.contains(t.getId())) stale.record(t, o, e);
                else partlyRead.add(t.getId());
            }
        return lost;
    }

    /**
     * Below serializability, where garbage collection may take a writer a waiting transaction read (docs/DESIGN.md §7.11):
     * records in {@code stale}, as a read of a collected write, each read of a waiting transaction whose writer is no longer
     * held and that {@code lookup} (the collected writes this incarnation may see) now knows. Returns how many reads.
     */
    int waitingReadsOfCollected(Admission.CollectedLookup lookup, org.cobraverify.gc.StaleReads stale) {
        List<Transaction> readers = new ArrayList<>();
        List<TxnOp> reads = new ArrayList<>();
        List<String> keys = new ArrayList<>(), values = new ArrayList<>();
        for (Transaction t : waiting)
            for (TxnOp o : t.getOps()) {
                if (o.getWrite() || o.getValue() == null || writers.get(o.getKey(), o.getValue()) != null || stale.isWaiting(t, o)) continue;
                readers.add(t); reads.add(o); keys.add(o.getKey()); values.add(o.getValue());
            }
        if (keys.isEmpty()) return 0;
        CollectedWrites.Entry[] found = lookup.getAll(keys, values);
        int n = 0;
        for (int i = 0; i < found.length; i++) if (found[i] != null) { stale.record(readers.get(i), reads.get(i), found[i]); n++; }
        return n;
    }

    /** Marks {@code txn}'s write of {@code key} superseded by {@code by}, a frontier writer collected as data (held transactions only). */
    void markSuperseded(String txn, String key, String by) {
        if (byId.containsKey(txn)) supersededMarks.computeIfAbsent(txn, k -> new HashMap<>()).put(key, by);
    }

    /** Whether {@code o}, a write of held {@code t}, was collected while {@code t} stays (a superseded mark names it). */
    boolean isCollectedWrite(Transaction t, TxnOp o) {
        if (supersededMarks.isEmpty()) return false;
        Map<String, String> m = supersededMarks.get(t.getId());
        return m != null && m.containsKey(o.getKey()) && writers.get(o.getKey(), o.getValue()) != t;
    }

    /** The entry of a write set aside since the last collection or checkpoint, or null. */
    CollectedWrites.Entry setAsideWrite(String key, String value) {
        if (setAsideWrites.isEmpty()) return null;
        Map<String, CollectedWrites.Entry> byValue = setAsideWrites.get(key);
        return byValue == null ? null : byValue.get(value);
    }

    /** Records retained transactions as partly read (a read of theirs was collected: {@link org.cobraverify.gc.Collector}). */
    void partlyRead(Collection<String> ids) { partlyRead.addAll(ids); }

    /** Takes {@code key} = {@code value} out of the writer index (its write was collected while its writer stays, §7.9). */
    void removeWrite(String key, String value) { writers.remove(key, value); }

    /** Records a write of a transaction set aside (or left unfenced) as such; with {@code replace} false, a recorded entry stays. */
    void setAsideWrite(String key, String value, CollectedWrites.Entry e, boolean replace) {
        Map<String, CollectedWrites.Entry> byValue = setAsideWrites.computeIfAbsent(key, k -> new HashMap<>());
        if (replace) byValue.put(value, e);
        else byValue.putIfAbsent(value, e);
    }

    /** The writes set aside since the last call (by key and value), to be moved to the collected-write store. */
    Map<String, Map<String, CollectedWrites.Entry>> takeSetAsideWrites() {
        if (setAsideWrites.isEmpty()) return Map.of();
        Map<String, Map<String, CollectedWrites.Entry>> out = new HashMap<>(setAsideWrites);
        setAsideWrites.clear();
        return out;
    }

    /** Forgets set-aside transactions {@code ids}, retained or waiting ({@link SetAside}). */
    void setAside(Set<String> ids) {
        forget(ids);
        waiting.removeIf(t -> ids.contains(t.getId()));
        for (String id : ids) waitingSince.remove(id);
    }

    // ---- checkpoints

    /** Restores a superseded mark of a checkpoint (before its transaction, {@link #restoreHeld}). */
    void restoreMarks(String txn, Map<String, String> marks) { supersededMarks.put(txn, marks); }

    /**
     * Restores a held transaction of a checkpoint, in admission order: retained when {@code waitingSince} is negative,
     * waiting otherwise; {@code unknownSince} negative: not of unknown outcome; {@code open}: the keys its write is open on
     * ({@link #openKeys}). Its writes enter the index, less those of keys its superseded marks name (collected, §7.9). Call {@link #finishRestore} after the last.
     */
    void restoreHeld(Transaction t, long waitingSinceRound, long unknownSinceRound, boolean acknowledged, Collection<String> open) {
        byId.put(t.getId(), t);
        if (!open.isEmpty()) openKeys.put(t.getId(), new HashSet<>(open));
        if (!acknowledged) unacknowledged.add(t.getId());
        Map<String, String> marked = supersededMarks.get(t.getId());
        for (TxnOp o : t.getOps())
            if (o.getWrite() && (marked == null || !marked.containsKey(o.getKey()))) writers.putIfAbsent(o.getKey(), o.getValue(), t);
        if (unknownSinceRound >= 0) unknownSince.put(t.getId(), unknownSinceRound);
        if (waitingSinceRound < 0) { retained.add(t); retainedIds.add(t.getId()); }
        else { waiting.add(t); waitingSince.put(t.getId(), waitingSinceRound); }
    }

    /** After the last {@link #restoreHeld}: the retained transactions with a read of no held writer are partly read; {@code unincluded} as recorded. */
    void finishRestore(Collection<String> unincludedIds) {
        for (Transaction t : retained)
            for (TxnOp o : t.getOps())
                if (!o.getWrite() && o.getValue() != null && !writers.contains(o.getKey(), o.getValue())) { partlyRead.add(t.getId()); break; }
        unincluded.addAll(unincludedIds);
    }

    /** The invariants stated above, but that of the writer index's completeness (for assertions: linear in what is held). */
    boolean invariantsHold() {
        if (byId.size() != retained.size() + waiting.size() || retainedIds.size() != retained.size() || waitingSince.size() != waiting.size()) return false;
        for (Transaction t : retained) if (byId.get(t.getId()) != t || !retainedIds.contains(t.getId())) return false;
        for (Transaction t : waiting) if (byId.get(t.getId()) != t || retainedIds.contains(t.getId()) || !waitingSince.containsKey(t.getId())) return false;
        if (!retainedIds.containsAll(partlyRead) || !byId.keySet().containsAll(unknownSince.keySet()) || !byId.keySet().containsAll(unacknowledged) || !byId.keySet().containsAll(unincluded)
                || !byId.keySet().containsAll(supersededMarks.keySet()) || !retainedIds.containsAll(openKeys.keySet())) return false;
        return tainted.invariantsHold();
    }

    /** A copy sharing nothing mutable with this one (the transactions themselves are shared: nothing changes them). */
    HeldTransactions copy() {
        HeldTransactions c = new HeldTransactions();
        c.replaceWith(this);
        return c;
    }

    /** Replaces this state by a copy of {@code o}'s. */
    void replaceWith(HeldTransactions o) {
        writers.replaceWith(o.writers);
        byId.clear(); byId.putAll(o.byId);
        retained.clear(); retained.addAll(o.retained);
        retainedIds.clear(); retainedIds.addAll(o.retainedIds);
        waiting.clear(); waiting.addAll(o.waiting);
        waitingSince.clear(); waitingSince.putAll(o.waitingSince);
        partlyRead.clear(); partlyRead.addAll(o.partlyRead);
        unknownSince.clear(); unknownSince.putAll(o.unknownSince);
        unacknowledged.clear(); unacknowledged.addAll(o.unacknowledged);
        unincluded.clear(); unincluded.addAll(o.unincluded);
        setAsideWrites.clear();
        for (Map.Entry<String, Map<String, CollectedWrites.Entry>> e : o.setAsideWrites.entrySet()) setAsideWrites.put(e.getKey(), new HashMap<>(e.getValue()));
        tainted.replaceWith(o.tainted);
        supersededMarks.clear();
        for (Map.Entry<String, Map<String, String>> e : o.supersededMarks.entrySet()) supersededMarks.put(e.getKey(), new HashMap<>(e.getValue()));
        openKeys.clear();
        for (Map.Entry<String, Set<String>> e : o.openKeys.entrySet()) openKeys.put(e.getKey(), new HashSet<>(e.getValue()));
        chosen.replaceWith(o.chosen);
    }
}
