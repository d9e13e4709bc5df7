package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.cobraverify.checker.Certificate;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * Reads of collected writes ("stale reads"), from the moment a reader arrives until they are judged or
 * dropped (docs/DESIGN.md §7.5). A read is judged only once its reader is part of the checked history:
 * <ul>
 *   <li><em>waiting</em>: found when the reader arrived ({@link #record}); the reader is not checked yet;</li>
 *   <li><em>this round</em>: the reader was admitted this round ({@link #takeAdmitted}); its history leaves the read
 *       out (the round's check cannot see a collected writer) and {@link #judge} decides it after the check;</li>
 *   <li><em>deferred</em>: the reader is retained but outside the checked history (of unknown outcome, read by
 *       nobody): judged in the round a read includes it, dropped when it is collected ({@link #forget}).</li>
 * </ul>
 * An aborted reader's read is nothing. An included reader's read of an aborted write is G1a, of an
 * intermediate one G1b, of a superseded one a stale read when the reader provably follows the collected past
 * (otherwise unknown), of an unknown-outcome one (set aside, A7) unknown.
 *
 * <p>Invariant: every entry's reader is held (waiting or retained) by the verifier; each read appears at most once.
 */
public final class StaleReads {
    /** The writer a stale read's entry names for a read of a key's initial state after the past wrote the key. */
    public static final String INITIAL = "the initial state";

    /**
     * A read by {@code reader} (its own operation {@code op}) of a write that {@code entry} says was collected;
     * {@code supersedingValue}: the value its superseding writer wrote of the key, when the verifier knows it (a sealed
     * version, docs/DESIGN.md §7.11), else null. The certificate shows it for a superseding writer that is gone.
     */
    public record StaleRead(Transaction reader, TxnOp op, CollectedWrites.Entry entry, String supersedingValue) {
        public StaleRead(Transaction reader, TxnOp op, CollectedWrites.Entry entry) { this(reader, op, entry, null); }
    }

    /**
     * How a level where an older version may be read judges a read of a version the sealed past superseded (read committed,
     * strong session read committed, read atomic; docs/DESIGN.md §7.11): it is a violation exactly when the reader saw the
     * superseding writer by the level's premise, that is, read one of its writes, before this read at read committed and
     * strong session read committed ({@code earlierReadsOnly}), anywhere in the transaction at read atomic. The version's
     * writer reaches its superseder in {@code so ∪ wr} (what {@link CollectedWrites.Fate#SUPERSEDED} means), so precedes it in
     * every commit order, and the premise then puts the superseder before it too. Otherwise whether the read is legal depends on
     * an order the sealed past does not keep. {@code writerOf}: the transaction whose final write a read observed, as the
     * verifier knows it (held, collected or the frontier), or null.
     *
     * @param level the level's name, for what the verdicts say
     */
    public record OldVersions(String level, boolean earlierReadsOnly, Function<TxnOp, String> writerOf) {
        /** The read of {@code s}'s reader that saw {@code s}'s superseding writer, making {@code s} a violation; null if none. */
        public TxnOp sawSuperseder(StaleRead s) {
            String by = s.entry().supersededBy();
            if (s.entry().fate() != CollectedWrites.Fate.SUPERSEDED || by == null) return null;
            for (TxnOp o : s.reader().getOps()) {
                if (o == s.op()) { if (earlierReadsOnly) return null; continue; }
                if (!o.getWrite() && o.getValue() != null && by.equals(writerOf.apply(o))) return o;
            }
            return null;
        }
    }

    /**
     * What judging a round's stale reads found: the violations (one certificate per reader, with the readers, in the same
     * order), why no round can be accepted from now on (a read that cannot be judged; null: none), and how many reads
     * of set-aside writes went unchecked ({@link CollectedWrites.Fate#SET_ASIDE}).
     */
    public record Judgement(List<Certificate> rejects, List<String> readers, String unknown, int unchecked) {
        static final Judgement NONE = new Judgement(List.of(), List.of(), null, 0);

        /** The first violation's certificate, or null. */
        public Certificate reject() { return rejects.isEmpty() ? null : rejects.get(0); }
    }

    private final Map<String, List<StaleRead>> waiting = new HashMap<>();
    private final Map<String, List<StaleRead>> deferred = new HashMap<>();
    private final Map<String, List<StaleRead>> thisRound = new HashMap<>();

    /** Records a read of a collected write by a reader that has just arrived. */
    public void record(Transaction reader, TxnOp op, CollectedWrites.Entry e) {
        waiting.computeIfAbsent(reader.getId(), x -> new ArrayList<>()).add(new StaleRead(reader, op, e));
    }

    /** Whether {@code o}, an operation of waiting {@code t}, was recorded as a read of a collected write. */
    public boolean isWaiting(Transaction t, TxnOp o) { return contains(waiting, t, o); }

    /** Whether {@code o}, an operation of {@code t} admitted this round, is a read of a collected write. */
    public boolean isThisRound(Transaction t, TxnOp o) { return contains(thisRound, t, o); }

    /** Whether {@code t}, admitted this round, read a collected write. */
    public boolean readCollected(String id) { return !thisRound.isEmpty() && thisRound.containsKey(id); }

    private static boolean contains(Map<String, List<StaleRead>> byReader, Transaction t, TxnOp o) {
        List<StaleRead> l = byReader.get(t.getId());
        if (l == null) return false;
        for (StaleRead s : l) if (s.op() == o) return true;
        return false;
    }

    /** The stale reads of the transactions admitted this round, which become this round's (the previous round's are forgotten). */
    public List<StaleRead> takeAdmitted(List<Transaction> admitted) {
        List<StaleRead> out = new ArrayList<>();
        thisRound.clear();
        for (Transaction t : admitted) {
            List<StaleRead> l = waiting.remove(t.getId());
            if (l != null) { out.addAll(l); thisRound.put(t.getId(), l); }
        }
        return out;
    }

    /**
     * Judges, after an accepted check, {@code stale} (this round's, from {@link #takeAdmitted}) and the deferred reads
     * whose reader the round included. {@code indexOf}: a transaction's index in the round's history (null if not
     * there); {@code included}: the checked history; {@code fromPast}: which transactions provably follow the
     * collected past (null: no past); {@code held}: a held transaction by id (for the certificate). Reads whose
     * reader is outside the checked history are deferred.
     */
    public Judgement judge(List<StaleRead> stale, Function<String, Integer> indexOf, boolean[] included, boolean[] fromPast,
                           Function<String, Transaction> held) {
        return judge(stale, indexOf, included, fromPast, held, null);
    }

    /**
     * As above, at a level where a read of a superseded version by a reader that follows the past may be legal
     * ({@code old}: read committed, strong session read committed and read atomic, docs/DESIGN.md §7.11): such a read is a
     * violation where the reader saw the superseding writer ({@link OldVersions#sawSuperseder}), and otherwise cannot be
     * judged (the sealed past keeps no order of what it collected): unknown instead of a violation. Null: it is a violation.
     */
    public Judgement judge(List<StaleRead> stale, Function<String, Integer> indexOf, boolean[] included, boolean[] fromPast,
                           Function<String, Transaction> held, OldVersions old) {
        String mayReadOld = old == null ? null : old.level();
        List<StaleRead> judged = new ArrayList<>();
        for (StaleRead s : stale) {
            if (s.reader().getStatus() == TxnStatus.ABORTED) continue;
            if (included[indexOf.apply(s.reader().getId())]) judged.add(s);
            else deferred.computeIfAbsent(s.reader().getId(), x -> new ArrayList<>()).add(s);
        }
        if (!deferred.isEmpty())
            for (Iterator<Map.Entry<String, List<StaleRead>>> it = deferred.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, List<StaleRead>> e = it.next();
                Integer i = indexOf.apply(e.getKey());
                if (i != null && included[i]) { judged.addAll(e.getValue()); it.remove(); }
            }
        List<Certificate> rejects = new ArrayList<>();
        List<String> readers = new ArrayList<>();
        java.util.Set<String> rejected = new java.util.HashSet<>();
        int unchecked = 0;
        for (StaleRead s : judged) {
            CollectedWrites.Fate fate = s.entry().fate();
            if (fate == CollectedWrites.Fate.SET_ASIDE) { unchecked++; continue; }
            if (fate == CollectedWrites.Fate.UNKNOWN_OUTCOME || fate == CollectedWrites.Fate.FRONTIER || fate == CollectedWrites.Fate.UNORDERED) continue; // below: unknown
            boolean follows = fromPast != null && fromPast[indexOf.apply(s.reader().getId())];
            TxnOp saw = old == null ? null : old.sawSuperseder(s); // (a violation whether the reader follows the past or not)
            if (((fate != CollectedWrites.Fate.SUPERSEDED || follows) && violates(fate, mayReadOld) || saw != null) && rejected.add(s.reader().getId())) {
                rejects.add(saw != null ? StaleReadCertificates.ofSuperseder(s, saw, old) : StaleReadCertificates.of(s, held));
                readers.add(s.reader().getId());
            }
        }
        String unknown = null;
        for (StaleRead s : judged) {
            if (unknown != null) break;
            if (s.entry().fate() != CollectedWrites.Fate.FRONTIER || rejected.contains(s.reader().getId())) continue;
            unknown = s.reader().getId() + " reads " + WireText.shown(s.op().getKey()) + " = " + WireText.shown(s.op().getValue()) + ", the latest write of the key"
                    + " when garbage collection recorded it as data (written by " + s.entry().writer() + "); what became of the key since cannot be"
                    + " read from the frontier log, so this cannot be judged";
        }
        for (StaleRead s : judged) {
            if (unknown != null) break;
            if (s.entry().fate() != CollectedWrites.Fate.UNORDERED || rejected.contains(s.reader().getId())) continue;
            // (a reader in the checked history when its round was judged is left unchecked before this, docs/DESIGN.md §7.11;
            // one that a read included later cannot be)
            unknown = s.reader().getId() + " reads " + WireText.shown(s.op().getKey()) + " = " + WireText.shown(s.op().getValue()) + ", written by " + s.entry().writer()
                    + ", a version garbage collection left unordered with the one it kept for the key (" + s.entry().supersededBy()
                    + "); whether it may be read cannot be judged";
        }
        for (StaleRead s : judged) {
            if (unknown != null) break;
            if (s.entry().fate() != CollectedWrites.Fate.UNKNOWN_OUTCOME || rejected.contains(s.reader().getId())) continue;
            unknown = s.reader().getId() + " reads " + WireText.shown(s.op().getKey()) + " = " + WireText.shown(s.op().getValue()) + ", written by "
                    + s.entry().writer() + ", whose outcome was unknown and which nobody had read when garbage collection set it aside;"
                    + " whether that write may be read cannot be judged";
        }
        for (StaleRead s : judged) {
            if (unknown != null) break;
            if (s.entry().fate() != CollectedWrites.Fate.SUPERSEDED || rejected.contains(s.reader().getId())) continue;
            String read = s.reader().getId() + " reads " + WireText.shown(s.op().getKey()) + (s.op().getValue() == null ? " (its initial state)" : " = " + WireText.shown(s.op().getValue()))
                    + ", written by " + s.entry().writer() + ", which garbage collection found superseded by " + s.entry().supersededBy();
            boolean follows = fromPast != null && fromPast[indexOf.apply(s.reader().getId())];
            unknown = follows && mayReadOld != null
                    ? read + "; at " + mayReadOld + " a transaction may read an older version than one another session wrote before it, and"
                            + " the sealed past keeps no order of the versions it collected, so this cannot be judged"
                    : read + "; but " + s.reader().getId() + " does not provably follow the collected past (its session ran no fence after it), so this cannot be judged";
        }
        if (rejects.isEmpty() && unknown == null && unchecked == 0) return Judgement.NONE;
        return new Judgement(rejects, readers, unknown, unchecked);
    }

    /**
     * Whether a read of a collected write with {@code fate}, by an included reader that follows the collected past, is a
     * violation: of an aborted write (G1a) or an intermediate one (G1b) always, of a superseded version unless the level may
     * read old versions ({@code mayReadOld}, its name; null: it may not), docs/DESIGN.md §7.5, §7.11. Every other fate is
     * not judged here (set aside, unknown outcome, the frontier, unordered).
     */
    public static boolean violates(CollectedWrites.Fate fate, String mayReadOld) {
        return fate == CollectedWrites.Fate.ABORTED || fate == CollectedWrites.Fate.INTERMEDIATE
                || (fate == CollectedWrites.Fate.SUPERSEDED && mayReadOld == null);
    }

    /**
     * The violations among {@code stale} (reads of collected writes by readers in the checked history) that the sealed past
     * decides at a level where older versions may be read ({@link OldVersions#sawSuperseder}), one certificate per reader (its
     * first such read), whether the reader follows the past or not: what a round reports before its check (docs/DESIGN.md
     * §7.11). {@code included}: whether a reader is in the checked history. Pure.
     */
    public static Judgement supersederViolations(List<StaleRead> stale, java.util.function.Predicate<String> included, OldVersions old) {
        List<Certificate> out = new ArrayList<>();
        List<String> readers = new ArrayList<>();
        for (StaleRead s : stale) {
            String id = s.reader().getId();
            if (s.reader().getStatus() == TxnStatus.ABORTED || readers.contains(id) || !included.test(id)) continue;
            TxnOp saw = old.sawSuperseder(s);
            if (saw == null) continue;
            out.add(StaleReadCertificates.ofSuperseder(s, saw, old));
            readers.add(id);
        }
        return out.isEmpty() ? Judgement.NONE : new Judgement(out, readers, null, 0);
    }

    /**
     * The violations ({@link #violates}) among the reads in {@code stale} by the {@code readers} about to be set aside for
     * another violation, one certificate per reader (its first violating read). Requires that every such reader is in the
     * checked history and provably follows the collected past (below serializability the round's check holds none that does
     * not, docs/DESIGN.md §7.11), so that each is a violation {@link #judge} would report once its round accepted.
     * Pure: nothing is recorded or forgotten.
     */
    public static List<Certificate> violationsOf(List<StaleRead> stale, java.util.Set<String> readers, String mayReadOld,
                                                 Function<String, Transaction> held) {
        List<Certificate> out = new ArrayList<>();
        java.util.Set<String> done = new java.util.HashSet<>();
        for (StaleRead s : stale) {
            String id = s.reader().getId();
            if (!readers.contains(id) || s.reader().getStatus() == TxnStatus.ABORTED || done.contains(id)) continue;
            if (!violates(s.entry().fate(), mayReadOld)) continue;
            out.add(StaleReadCertificates.of(s, held));
            done.add(id);
        }
        return out;
    }

    /**
     * Forgets every read of {@code readerId}, waiting, deferred or of this round: the reader was set aside after a
     * violation (docs/DESIGN.md §7.10) and is no longer held.
     */
    public void setAside(String readerId) {
        waiting.remove(readerId);
        deferred.remove(readerId);
        thisRound.remove(readerId);
    }

    /** Drops the deferred reads of a reader garbage collection deleted (it never joined the checked history). */
    public void forget(String readerId) { deferred.remove(readerId); }

    /** Forgets everything (the verifier dropped its state). */
    public void clear() {
        waiting.clear();
        deferred.clear();
        thisRound.clear();
    }

    /** Every read held, waiting ones then deferred ones (for checkpoints; this round's are judged already). */
    public List<StaleRead> all() {
        List<StaleRead> out = new ArrayList<>();
        for (List<StaleRead> l : waiting.values()) out.addAll(l);
        for (List<StaleRead> l : deferred.values()) out.addAll(l);
        return out;
    }

    /** Restores a read from a checkpoint: deferred when its reader is retained, waiting otherwise. */
    public void restore(StaleRead s, boolean readerRetained) {
        (readerRetained ? deferred : waiting).computeIfAbsent(s.reader().getId(), x -> new ArrayList<>()).add(s);
    }

    /** A copy sharing no mutable list with this one. */
    public StaleReads copy() {
        StaleReads c = new StaleReads();
        c.waiting.putAll(deepCopy(waiting));
        c.deferred.putAll(deepCopy(deferred));
        c.thisRound.putAll(deepCopy(thisRound));
        return c;
    }

    /** Replaces this state by a copy of {@code other}'s. */
    public void replaceWith(StaleReads other) {
        waiting.clear(); waiting.putAll(deepCopy(other.waiting));
        deferred.clear(); deferred.putAll(deepCopy(other.deferred));
        thisRound.clear(); thisRound.putAll(deepCopy(other.thisRound));
    }

    private static Map<String, List<StaleRead>> deepCopy(Map<String, List<StaleRead>> m) {
        Map<String, List<StaleRead>> c = new HashMap<>(m.size() * 2);
        for (Map.Entry<String, List<StaleRead>> e : m.entrySet()) c.put(e.getKey(), new ArrayList<>(e.getValue()));
        return c;
    }
}
