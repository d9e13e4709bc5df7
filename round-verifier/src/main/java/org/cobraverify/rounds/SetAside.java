package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.checker.Certificate;
import org.cobraverify.gc.WireText;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * Setting aside the transactions of a violation, so that verification goes on from a baseline without them
 * (docs/DESIGN.md §7.10): which transactions a certificate names ({@link #of}), and taking them out of the verifier's
 * state ({@link #apply}); the keys that leaves tainted: which reads of them cannot be judged ({@link #untestableRead}),
 * when a key is clear again ({@link #clearable}), and the bound ({@link #bound}). Also the transactions left out without a
 * violation, unchecked (§7.6): {@link #leaveUnfenced}, {@link #leaveUnchecked}.
 *
 * <p>Contract of {@link #apply}: afterwards no held structure names a set-aside transaction (it is not held, none of its
 * reads is recorded, none of its writes is in the writer index); each of its writes is in the collected-write store with
 * {@link CollectedWrites.Fate#SET_ASIDE}, so that a later reader of one resolves and its read goes unchecked; and every
 * held transaction that reads one of those writes lacks that read from then on (a retained or admitted one is
 * {@code partlyRead}, a waiting one has the read recorded as a read of a collected write). The history checked from then
 * on is therefore a sub-history of the real one, less the set-aside transactions and the reads of their writes: a
 * relaxation, which never invents a violation.
 */
final class SetAside {
    private SetAside() {}

    /** Keeps the taint within its bounds ({@link TaintedKeys#bound}). Returns how many keys went to the overflow filter. */
    static int bound(HeldTransactions held) { return held.tainted().bound(); }

    /**
     * The first read by one of {@code checked} (transactions checked for the first time: admitted this round, or of unknown
     * outcome and brought into the checked history by a reader of their writes) of a key a set-aside transaction
     * wrote, of a write made before it was set aside (the initial value, a write of a transaction held then, collected or
     * not, or a write collected before), described; null if none. A write made since (by a transaction that arrived after
     * the taint, held or collected) is checked as usual, and reads of set-aside writes are not checked at all, by
     * definition. Every read of a key in {@link TaintOverflow} but a transaction's own is untestable.
     */
    static String untestableRead(List<Transaction> checked, HeldTransactions held, java.util.function.BiFunction<String, String, CollectedWrites.Entry> collected) {
        TaintedKeys tainted = held.tainted();
        if (tainted.none()) return null;
        for (Transaction t : checked)
            for (TxnOp o : t.getOps()) {
                if (o.getWrite()) continue;
                Long since = tainted.since(o.getKey());
                boolean forgotten = since == null && tainted.mayBeForgotten(o.getKey());
                if (since == null && !forgotten) continue;
                Set<String> before = since == null ? Set.of() : tainted.writersBefore(o.getKey());
                if (o.getValue() != null) {
                    Transaction w = held.writerOf(o.getKey(), o.getValue());
                    if (w == t) continue; // its own write
                    if (w != null && !forgotten && !before.contains(w.getId())) continue; // written since, by a held writer
                    CollectedWrites.Entry e = w != null ? null : collected.apply(o.getKey(), o.getValue());
                    if (e != null && e.fate() == CollectedWrites.Fate.SET_ASIDE) continue; // not checked, by definition
                    // written since, by a writer collected since: collected in the taint's round or later by one not held then
                    if (e != null && !forgotten && e.round() >= since && !before.contains(e.writer())) continue;
                }
                return t.getId() + " reads " + WireText.shown(o.getKey()) + " = " + (o.getValue() == null ? "its initial value" : WireText.shown(o.getValue()))
                        + (forgotten ? ", a key that may be one of the " + tainted.forgotten() + " keys written by transactions set aside after"
                                       + " violations and no longer remembered one by one"
                                     : ", a key written by a transaction set aside in round " + since + " after a violation")
                        + "; which write of the key came last without it is not known, so the read cannot be judged";
            }
        return null;
    }

    /**
     * The held transactions a violation's certificate sets aside: for a read that should not have been possible (G1a,
     * G1b, a read of a never-written value, an internal inconsistency, a stale read), its reader; for a lost update, the two
     * transactions that overwrote one version (not the version's writer); otherwise every transaction the certificate names (its cycle's, or the refuted sub-history's), fences included, so that no later
     * round can report a violation made only of transactions this one named (the same violation twice). A fence set aside
     * leaves its session's later transactions without the proof that they follow the collected past: later rounds then
     * say unknown, never accept. Empty when the certificate names no held transaction.
     */
    static Set<String> of(Certificate c, HeldTransactions held) {
        Set<String> out = new LinkedHashSet<>();
        for (String id : c.atFault()) if (held.holds(id)) out.add(id);
        return out;
    }

    /**
     * Takes {@code ids} (held transactions) out of {@code held}, {@code stale} and {@code admitted}, records their writes
     * as set aside ({@link HeldTransactions#setAsideWrite}) in round {@code round} of {@code incarnation}, and makes their readers lack those reads (the contract
     * above); the facts of {@code past} that ran through them are contracted ({@link CollectedPast#contract}), and those for
     * which that was refused are added to {@code uncontracted}. Returns how many reads of their writes by held transactions were dropped.
     *
     * <p>Only a transaction that garbage collection may have analysed ({@code analysed}: retained before this round) taints
     * the keys it wrote, and only such a writer of a key tainted now is among its {@code taintedWriters}: what collections
     * recorded was decided with the transactions they saw, and one admitted in this round (or still waiting) was seen by
     * none. A write by one of those is made since, as far as the taint goes (docs/DESIGN.md §7.10).
     */
    static int apply(Set<String> ids, HeldTransactions held, StaleReads stale, List<Transaction> admitted, long round, long incarnation,
                     CollectedPast past, List<String> uncontracted, java.util.function.Predicate<String> analysed) {
        return remove(ids, held, stale, admitted, round, incarnation, past, uncontracted, analysed);
    }

    /**
     * Takes {@code ids} out of the checked history without a violation (docs/DESIGN.md §7.6): transactions that joined it
     * in this round without following the collected past, which no garbage collection has analysed with them (admitted now,
     * or outside every checked history so far) and no fact of the past names. As {@link #apply}, without contracting the
     * past and without tainting their keys: nothing recorded of the past went through them. Returns how many reads of
     * their writes by held transactions were dropped.
     */
    static int leaveUnchecked(Set<String> ids, HeldTransactions held, StaleReads stale, List<Transaction> admitted, long round, long incarnation) {
        return remove(ids, held, stale, admitted, round, incarnation, null, null, null);
    }

    private static int remove(Set<String> ids, HeldTransactions held, StaleReads stale, List<Transaction> admitted, long round, long incarnation,
                              CollectedPast past, List<String> uncontracted, java.util.function.Predicate<String> analysed) {
        // the paths of the collected past that ran through them stay, between the others (CollectedPast#contract)
        if (past != null && past.exists()) {
            Set<String> gone = new HashSet<>();
            for (String id : ids) {
                Transaction x = held.get(id);
                if (x == null) continue;
                // session order runs from a transaction not of unknown outcome to every later one of its session (§1.2): x's
                // way in is the last such before it; its ways out (none when it is of unknown outcome) every one after it up to
                // the first such (the later ones follow that one)
                Transaction before = null, after = null;
                List<Transaction> sameSession = new ArrayList<>();
                for (Transaction t : held.all()) {
                    if (gone.contains(t.getId()) || t == x || !t.getSession().equals(x.getSession())) continue;
                    sameSession.add(t);
                    if (!held.acknowledged(t)) continue;
                    if (t.getSessionIndex() < x.getSessionIndex() && (before == null || t.getSessionIndex() > before.getSessionIndex())) before = t;
                    if (t.getSessionIndex() > x.getSessionIndex() && (after == null || t.getSessionIndex() < after.getSessionIndex())) after = t;
                }
                List<String> ways = new ArrayList<>();
                for (Transaction t : sameSession)
                    if (held.acknowledged(x) && t.getSessionIndex() > x.getSessionIndex()
                            && (after == null || t.getSessionIndex() <= after.getSessionIndex())) ways.add(t.getId());
                if (!past.contract(id, before == null ? null : before.getId(), ways)) uncontracted.add(id);
                gone.add(id);
            }
        }
        Map<String, Map<String, CollectedWrites.Entry>> writes = new HashMap<>();
        Set<String> taintedNow = new HashSet<>();
        for (String id : ids) {
            Transaction t = held.get(id);
            if (t == null) continue;
            boolean taint = analysed != null && analysed.test(id);
            CollectedWrites.Entry e = new CollectedWrites.Entry(id, null, CollectedWrites.Fate.SET_ASIDE, round, incarnation);
            for (TxnOp o : t.getOps()) {
                // a write collected while t stayed (superseded, §7.9): its key is tainted too
                if (taint && o.getWrite() && held.isCollectedWrite(t, o)) {
                    held.tainted().taint(o.getKey(), round);
                    writes.computeIfAbsent(o.getKey(), k -> new HashMap<>());
                    taintedNow.add(o.getKey());
                }
                if (!o.getWrite() || held.writerOf(o.getKey(), o.getValue()) != t) continue;
                held.setAsideWrite(o.getKey(), o.getValue(), e, true);
                if (taint) {
                    held.tainted().taint(o.getKey(), round);
                    taintedNow.add(o.getKey());
                }
                writes.computeIfAbsent(o.getKey(), k -> new HashMap<>()).put(o.getValue(), e);
            }
            stale.setAside(id);
        }
        // the held writers of the keys tainted now that a collection may have analysed: reads of their writes cannot be judged
        for (Transaction t : taintedNow.isEmpty() ? List.<Transaction>of() : held.all()) {
            if (ids.contains(t.getId()) || !analysed.test(t.getId())) continue;
            for (TxnOp o : t.getOps()) {
                if (!o.getWrite() || !taintedNow.contains(o.getKey())) continue;
                held.tainted().addWriterBefore(o.getKey(), t.getId());
            }
        }
        held.setAside(ids);
        admitted.removeIf(t -> ids.contains(t.getId()));
        return writes.isEmpty() ? 0 : held.loseReadsOf(writes, stale);
    }

    /**
     * The tainted keys this collection clears (docs/DESIGN.md §7.10): a key {@code x} is cleared when a committed writer
     * {@code W} of it that arrived after the taint (not among the key's writers from before) is old in this collection, the
     * collected past reaches {@code W} (so does every write of {@code x} collected before), and every writer of {@code x}
     * from before that is still held is in the checked history and reaches {@code W}, or aborted. Every write of {@code x}
     * from before the violation then precedes {@code W}, which the next past stands for: a later read of one is judged
     * against {@code W}'s version as any stale read is, and a read of the initial value meets {@code W}.
     */
    static Set<String> clearable(HeldTransactions held, History h, List<Transaction> order, Map<String, Integer> index, GarbageCollection gc,
                                 boolean[] included) {
        TaintedKeys tainted = held.tainted();
        if (tainted.isEmpty()) return Set.of();
        Map<String, List<Integer>> since = new HashMap<>(); // per tainted key: its writers here that arrived after the taint, old now
        for (int i = 0; i < order.size(); i++) {
            if (!gc.old[i] || !included[i] || h.status(i) != History.COMMITTED) continue;
            Transaction t = order.get(i);
            for (TxnOp o : t.getOps()) {
                if (!o.getWrite()) continue;
                Set<String> before = tainted.writersBefore(o.getKey());
                if (before == null || before.contains(t.getId())) continue;
                List<Integer> l = since.computeIfAbsent(o.getKey(), k -> new ArrayList<>(2));
                if (l.isEmpty() || l.get(l.size() - 1) != i) l.add(i);
            }
        }
        Set<String> out = new HashSet<>();
        for (Map.Entry<String, List<Integer>> c : since.entrySet()) {
            Set<String> before = tainted.writersBefore(c.getKey());
            for (int w : c.getValue()) {
                if (gc.barrierVertex >= 0 && !gc.reaches(gc.barrierVertex, w)) continue;
                boolean all = true;
                for (String id : before) {
                    Transaction x = held.get(id);
                    if (x == null || x.getStatus() == TxnStatus.ABORTED) continue; // collected before (the past reaches w), or no version
                    Integer i = index.get(id);
                    if (i == null || !included[i] || !gc.reaches(i, w)) { all = false; break; }
                }
                if (all) { out.add(c.getKey()); break; }
            }
        }
        return out;
    }

    /**
     * Leaves {@code t}, which follows no fence of its session (EpochRules rule 5), out of the checked history as it arrives:
     * its writes are recorded as set aside (and added to {@code writes}), so that a reader of one resolves and that read goes
     * unchecked (a reader waiting already, once {@link HeldTransactions#loseReadsOf} is given them). Nothing taints:
     * no history a collection analysed had it.
     */
    static void leaveUnfenced(Transaction t, HeldTransactions held, long round, long incarnation, Map<String, Map<String, CollectedWrites.Entry>> writes) {
        CollectedWrites.Entry e = new CollectedWrites.Entry(t.getId(), null, CollectedWrites.Fate.SET_ASIDE, round, incarnation);
        for (TxnOp o : t.getOps())
            if (o.getWrite() && held.writerOf(o.getKey(), o.getValue()) == null) {
                held.setAsideWrite(o.getKey(), o.getValue(), e, false);
                writes.computeIfAbsent(o.getKey(), k -> new HashMap<>()).put(o.getValue(), e);
            }
    }
}
