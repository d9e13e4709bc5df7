package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Barrier;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.GarbageCollection;
import org.cobraverify.checker.IncrementalCheck;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.schemas.CarriedFact;
import org.cobraverify.schemas.FrontierWrite;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.StaleReadRef;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.VerifierCore;

/**
 * Verification in rounds with garbage collection (paper §4), without I/O: the state one verifier carries
 * from round to round. Transactions are {@link #add}ed; {@link #endRound} checks the retained history
 * plus what arrived, then collects what no later transaction can need.
 *
 * <p>Invariants. The checked history is read-from closed: a transaction whose read's writer has not
 * arrived waits (pending); one pending for {@code pendingRoundsLimit} rounds makes the verdict unknown.
 * Retained transactions, plus the collected past as one {@link Barrier} vertex, stand for every
 * transaction checked so far: a cycle of the whole history is a cycle of this graph (see
 * {@link GarbageCollection} for why). A read of a collected write is a stale read: a reject, with the
 * reader, the collected writer and the frontier write that superseded it, when the reader provably
 * follows the collected past; an unknown otherwise. Memory: the retained transactions (at most
 * {@code maxRetained}, waiting ones included; past that the verifier drops its state and says unknown from then on, never
 * running out of heap) and the sessions; collected writes live in {@link CollectedWrites} (on disk).
 * The state is a function of the transactions and round ends fed in: replaying them rebuilds it.
 *
 * <p>The round's steps, the assumptions A1–A8 and how each is checked or enforced: docs/DESIGN.md §7; checkpoints §8; what bounds each field §9.1.
 */
public final class IncrementalVerifier implements AutoCloseable {
    /**
     * @param check              the checker's options (budget, solver, strict mode)
     * @param pendingRoundsLimit rounds a transaction may wait for a write before the verdict is unknown
     * @param maxRetained        retained and waiting transactions past which the state is dropped (verdicts turn unknown)
     * @param gc                 collect garbage (false: keep everything, as a one-shot check would)
     */
    public record Settings(CheckOptions check, int pendingRoundsLimit, int maxRetained, boolean gc, GarbageCollection.Rules gcRules) {
        /** A minute per check, 20 rounds of waiting, 250,000 retained, sound garbage collection. */
        public static Settings defaults() { return new Settings(CheckOptions.defaults().withTimeout(60), 20, 250_000, true, GarbageCollection.Rules.SOUND); }

        public Settings withCheck(CheckOptions c) { return new Settings(c, pendingRoundsLimit, maxRetained, gc, gcRules); }

        public Settings withPendingRoundsLimit(int rounds) { return new Settings(check, rounds, maxRetained, gc, gcRules); }

        /** Tests only: {@link GarbageCollection.Rules}' careless rules, to show what the sound ones prevent. */
        public Settings withGcRules(GarbageCollection.Rules rules) { return new Settings(check, pendingRoundsLimit, maxRetained, gc, rules); }
    }

    /**
     * What one round's check found. {@code verdict} is the checker's own answer on the round's history (null if none ran).
     * {@code batchCounts}: when the round closed a batch of rounds decided with one check ({@link #add(Transaction, long)}),
     * for each round of the batch in order, the checked-transaction total and the number waiting that deciding the rounds
     * one by one would report (before any collection between them); null for a single round.
     */
    public record RoundResult(long round, Verdict.Outcome outcome, String reason, Certificate certificate, Verdict verdict, CheckStats stats,
                              int roundTxns, long checkedTxns, int pendingTxns, int historySize, int retained, int collectedNow,
                              long collectedTotal, long buildNanos, long checkNanos, long gcNanos, String gcNote, int superseded, int old,
                              int settled, long[][] batchCounts) {
        public double millis() { return (buildNanos + checkNanos + gcNanos) / 1e6; }
    }

    private final Settings settings;
    private final CollectedWrites collected;
    private final WriterIndex writerOf = new WriterIndex(); // (key, value) -> writer (retained or pending)
    private final Map<String, Transaction> byId = new HashMap<>();      // retained and pending
    private final Set<String> retainedIds = new HashSet<>();
    /**
     * Retained transactions with a read whose writer is not in {@link #writerOf}: collected after the reader was
     * checked, or a stale read judged when it was. Every other retained transaction's reads all have their writer
     * there, so building a round's history looks none of them up.
     */
    private final Set<String> partlyRead = new HashSet<>();
    private final List<Transaction> retained = new ArrayList<>();
    private final List<Transaction> pending = new ArrayList<>();
    private final Map<String, Long> pendingSince = new HashMap<>();
    private final List<Transaction> incoming = new ArrayList<>();
    private final Set<String> incomingIds = new HashSet<>();
    // the barrier: the collected past
    private Set<String> barrierBefore = new HashSet<>(), barrierAfter = new HashSet<>();
    private long oldMaxEnd = History.NO_TIME, oldMaxStart = History.NO_TIME, barrierEpoch = -1;
    private boolean hasBarrier;
    private long rounds, checkedTotal, collectedTotal, duplicates, settledTotal;
    private int lastSuperseded, lastOld, lastSettled;
    /**
     * Transactions of unknown outcome retained or waiting, with the round they arrived in. One that nobody has
     * read may still turn out committed when a later transaction reads its write, so, like a waiting
     * transaction, it keeps the epochs from its session's fence before it open (and pins what it read) until
     * it is old and has waited {@code pendingRoundsLimit} rounds; then, still unread, it is set aside and a
     * later read of its write is unknown.
     */
    private final Map<String, Long> unknownSince = new HashMap<>();
    private long collections;
    private String rejectedIn;   // the first reject's round and summary: every later history contains it
    private String droppedState; // why the state was dropped (verdicts are unknown from then on)
    /**
     * Why no later round can be accepted: a round found a read it could not judge, or a transaction it could not
     * check against the collected past, and every later history contains it. Rejects are still found and reported.
     */
    private String lostProof;
    /**
     * Retained transactions outside the last checked history (of unknown outcome, read by nobody yet). A read that
     * includes one later makes it part of the checked history then, and it is checked against the collected past
     * then, as a newly admitted transaction is.
     */
    private final Set<String> unincluded = new HashSet<>();
    /**
     * Reads of collected writes by retained transactions outside the checked history (unknown outcome, unread):
     * nothing yet, judged when a read includes their reader, dropped when the reader is collected (docs/DESIGN.md §7.5).
     */
    private final Map<String, List<StaleRead>> staleDeferred = new HashMap<>();

    public IncrementalVerifier(Settings settings, CollectedWrites collected) {
        this.settings = settings;
        this.collected = collected;
    }

    public Settings settings() { return settings; }

    /** Adds an arrived transaction to the current round; an id already retained or waiting is ignored (a duplicate). */
    public boolean add(Transaction t, long arrivedInRound) {
        if (!add(t)) return false;
        arrivedIn.put(t.getId(), arrivedInRound);
        return true;
    }

    /**
     * For transactions of a batch of rounds decided with one check ({@link #add(Transaction, long)}): the
     * round each arrived in, so that how long one waits for a write counts from its own round, as it would
     * if the rounds were decided one by one. Cleared when the round ends.
     */
    private final Map<String, Long> arrivedIn = new HashMap<>();

    /** The number the next {@link #endRound} will have. */
    public long nextRound() { return rounds; }

    public boolean add(Transaction t) {
        if (byId.containsKey(t.getId()) || !incomingIds.add(t.getId())) {
            duplicates++;
            return false;
        }
        incoming.add(t);
        return true;
    }

    public long duplicates() { return duplicates; }

    public int retainedCount() { return retained.size(); }

    /** The sessions of the transactions kept (retained or waiting). */
    public Set<String> sessionsHeld() {
        Set<String> s = new HashSet<>();
        for (Transaction t : byId.values()) s.add(t.getSession());
        return s;
    }

    public int pendingCount() { return pending.size(); }

    public long collectedCount() { return collectedTotal; }

    /** Open constraints settled for good by garbage collection so far ({@link org.cobraverify.checker.GarbageCollection#settled}). */
    public long settledCount() { return settledTotal; }

    public long checkedCount() { return checkedTotal; }

    /** The first round of the open batch: the number {@link #nextRound} had when the last round ended. */
    private long batchStart;

    /** Counts {@code k} more rounds as passed (a batch of rounds decided with one check counts as all of them). */
    public void skipRounds(int k) { rounds += k; }

    /**
     * Ends a round: admits what can be checked, checks, and collects garbage. {@code oldEpochMax}: the
     * largest epoch GC may treat as closed (the paper's {@code epoch_agree − 2}; negative: none).
     * {@code ended}: sessions that will send nothing more (they need no entry fence).
     */
    public RoundResult endRound(long oldEpochMax, Predicate<String> ended) { return endRound(oldEpochMax, ended, false); }

    /** {@link #endedSince}'s mark for a session that has delivered everything: long over from the start. */
    private static final long DRAINED = Long.MIN_VALUE / 4;

    /**
     * Sessions their clients closed whose every transaction has now been added (the topology's
     * {@code closedNow}): from the next {@link #endRound} on, GC waits for nothing more from them, as for a
     * file's ended sessions. Requires: each is also among the {@code ended} sessions of that round.
     */
    public void sessionsClosed(Collection<String> sessions) {
        for (String s : sessions) endedSince.put(s, DRAINED);
    }

    /**
     * Whether {@code ended} is exact: the session has delivered everything (a file). Otherwise (a pipeline,
     * where a session's last transactions may reach the rounds after its end was seen) an ended session keeps
     * its entry fence for {@code pendingRoundsLimit} rounds after its end is first seen.
     */
    public void endedIsExact(boolean exact) { this.endedExact = exact; }

    private boolean endedExact;
    /** Sessions seen ended, with the round first seen so (only those still in the retained history). */
    private final Map<String, Long> endedSince = new HashMap<>();

    /**
     * As above; with {@code last}, nothing more will arrive: transactions still waiting are checked as they
     * are (a read of a value nobody wrote is then a violation, as in a one-shot check).
     */
    public RoundResult endRound(long oldEpochMax, Predicate<String> ended, boolean last) {
        long roundNo = rounds++, firstRound = Math.min(batchStart, roundNo);
        batchStart = rounds;
        int batchRounds = (int) (roundNo - firstRound + 1);
        batchCounts = null; // set below once admission has run
        List<Transaction> thisRound = new ArrayList<>(incoming);
        incoming.clear();
        incomingIds.clear();
        if (rejectedIn != null || droppedState != null) { arrivedIn.clear(); return afterTerminal(roundNo, thisRound); }
        long t0 = System.nanoTime();
        // 1. new writes become known (reads of collected writes are found when the new transactions are first admitted).
        // A transaction that writes a (key, value) a held transaction wrote, or writes one twice, breaks unique writes
        // (assumption A1): its reads cannot be tied to one writer, and the round's history could not even be built. It
        // is left out, and no later round can be accepted (the history is not the one checked); rejects still count.
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            String dup = recordWrites(t);
            if (dup != null) {
                it.remove();
                if (lostProof == null) lostProof = "round " + roundNo + ": " + dup + "; " + t.getId() + " was left out of the checked history";
                continue;
            }
            byId.put(t.getId(), t);
        }
        // a waiting transaction's level: the round of the batch from which on it is there (those from before: the first)
        int waitedBefore = pending.size();
        int[] arrival = batchRounds > 1 ? new int[waitedBefore + thisRound.size()] : null;
        for (Transaction t : thisRound) {
            long arrived = Math.min(roundNo, arrivedIn.getOrDefault(t.getId(), roundNo));
            if (arrival != null) arrival[pending.size()] = (int) Math.max(0, arrived - firstRound);
            pending.add(t);
            pendingSince.put(t.getId(), arrived);
            if (t.getStatus() == TxnStatus.UNKNOWN) unknownSince.put(t.getId(), arrived);
        }
        arrivedIn.clear();
        long checkedBefore = checkedTotal;
        // 2. admit every waiting transaction whose reads all resolve (a stale read resolves to nothing: it is judged below)
        Admission admission = admit(arrival, waitedBefore);
        List<Transaction> admitted = admission.admitted();
        forced.clear();
        if (last && !pending.isEmpty()) {
            for (Transaction t : pending) { forced.add(t.getId()); pendingSince.remove(t.getId()); }
            admitted.addAll(pending);
            pending.clear();
        }
        batchCounts = arrival == null ? null : batchCounts(arrival, admission.level(), batchRounds, checkedBefore);
        List<StaleRead> stale = new ArrayList<>();
        staleThisRound.clear();
        for (Transaction t : admitted) {
            List<StaleRead> l = staleByReader.remove(t.getId());
            if (l != null) { stale.addAll(l); staleThisRound.put(t.getId(), l); }
        }
        checkedTotal += admitted.size();
        String pendingNote = null;
        boolean pendingTooLong = false;
        if (!pending.isEmpty()) {
            Transaction oldest = pending.get(0);
            long waited = rounds - pendingSince.get(oldest.getId());
            pendingTooLong = waited >= settings.pendingRoundsLimit();
            pendingNote = pendingTooLong
                    ? pending.size() + " transactions read writes that have not arrived after " + waited + " rounds (oldest: " + oldest.getId()
                      + " reads " + firstMissingRead(oldest) + (collected.horizonNote() == null ? "" : "; " + collected.horizonNote())
                      + "); the rest is serializable"
                    : pending.size() + " wait for writes not yet seen (oldest: " + oldest.getId() + " reads " + firstMissingRead(oldest) + ")";
        }
        // 3. the round's history: retained and admitted, in session order
        List<Transaction> all = new ArrayList<>(retained.size() + admitted.size());
        all.addAll(retained);
        all.addAll(admitted);
        List<Transaction> order = SessionOrder.of(all);
        Map<String, Integer> index = new HashMap<>(order.size() * 2);
        HistoryBuilder hb = new HistoryBuilder();
        History h = build(hb, order, index);
        Barrier barrier = hasBarrier ? barrier(hb, index) : null;
        long t1 = System.nanoTime();
        // 4. check, and garbage-collect on accept
        GcPlan plan = settings.gc() && oldEpochMax >= 0 ? plan(h, order, index, oldEpochMax, ended) : null;
        IncrementalCheck.Result r;
        try {
            r = IncrementalCheck.run(h, settings.check(), barrier, plan == null || plan.skip != null ? null : plan.old,
                    plan == null ? null : plan.entries, plan == null ? null : plan.pinned, settings.gcRules());
        } catch (RuntimeException e) {
            retainAll(admitted);
            long now = System.nanoTime();
            return result(roundNo, Verdict.Outcome.UNKNOWN, "internal error in the checker (please report it with this round's history, cobra export): " + e,
                    null, null, thisRound, h.size(), t0, t1, now, now, 0, null);
        } catch (OutOfMemoryError e) {
            // the round's graph did not fit: drop the state (which frees it) and go on, saying unknown from now on
            h = null;
            droppedState = "the heap ran out while checking round " + roundNo + " (" + (retained.size() + admitted.size())
                    + " transactions retained and new)";
            dropState();
            long now = System.nanoTime();
            return result(roundNo, Verdict.Outcome.UNKNOWN, droppedState + "; the state was dropped so that the verifier goes on",
                    null, null, thisRound, 0, t0, t1, now, now, 0, null);
        }
        long t2 = System.nanoTime();
        Verdict v = r.verdict();
        retainAll(admitted);
        if (v.outcome() == Verdict.Outcome.REJECT) {
            String summary = v.certificate().summary();
            rejectedIn = "round " + roundNo + ": " + summary;
            dropState();
            return result(roundNo, Verdict.Outcome.REJECT, summary, v.certificate(), v, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        if (v.outcome() == Verdict.Outcome.UNKNOWN) {
            return result(roundNo, Verdict.Outcome.UNKNOWN, v.unknownReason(), null, v, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        // accepted: reads of collected writes are judged now, for readers in the checked history (docs/DESIGN.md §7.5):
        // an aborted reader's read is nothing; an unknown reader nobody has read waits until a read includes it
        boolean[] inc = r.included();
        List<StaleRead> judged = new ArrayList<>();
        for (StaleRead s : stale) {
            if (s.reader.getStatus() == TxnStatus.ABORTED) continue;
            if (inc[index.get(s.reader.getId())]) judged.add(s);
            else staleDeferred.computeIfAbsent(s.reader.getId(), x -> new ArrayList<>()).add(s);
        }
        if (!staleDeferred.isEmpty())
            for (Iterator<Map.Entry<String, List<StaleRead>>> it = staleDeferred.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, List<StaleRead>> e = it.next();
                Integer i = index.get(e.getKey());
                if (i != null && inc[i]) { judged.addAll(e.getValue()); it.remove(); }
            }
        for (StaleRead s : judged) {
            int reader = index.get(s.reader.getId());
            boolean follows = r.fromBarrier() != null && r.fromBarrier()[reader];
            if (s.entry.fate() == CollectedWrites.Fate.UNKNOWN_OUTCOME) continue; // judged below: unknown
            if (s.entry.fate() != CollectedWrites.Fate.SUPERSEDED || follows) {
                Certificate c = staleCertificate(s, h, index);
                rejectedIn = "round " + roundNo + ": " + c.summary();
                dropState();
                return result(roundNo, Verdict.Outcome.REJECT, c.summary(), c, v, thisRound, h.size(), t0, t1, t2, t2, 0, null);
            }
        }
        for (StaleRead s : judged) {
            if (s.entry.fate() != CollectedWrites.Fate.UNKNOWN_OUTCOME) continue;
            lostProof = "round " + roundNo + ": " + s.reader.getId() + " reads " + s.op.getKey() + " = " + s.op.getValue() + ", written by "
                    + s.entry.writer() + ", whose outcome was unknown and which nobody had read when garbage collection set it aside;"
                    + " whether that write may be read cannot be judged";
            noteUnincluded(order, inc);
            return result(roundNo, Verdict.Outcome.UNKNOWN, lostProof, null, v, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        if (!judged.isEmpty()) {
            StaleRead s = judged.get(0);
            lostProof = "round " + roundNo + ": " + s.reader.getId() + " reads " + s.op.getKey() + " = " + s.op.getValue() + ", written by "
                    + s.entry.writer() + ", which garbage collection found superseded by " + s.entry.supersededBy() + "; but " + s.reader.getId()
                    + " does not provably follow the collected past (its session ran no fence after it), so this cannot be judged";
            noteUnincluded(order, inc);
            return result(roundNo, Verdict.Outcome.UNKNOWN, lostProof, null, v, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        String uncovered = uncovered(admitted, r.fromBarrier(), inc, index);
        if (uncovered != null) lostProof = "round " + roundNo + ": " + uncovered;
        noteUnincluded(order, inc);
        String gcNote = plan == null ? null : plan.skip != null ? plan.skip : r.gc() != null ? r.gc().skipped : null;
        int collectedNow = 0;
        lastSuperseded = r.gc() == null ? 0 : r.gc().superseded;
        lastSettled = 0;
        lastOld = 0;
        if (plan != null && plan.old != null) for (boolean o : plan.old) if (o) lastOld++;
        if (plan != null && plan.skip == null && r.gc() != null && r.gc().skipped == null) {
            collectedNow = collect(h, order, plan, r.gc(), plan.oldEpochMax, inc);
            lastSettled = r.gc().settled;
            settledTotal += lastSettled;
        }
        long t3 = System.nanoTime();
        Verdict.Outcome outcome = Verdict.Outcome.ACCEPT;
        String reason = "serializable" + (settings.check().strict() ? " (strictly)" : "") + ": " + checkedTotal + " transactions";
        if (pendingNote != null) {
            if (pendingTooLong) { outcome = Verdict.Outcome.UNKNOWN; reason = pendingNote; } else reason += "; " + pendingNote;
        }
        // why the retained set did not shrink, for whoever watches it grow (the retained-set alert)
        if (gcNote != null && collectedNow == 0 && !retained.isEmpty()) reason += "; nothing collected: " + gcNote;
        if (uncovered != null) { outcome = Verdict.Outcome.UNKNOWN; reason = uncovered; }
        else if (lostProof != null && outcome == Verdict.Outcome.ACCEPT) {
            outcome = Verdict.Outcome.UNKNOWN;
            reason = "serializable as far as it can be checked, but no round can be accepted since " + lostProof;
        }
        if (retained.size() + pending.size() > settings.maxRetained()) {
            droppedState = "the verifier kept " + retained.size() + " transactions after garbage collection in round " + roundNo
                    + (pending.isEmpty() ? "" : ", and " + pending.size() + " waiting for writes,")
                    + " more than its bound of " + settings.maxRetained() + " (constraints no read resolves keep them alive)";
            dropState();
            outcome = Verdict.Outcome.UNKNOWN;
            reason = droppedState + "; the state was dropped so that the verifier goes on within its memory";
        }
        return result(roundNo, outcome, reason, null, v, thisRound, h.size(), t0, t1, t2, t3, collectedNow, gcNote);
    }

    private RoundResult afterTerminal(long roundNo, List<Transaction> thisRound) {
        long now = System.nanoTime();
        if (rejectedIn != null)
            return result(roundNo, Verdict.Outcome.REJECT, "still contains the violation found in " + rejectedIn, null, null, thisRound, 0, now, now, now, now, 0, null);
        return result(roundNo, Verdict.Outcome.UNKNOWN, droppedState + " (round " + roundNo + " was not checked)", null, null, thisRound, 0, now, now, now, now, 0, null);
    }

    private RoundResult result(long roundNo, Verdict.Outcome o, String reason, Certificate cert, Verdict v, List<Transaction> thisRound, int hSize,
                               long t0, long t1, long t2, long t3, int collectedNow, String gcNote) {
        return new RoundResult(roundNo, o, reason, cert, v, v == null ? null : v.stats(), thisRound.size(), checkedTotal, pending.size(), hSize,
                retained.size(), collectedNow, collectedTotal, t1 - t0, t2 - t1, t3 - t2, gcNote, lastSuperseded, lastOld, lastSettled, batchCounts);
    }

    /** The last round's {@link RoundResult#batchCounts} (set by each {@link #endRound}). */
    private long[][] batchCounts;

    /**
     * Per round {@code i} of a batch: the checked-transaction total and the number waiting after it, had the rounds been
     * decided one by one. A waiting transaction is checked by round {@code i} when its level is at most {@code i}: its level
     * is the later of its arrival's and its writers' (a transaction admitted with the batch waits only on writers of
     * the batch, {@link #admissible}); transactions still waiting, or checked as they are on the last round, count as
     * arrived but not checked.
     */
    private static long[][] batchCounts(int[] arrival, int[] admittedLevel, int batchRounds, long checkedBefore) {
        long[] arrivedBy = new long[batchRounds], checkedBy = new long[batchRounds];
        for (int a : arrival) arrivedBy[a]++;
        for (int l : admittedLevel) checkedBy[l]++;
        long[][] out = new long[batchRounds][];
        long arrived = 0, checked = 0;
        for (int i = 0; i < batchRounds; i++) {
            arrived += arrivedBy[i];
            checked += checkedBy[i];
            out[i] = new long[] {checkedBefore + checked, arrived - checked};
        }
        return out;
    }

    private void retainAll(List<Transaction> admitted) {
        retained.addAll(admitted);
        for (Transaction t : admitted) {
            retainedIds.add(t.getId());
            if (forced.contains(t.getId()) || staleThisRound.containsKey(t.getId())) partlyRead.add(t.getId());
        }
    }

    /** After a reject (every later history contains it) or past the memory bound: nothing more is kept. */
    private void dropState() {
        writerOf.clear();
        byId.clear();
        retainedIds.clear();
        partlyRead.clear();
        retained.clear();
        pending.clear();
        pendingSince.clear();
        staleByReader.clear();
        staleDeferred.clear();
        unincluded.clear();
        unknownSince.clear();
        barrierBefore = new HashSet<>();
        barrierAfter = new HashSet<>();
        carried = new ArrayList<>();
        hasBarrier = false;
    }

    private record StaleRead(Transaction reader, TxnOp op, CollectedWrites.Entry entry) {}

    /** Transactions checked in the last round with reads that never resolved. */
    private final Set<String> forced = new HashSet<>();

    private final Map<String, List<StaleRead>> staleThisRound = new HashMap<>();

    private boolean isStaleJudged(Transaction t, TxnOp o) { return isStaleIn(staleThisRound, t, o); }

    /** Reads of collected writes, by reader, until the reader is checked. */
    private final Map<String, List<StaleRead>> staleByReader = new HashMap<>();

    private boolean isStale(Transaction t, TxnOp o) { return isStaleIn(staleByReader, t, o); }

    private static boolean isStaleIn(Map<String, List<StaleRead>> byReader, Transaction t, TxnOp o) {
        List<StaleRead> l = byReader.get(t.getId());
        if (l == null) return false;
        for (StaleRead s : l) if (s.op == o) return true;
        return false;
    }

    /** Transactions admitted from the waiting ones, in admission order, and the batch level of each ({@link #batchCounts}). */
    private record Admission(List<Transaction> admitted, int[] level) {}

    /**
     * Moves waiting transactions whose reads all resolve to checked ones into the checked set, to a fixed point,
     * in time linear in their reads: each waiting transaction counts the waiting writers it reads from, and is
     * admitted when the last of them is (a worklist; a pass-until-nothing-changes loop was quadratic, and a
     * verifier far behind, deciding 200k transactions at once, spent minutes there). {@code arrival}: each waiting
     * transaction's level in a batch of rounds (null: one round); those from {@code firstNew} on arrived this round.
     */
    private Admission admit(int[] arrival, int firstNew) {
        if (pending.isEmpty()) return new Admission(new ArrayList<>(), new int[0]);
        Admission a = admissible(pending, arrival, firstNew);
        if (a.admitted().isEmpty()) return a;
        Set<Transaction> in = Collections.newSetFromMap(new IdentityHashMap<>(a.admitted().size() * 2));
        for (Transaction t : a.admitted()) { in.add(t); pendingSince.remove(t.getId()); }
        pending.removeIf(in::contains);
        return a;
    }

    /**
     * Of {@code candidates} (the waiting transactions), the largest set whose reads all resolve: to a retained writer,
     * itself, or an admitted candidate; a read with no writer resolves only if it is stale (judged after the check).
     * A worklist first: each candidate counts the reads it makes of candidates' writes and is admitted when the last
     * of those writers is; its level is the largest of its arrival's and its writers' levels. Then the candidates
     * left that depend on no unresolved read are admitted together (they read from one another in a cycle, or from
     * such a cycle), at the largest level among them. Writers are matched by identity: the writer index holds the
     * very objects waiting.
     *
     * <p>Candidates from {@code firstNew} on arrived this round: each of their reads with no writer in the index is
     * looked up among the collected writes (a stale read, recorded in {@link #staleByReader}), all of them, even
     * after one that leaves the candidate waiting. (Done here, not in a pass of its own: one writer lookup per read.)
     */
    private Admission admissible(List<Transaction> candidates, int[] arrival, int firstNew) {
        int n = candidates.size();
        IdentityHashMap<Transaction, Integer> position = new IdentityHashMap<>(n * 2);
        for (int i = 0; i < n; i++) position.put(candidates.get(i), i);
        int[] blockers = new int[n], level = arrival == null ? new int[n] : arrival.clone();
        boolean[] unresolved = new boolean[n];
        IntVec from = new IntVec(), to = new IntVec();
        for (int i = 0; i < n; i++) {
            Transaction t = candidates.get(i);
            boolean fresh = i >= firstNew;
            for (TxnOp o : t.getOps()) {
                if (o.getWrite() || o.getValue() == null) continue;
                Transaction w = writerOf.get(o.getKey(), o.getValue());
                if (w == null) {
                    if (fresh) {
                        CollectedWrites.Entry e = collectedEntry(o.getKey(), o.getValue());
                        if (e != null) { staleByReader.computeIfAbsent(t.getId(), x -> new ArrayList<>()).add(new StaleRead(t, o, e)); continue; }
                    } else if (isStale(t, o)) continue;
                    unresolved[i] = true;
                    if (fresh) continue; // its other reads may be stale reads too
                    break;
                }
                if (unresolved[i]) continue;
                if (w == t || retainedIds.contains(w.getId())) continue;
                Integer p = position.get(w);
                if (p == null) { unresolved[i] = true; if (fresh) continue; break; }
                from.add(p);
                to.add(i);
                blockers[i]++;
            }
        }
        // the readers of each candidate's writes (compressed rows)
        int[] rowStart = new int[n + 1], readers = new int[from.size()];
        for (int e = 0; e < from.size(); e++) rowStart[from.get(e) + 1]++;
        for (int i = 0; i < n; i++) rowStart[i + 1] += rowStart[i];
        int[] fill = Arrays.copyOf(rowStart, n);
        for (int e = 0; e < from.size(); e++) readers[fill[from.get(e)]++] = to.get(e);
        int[] queue = new int[n];
        int head = 0, tail = 0;
        for (int i = 0; i < n; i++) if (!unresolved[i] && blockers[i] == 0) queue[tail++] = i;
        while (head < tail) {
            int w = queue[head++];
            for (int e = rowStart[w]; e < rowStart[w + 1]; e++) {
                int r = readers[e];
                if (unresolved[r]) continue;
                level[r] = Math.max(level[r], level[w]);
                if (--blockers[r] == 0) queue[tail++] = r;
            }
        }
        // candidates that wait only on one another (a cycle of reads, and whatever reads only from it): the largest set of
        // the rest whose reads all resolve within it, the retained and the admitted is read-from closed too. Admitting
        // it lets the check see the cycle (G1c) instead of waiting for writes that have all arrived.
        int queued = tail;
        if (queued < n) {
            boolean[] settled = new boolean[n], out = new boolean[n];
            for (int j = 0; j < queued; j++) settled[queue[j]] = true;
            int[] stack = new int[n];
            int sp = 0;
            for (int i = 0; i < n; i++) if (!settled[i] && unresolved[i]) { out[i] = true; stack[sp++] = i; }
            while (sp > 0) {
                int w = stack[--sp];
                for (int e = rowStart[w]; e < rowStart[w + 1]; e++) {
                    int r = readers[e];
                    if (!settled[r] && !out[r]) { out[r] = true; stack[sp++] = r; }
                }
            }
            int top = 0;
            for (int i = 0; i < n; i++) if (!settled[i] && !out[i]) top = Math.max(top, level[i]);
            for (int i = 0; i < n; i++) if (!settled[i] && !out[i]) { level[i] = top; queue[tail++] = i; }
        }
        List<Transaction> admitted = new ArrayList<>(tail);
        int[] levels = new int[tail];
        for (int j = 0; j < tail; j++) { admitted.add(candidates.get(queue[j])); levels[j] = level[queue[j]]; }
        return new Admission(admitted, levels);
    }

    private String firstMissingRead(Transaction t) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writerOf.get(o.getKey(), o.getValue());
            if (w == null) return o.getKey() + " = " + o.getValue() + ", which nobody has written yet";
            if (w != t && !retainedIds.contains(w.getId())) return o.getKey() + " = " + o.getValue() + " from " + w.getId() + ", itself waiting";
        }
        return "?";
    }

    /** The round's history; reads of collected writes are left out (carried facts and the stale-read check stand for them). */
    private History build(HistoryBuilder b, List<Transaction> order, Map<String, Integer> index) {
        for (Transaction t : order) {
            index.put(t.getId(), b.size());
            byte st = t.getStatus() == TxnStatus.COMMITTED ? History.COMMITTED : t.getStatus() == TxnStatus.ABORTED ? History.ABORTED : History.UNKNOWN;
            b.begin(t.getId(), b.session(t.getSession()), st, t.getStart() == 0 ? History.NO_TIME : t.getStart(),
                    t.getEnd() == 0 ? History.NO_TIME : t.getEnd(), -1);
            // a retained transaction not partly read, or one admitted now without a stale read: every read's writer is here
            boolean whole = !partlyRead.contains(t.getId()) && (forced.isEmpty() || !forced.contains(t.getId()))
                    && (staleThisRound.isEmpty() || !staleThisRound.containsKey(t.getId()));
            for (TxnOp o : t.getOps()) {
                int k = b.key(o.getKey());
                if (o.getWrite()) b.write(k, b.value(o.getValue()));
                else if (o.getValue() == null) b.read(k, History.NIL);
                else if (whole) b.read(k, b.value(o.getValue()));
                // a read whose writer is gone: collected after this reader was checked (its edges are carried), or a
                // read of a collected write judged on its own (admitted transactions have no other unresolved reads)
                else if (!writerOf.contains(o.getKey(), o.getValue()) && (!forced.contains(t.getId()) || isStaleJudged(t, o))) continue;
                else b.read(k, b.value(o.getValue()));
            }
            b.end();
        }
        return b.build();
    }

    private Barrier barrier(HistoryBuilder hb, Map<String, Integer> index) {
        List<Integer> before = new ArrayList<>(), after = new ArrayList<>();
        IntVec cs = new IntVec(), cd = new IntVec(),
                ck = new IntVec(), ckey = new IntVec();
        for (CarriedEdge e : carried) {
            Integer u = index.get(e.src()), v = index.get(e.dst());
            if (u == null || v == null) continue;
            cs.add(u); cd.add(v); ck.add(e.kind()); ckey.add(e.key() == null ? -1 : hb.key(e.key()));
        }
        for (String id : barrierBefore) { Integer i = index.get(id); if (i != null) before.add(i); }
        for (String id : barrierAfter) { Integer i = index.get(id); if (i != null) after.add(i); }
        String desc = "every transaction of epoch " + barrierEpoch + " or earlier (collected or not) precedes the latest fence of each live session"
                + " when they were collected (" + String.join(", ", barrierAfter) + "): the fences chain through their read-modify-writes";
        return new Barrier(before.stream().mapToInt(Integer::intValue).toArray(), after.stream().mapToInt(Integer::intValue).toArray(),
                oldMaxEnd, oldMaxStart, desc, cs.toArray(), cd.toArray(), ck.toArray(), ckey.toArray());
    }

    /** A fact carried from an earlier round: {@code src -kind(key)-> dst}. */
    private record CarriedEdge(String src, String dst, int kind, String key) {}

    private List<CarriedEdge> carried = new ArrayList<>();

    /** What GC is asked to do this round: the old transactions, the next barrier's entry fences, the pinned ones; or why it cannot run. */
    private static final class GcPlan {
        boolean[] old, pinned;
        int[] entries;
        long oldEpochMax;
        String skip;
        final Map<String, Transaction> entryOf = new LinkedHashMap<>();
    }

    private GcPlan plan(History h, List<Transaction> order, Map<String, Integer> index, long oldEpochMax, Predicate<String> ended) {
        GcPlan p = new GcPlan();
        int n = order.size();
        Map<String, TreeMap<Long, Transaction>> fences = new HashMap<>();
        Set<String> sessions = new HashSet<>();
        for (Transaction t : order) {
            sessions.add(t.getSession());
            if (t.getFence() && t.getStatus() == TxnStatus.COMMITTED && t.getEpoch() >= 0)
                fences.computeIfAbsent(t.getSession(), x -> new TreeMap<>()).put(t.getSessionIndex(), t);
        }
        // a waiting transaction joins the graph later: like a future one it must follow an entry fence, the last
        // fence of its session before it; epochs from that fence's on stay open. So may a transaction of unknown
        // outcome that nobody has read, until it is set aside (A7): old, held pendingRoundsLimit rounds, read by no
        // transaction that may still join, and old under this round's cap, so that this collection takes it. One that
        // fails any of these keeps holding: set aside while a waiting reader pins it, or while it is not old enough
        // to be collected with the writers it read, it could lose a read to collection and then be included.
        long cap = oldEpochMax;
        List<Transaction> extra = new ArrayList<>();
        List<Transaction> joining = new ArrayList<>(pending);
        List<Transaction> aside = new ArrayList<>();
        for (Map.Entry<String, Long> e : unknownSince.entrySet()) {
            Transaction u = byId.get(e.getKey());
            if (u == null || !index.containsKey(u.getId())) continue; // waiting: already among the pending
            boolean eligible = u.getEpoch() >= 0 && u.getEpoch() <= oldEpochMax && rounds - e.getValue() >= settings.pendingRoundsLimit();
            (eligible ? aside : joining).add(u);
        }
        for (Transaction t : joining) {
            Transaction entry = entryFence(t, fences, index);
            if (entry == null) { p.skip = cannotJoin(t); return p; }
            cap = Math.min(cap, entry.getEpoch() - 1);
            extra.add(entry);
        }
        // every live session's latest fence here is an entry: epochs from its on stay open (a topology counts
        // fences it has not cut into rounds yet when it computes epoch_agree; the verifier can only use what it has)
        endedSince.keySet().retainAll(sessions);
        for (String s : sessions) {
            if (ended.test(s)) {
                if (endedExact) continue;
                long since = endedSince.computeIfAbsent(s, x -> rounds);
                if (rounds - since >= settings.pendingRoundsLimit()) continue; // long over: whatever it sends now is unknown
            }
            TreeMap<Long, Transaction> fs = fences.get(s);
            if (fs == null) { p.skip = "session " + s + " has run no fence yet: nothing can be collected before it does"; return p; }
            Transaction f = fs.lastEntry().getValue();
            cap = Math.min(cap, f.getEpoch() - 1);
            p.entryOf.put(s, f);
        }
        // to a fixed point: the cap only falls and the joining only grow
        Set<Transaction> readByJoining = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Transaction t : joining) readByJoining.addAll(writersRead(t));
        for (boolean changed = !aside.isEmpty(); changed; ) {
            changed = false;
            for (Iterator<Transaction> it = aside.iterator(); it.hasNext(); ) {
                Transaction u = it.next();
                if (u.getEpoch() <= cap && !readByJoining.contains(u)) continue;
                it.remove();
                joining.add(u);
                Transaction entry = entryFence(u, fences, index);
                if (entry == null) { p.skip = cannotJoin(u); return p; }
                cap = Math.min(cap, entry.getEpoch() - 1);
                extra.add(entry);
                readByJoining.addAll(writersRead(u));
                changed = true;
            }
        }
        p.old = new boolean[n];
        p.pinned = new boolean[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            Transaction t = order.get(i);
            p.old[i] = t.getEpoch() >= 0 && t.getEpoch() <= cap;
            any |= p.old[i];
        }
        if (!any) { p.skip = "no transaction of epoch " + cap + " or earlier" + (cap < oldEpochMax ? " (capped by sessions' latest fences and waiting transactions)" : ""); return p; }
        for (Transaction f : extra) p.entryOf.putIfAbsent(f.getSession() + '\0' + f.getId(), f);
        for (Transaction w : readByJoining) {
            Integer wi = index.get(w.getId());
            if (wi != null) p.pinned[wi] = true;
        }
        p.oldEpochMax = cap;
        p.entries = p.entryOf.values().stream().mapToInt(f -> index.get(f.getId())).distinct().toArray();
        return p;
    }

    /** The fence that a transaction that may still join must follow: its session's last fence before it, or for a fence that begins its session, the fence it read; null when there is none in the graph. */
    private Transaction entryFence(Transaction t, Map<String, TreeMap<Long, Transaction>> fences, Map<String, Integer> index) {
        TreeMap<Long, Transaction> fs = fences.get(t.getSession());
        Map.Entry<Long, Transaction> e = fs == null || t.getSessionIndex() < 0 ? null : fs.lowerEntry(t.getSessionIndex());
        return e != null ? e.getValue() : t.getFence() ? fenceItRead(t, index) : null;
    }

    private static String cannotJoin(Transaction t) {
        return t.getId() + (t.getStatus() == TxnStatus.UNKNOWN ? " (of unknown outcome) may still join the history" : " waits for a write")
                + " and no fence of its session precedes it: collection waits for it";
    }

    /** The held writers of what {@code t} read (itself excluded). */
    private List<Transaction> writersRead(Transaction t) {
        List<Transaction> out = new ArrayList<>();
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writerOf.get(o.getKey(), o.getValue());
            if (w != null && w != t) out.add(w);
        }
        return out;
    }

    /**
     * For a waiting fence that begins its session (sessions start with one): a fence in the graph whose write
     * it read. When it joins, that read is an edge from that fence to it, so it follows whatever that fence
     * follows, as a transaction follows its session's previous fence. Null when there is none in the graph.
     */
    private Transaction fenceItRead(Transaction t, Map<String, Integer> index) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writerOf.get(o.getKey(), o.getValue());
            if (w != null && w.getFence() && w.getStatus() == TxnStatus.COMMITTED && w.getEpoch() >= 0 && index.containsKey(w.getId())) return w;
        }
        return null;
    }

    /** Deletes what GC found collectible, remembers their writes exactly, and moves the barrier. Returns how many went. */
    private int collect(History h, List<Transaction> order, GcPlan plan, GarbageCollection gc, long oldEpochMax, boolean[] included) {
        int count = 0;
        Set<String> gone = new HashSet<>();
        LongIntMap goneWrites = new LongIntMap(1024); // (key, value) ids in h
        for (int i = 0; i < order.size(); i++) {
            Transaction t = order.get(i);
            // the barrier's real-time summary (strict mode) is of old transactions in the checked history only: an aborted
            // or unread unknown one is in no serial order, so its times order nothing (counting them rejected serializable
            // histories: a fence that ended before such a transaction started was put both before and after the past)
            if (plan.old[i] && included[i]) {
                if (t.getEnd() != 0) oldMaxEnd = oldMaxEnd == History.NO_TIME ? t.getEnd() : Math.max(oldMaxEnd, t.getEnd());
                if (t.getStart() != 0) oldMaxStart = oldMaxStart == History.NO_TIME ? t.getStart() : Math.max(oldMaxStart, t.getStart());
            }
            if (!gc.collect[i]) continue;
            count++;
            gone.add(t.getId());
            // the round's history may lack some of t's reads (of writes collected earlier), never its writes
            Map<Integer, Integer> lastWrite = new HashMap<>();
            for (int op = h.opStart(i); op < h.opEnd(i); op++) if (h.kind(op) == History.WRITE) lastWrite.put(h.key(op), op);
            for (int op = h.opStart(i); op < h.opEnd(i); op++) {
                if (h.kind(op) != History.WRITE) continue;
                String key = String.valueOf(h.keyName(h.key(op))), value = String.valueOf(h.valueName(h.value(op)));
                writerOf.remove(key, value);
                goneWrites.put(LongIntMap.pack(h.key(op), h.value(op)), i);
                CollectedWrites.Fate fate = t.getStatus() == TxnStatus.ABORTED ? CollectedWrites.Fate.ABORTED
                        : t.getStatus() == TxnStatus.UNKNOWN ? CollectedWrites.Fate.UNKNOWN_OUTCOME
                        : lastWrite.get(h.key(op)) == op ? CollectedWrites.Fate.SUPERSEDED : CollectedWrites.Fate.INTERMEDIATE;
                int by = gc.supersededBy[op];
                collected.put(key, value, new CollectedWrites.Entry(t.getId(), by >= 0 ? h.name(by) : null, fate, rounds - 1, incarnation));
            }
            byId.remove(t.getId());
            retainedIds.remove(t.getId());
            partlyRead.remove(t.getId());
            unknownSince.remove(t.getId());
            unincluded.remove(t.getId());
            staleDeferred.remove(t.getId());
        }
        if (count > 0) { collections++; markPartlyRead(h, gc.collect, goneWrites, included); }
        if (count > 0) retained.removeIf(t -> gone.contains(t.getId()));
        collectedTotal += count;
        // the new barrier: after every old transaction, before every entry fence
        Set<String> before = new HashSet<>();
        for (int i = 0; i < order.size(); i++) {
            Transaction t = order.get(i);
            if (plan.old[i] && !gc.collect[i] && t.getStatus() == TxnStatus.COMMITTED) before.add(t.getId());
        }
        barrierBefore = before;
        barrierAfter = new HashSet<>();
        for (Transaction f : plan.entryOf.values()) barrierAfter.add(f.getId());
        barrierEpoch = oldEpochMax;
        hasBarrier = true;
        List<CarriedEdge> next = new ArrayList<>(gc.carrySrc.length);
        for (int i = 0; i < gc.carrySrc.length; i++)
            next.add(new CarriedEdge(h.name(gc.carrySrc[i]), h.name(gc.carryDst[i]), gc.carryKind[i],
                    gc.carryKey[i] < 0 ? null : String.valueOf(h.keyName(gc.carryKey[i]))));
        carried = next;
        boolean[] isFrontier = new boolean[h.opCount()];
        for (int op : gc.frontierOps) isFrontier[op] = true;
        List<FrontierWrite> frontier = new ArrayList<>(gc.frontierOps.length);
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (isFrontier[op]) frontier.add(new FrontierWrite(String.valueOf(h.keyName(h.key(op))), h.name(t),
                        String.valueOf(h.valueName(h.value(op)))));
        lastFrontier = frontier;
        return count;
    }

    /**
     * Adds to {@link #partlyRead} the transactions of {@code h} left that read one of the {@code goneWrites} (packed
     * (key, value) ids). Such a transaction outside the checked history (of unknown outcome, unread) would, if a later
     * read included it, lack that read: {@link #plan} never lets it come to this (its reads pin their writers until it
     * is collected itself), and if it ever did, no later round could be accepted ({@link #lostProof}).
     */
    private void markPartlyRead(History h, boolean[] collect, LongIntMap goneWrites, boolean[] included) {
        for (int t = 0; t < h.size(); t++) {
            if (collect[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.READ && h.value(op) != History.NIL
                        && goneWrites.get(LongIntMap.pack(h.key(op), h.value(op))) != LongIntMap.MISSING) {
                    partlyRead.add(h.name(t));
                    if (!included[t] && h.status(t) == History.UNKNOWN && lostProof == null)
                        lostProof = "internal: " + h.name(t) + ", of unknown outcome and outside the checked history, lost the writer of its read of "
                                + History.show(h.keyName(h.key(op))) + " to garbage collection; should a read include it later, that read could not be checked";
                    break;
                }
        }
    }

    /**
     * A note when transactions that joined the checked history after a collection do not provably follow the
     * collected past (assumption A3, docs/DESIGN.md §7.1), or null: those admitted this round that are in it, and
     * retained ones outside it until now that a read has included.
     */
    private String uncovered(List<Transaction> admitted, boolean[] fromBarrier, boolean[] included, Map<String, Integer> index) {
        if (fromBarrier == null) return null;
        List<String> out = new ArrayList<>();
        for (Transaction t : admitted) {
            int i = index.get(t.getId());
            if (included[i] && !fromBarrier[i]) out.add(t.getId());
        }
        for (String id : unincluded) {
            Integer i = index.get(id);
            if (i != null && included[i] && !fromBarrier[i]) out.add(id);
        }
 if (out.isEmpty()) return null;
        Transaction first = byId.get(out.get(0));
        String entry = "none";
        for (String id : barrierAfter) {
            Transaction f = byId.get(id);
            if (f != null && first != null && f.getSession().equals(first.getSession())) entry = id + " (index " + f.getSessionIndex() + ", epoch " + f.getEpoch() + ")";
        }
        String detail = first == null ? "" : " [" + first.getId() + ": index " + first.getSessionIndex() + ", epoch " + first.getEpoch()
                + "; its session's entry fence: " + entry + "]";
        return out.size() + " transaction(s)" + detail + " (" + String.join(", ", out.subList(0, Math.min(3, out.size()))) + (out.size() > 3 ? ", ..." : "")
                + ") arrived after garbage collection without following a fence that follows the collected past;"
                + " they cannot be checked against it (sessions must run a fence before their first transaction)";
    }

    /**
     * Records {@code t} as the writer of its writes; or, when one of them was written already, by a held transaction
     * or by {@code t} itself (unique writes, A1), records none of them and says why.
     */
    private String recordWrites(Transaction t) {
        List<TxnOp> ops = t.getOps();
        for (int i = 0; i < ops.size(); i++) {
            TxnOp o = ops.get(i);
            if (!o.getWrite()) continue;
            Transaction w = writerOf.putIfAbsent(o.getKey(), o.getValue(), t);
            if (w == null) continue;
            for (int j = 0; j < i; j++) { // undo this transaction's writes recorded so far (the first write of a value wins)
                TxnOp p = ops.get(j);
                if (p.getWrite() && writerOf.get(p.getKey(), p.getValue()) == t) writerOf.remove(p.getKey(), p.getValue());
            }
            return t.getId() + " writes " + o.getKey() + " = " + o.getValue() + (w == t ? " twice" : ", which " + w.getId() + " wrote too")
                    + " (every write must be unique)";
        }
        return null;
    }

    /** Records which retained transactions of the round's history are outside the checked history ({@link #unincluded}). */
    private void noteUnincluded(List<Transaction> order, boolean[] included) {
        unincluded.clear();
        for (int i = 0; i < order.size(); i++)
            if (!included[i] && order.get(i).getStatus() == TxnStatus.UNKNOWN) unincluded.add(order.get(i).getId());
    }

    private Certificate staleCertificate(StaleRead s, History h, Map<String, Integer> index) {
        Transaction f = s.reader;
        String key = s.op.getKey(), val = s.op.getValue(), w = s.entry.writer(), by = s.entry.supersededBy();
        String fl = label(f.getId()), wl = label(w);
        List<Certificate.Txn> txns = new ArrayList<>();
        txns.add(new Certificate.Txn(f.getId(), f.getSession(), "committed", describe(f), -1));
        switch (s.entry.fate()) {
            case ABORTED -> {
                String text = fl + " read " + key + " = " + val + ", written by " + wl + ", which aborted";
                txns.add(new Certificate.Txn(w, "?", "aborted", "(collected)", -1));
                return new Certificate(AnomalyKind.G1A, text, List.of(), txns, List.of(), List.of(), List.of());
            }
            case INTERMEDIATE -> {
                String text = fl + " read " + key + " = " + val + ", an intermediate value: " + wl + " overwrote it before committing";
                txns.add(new Certificate.Txn(w, "?", "committed", "(collected)", -1));
                return new Certificate(AnomalyKind.G1B, text, List.of(), txns, List.of(), List.of(), List.of());
            }
            default -> {
                String bl = label(by);
                Transaction byTxn = byId.get(by);
                txns.add(new Certificate.Txn(w, "?", "committed", "(collected: w(" + key + ")=" + val + ")", -1));
                txns.add(new Certificate.Txn(by, byTxn == null ? "?" : byTxn.getSession(), "committed",
                        byTxn == null ? "(collected)" : describe(byTxn), -1));
                List<Certificate.Edge> cycle = List.of(
                        new Certificate.Edge(fl, bl, "rw", key, fl + " read " + wl + "'s version of " + key + ", and " + bl
                                + " wrote " + key + " after " + wl + " (" + wl + " reaches " + bl + " in the known graph)"),
                        new Certificate.Edge(bl, fl, "past", null, bl + " is in an epoch garbage collection closed, and " + fl
                                + " follows a fence that every transaction of those epochs precedes (the fences chain through their read-modify-writes)"));
                String text = "stale read: " + fl + " read " + key + " = " + val + ", written by " + wl + ", which " + bl
                        + " had superseded (" + wl + " was garbage-collected): " + fl + " -rw(" + key + ")-> " + bl + " -past-> " + fl;
                return new Certificate(AnomalyKind.STALE_READ, text, cycle, txns, List.of(), List.of(), List.of());
            }
        }
    }

    private static String label(String id) {
        return id != null && !id.isEmpty() && (Character.isDigit(id.charAt(0)) || id.charAt(0) == '-') ? "T" + id : String.valueOf(id);
    }

    private static String describe(Transaction t) {
        StringBuilder sb = new StringBuilder("[");
        for (TxnOp o : t.getOps()) {
            if (sb.length() > 1) sb.append(' ');
            sb.append(o.getWrite() ? "w(" : "r(").append(o.getKey()).append(")=").append(o.getValue() == null ? "null" : o.getValue());
        }
        return sb.append(']').toString();
    }

    /**
     * A copy of the in-memory state, to {@link #restore(Snapshot)}. The collected-write store is not copied: a
     * snapshot may be restored only if no collection has happened since ({@link RoundResult#collectedNow} 0).
     */
    record Snapshot(List<Transaction> retained, Set<String> retainedIds, WriterIndex writerOf, Map<String, Transaction> byId,
                    List<Transaction> pending, Map<String, Long> pendingSince, List<Transaction> incoming,
                    Map<String, List<StaleRead>> staleByReader, Map<String, List<StaleRead>> staleDeferred, long rounds, long checkedTotal,
                    long collectedTotal, long settledTotal, long collections, long duplicates, long oldMaxEnd, long oldMaxStart,
                    long barrierEpoch, boolean hasBarrier, Set<String> barrierBefore, Set<String> barrierAfter, List<CarriedEdge> carried,
                    String rejectedIn, String droppedState, String lostProof, Map<String, Long> unknownSince, Map<String, Long> endedSince,
                    Set<String> partlyRead, Set<String> unincluded, List<FrontierWrite> lastFrontier) {}

    Snapshot snapshot() {
        return new Snapshot(new ArrayList<>(retained), new HashSet<>(retainedIds), writerOf.copy(), new HashMap<>(byId), new ArrayList<>(pending),
                new HashMap<>(pendingSince), new ArrayList<>(incoming), deepCopy(staleByReader), deepCopy(staleDeferred), rounds, checkedTotal,
                collectedTotal, settledTotal, collections, duplicates, oldMaxEnd, oldMaxStart, barrierEpoch, hasBarrier, new HashSet<>(barrierBefore),
                new HashSet<>(barrierAfter), new ArrayList<>(carried), rejectedIn, droppedState, lostProof, new HashMap<>(unknownSince),
                new HashMap<>(endedSince), new HashSet<>(partlyRead), new HashSet<>(unincluded), new ArrayList<>(lastFrontier));
    }

    private static Map<String, List<StaleRead>> deepCopy(Map<String, List<StaleRead>> m) {
        Map<String, List<StaleRead>> c = new HashMap<>(m.size() * 2);
        for (Map.Entry<String, List<StaleRead>> e : m.entrySet()) c.put(e.getKey(), new ArrayList<>(e.getValue()));
        return c;
    }

    /** Returns to a state taken by {@link #snapshot} (no collection may have happened since). */
    void restore(Snapshot a) {
        retained.clear(); retained.addAll(a.retained());
        retainedIds.clear(); retainedIds.addAll(a.retainedIds());
        writerOf.replaceWith(a.writerOf());
        byId.clear(); byId.putAll(a.byId());
        pending.clear(); pending.addAll(a.pending());
        pendingSince.clear(); pendingSince.putAll(a.pendingSince());
        arrivedIn.clear();
        incoming.clear(); incoming.addAll(a.incoming());
        incomingIds.clear(); for (Transaction t : incoming) incomingIds.add(t.getId());
        staleByReader.clear(); staleByReader.putAll(deepCopy(a.staleByReader()));
        staleDeferred.clear(); staleDeferred.putAll(deepCopy(a.staleDeferred()));
        rounds = a.rounds(); batchStart = rounds; checkedTotal = a.checkedTotal(); collectedTotal = a.collectedTotal(); settledTotal = a.settledTotal();
        collections = a.collections(); duplicates = a.duplicates(); oldMaxEnd = a.oldMaxEnd(); oldMaxStart = a.oldMaxStart(); barrierEpoch = a.barrierEpoch();
        hasBarrier = a.hasBarrier();
        barrierBefore = new HashSet<>(a.barrierBefore());
        barrierAfter = new HashSet<>(a.barrierAfter());
        carried = new ArrayList<>(a.carried());
        rejectedIn = a.rejectedIn();
        droppedState = a.droppedState();
        lostProof = a.lostProof();
        unknownSince.clear(); unknownSince.putAll(a.unknownSince());
        endedSince.clear(); endedSince.putAll(a.endedSince());
        partlyRead.clear(); partlyRead.addAll(a.partlyRead());
        unincluded.clear(); unincluded.addAll(a.unincluded());
        lastFrontier = new ArrayList<>(a.lastFrontier());
    }

    // ---- checkpoints: the state as records, to publish and to resume from

    /** The verifier's incarnation (how many times it restarted): collected writes carry it. */
    private long incarnation;
    /** After a restart from a checkpoint: the checkpoint's round. Collected writes of an earlier incarnation after it are ignored. */
    private long visibleThrough = Long.MAX_VALUE;
    /** The frontier the last garbage collection found (key, writer, value), for checkpoints. */
    private List<FrontierWrite> lastFrontier = new ArrayList<>();

    /**
     * A collected write, unless an earlier incarnation collected it after the checkpoint this one resumed
     * from (that round is being decided again; its collection will be redone if it still holds).
     */
    private CollectedWrites.Entry collectedEntry(String key, String value) {
        CollectedWrites.Entry e = collected.get(key, value);
        if (e != null && e.incarnation() != incarnation && e.round() > visibleThrough) return null;
        return e;
    }

    /** Sets the incarnation that collected writes are stamped with (the service's restart count). */
    public void incarnation(long n) { this.incarnation = n; }

    /**
     * The state, as records: every held transaction (retained, then waiting, in admission order) and the
     * rest. Requires: no round is open (nothing added since the last {@link #endRound}). The collected
     * writes stay where they are ({@link CollectedWrites#sync} makes them durable).
     */
    public Checkpoint checkpoint() {
        return checkpoint(VerifierCore.newBuilder().setServiceRounds(0).setServiceDuplicates(0).setRetiredSince(new HashMap<>()));
    }

    /**
     * As {@link #checkpoint()}, for a verifier driven by a layer with state of its own ({@link RoundVerifier}):
     * {@code service} has that layer's fields set (its rounds, duplicates and retired sessions); this sets the rest.
     */
    public Checkpoint checkpoint(VerifierCore.Builder service) {
        if (!incoming.isEmpty()) throw new IllegalStateException("a checkpoint is taken between rounds, not with " + incoming.size() + " transactions added");
        collected.sync();
        List<HeldTxn> held = new ArrayList<>(retained.size() + pending.size());
        for (Transaction t : retained) held.add(new HeldTxn(t, -1L, unknownSince.getOrDefault(t.getId(), -1L)));
        for (Transaction t : pending) held.add(new HeldTxn(t, pendingSince.getOrDefault(t.getId(), rounds), unknownSince.getOrDefault(t.getId(), -1L)));
        List<CarriedFact> facts = new ArrayList<>(carried.size());
        for (CarriedEdge e : carried) facts.add(new CarriedFact(e.src(), e.dst(), e.kind(), e.key()));
        List<StaleReadRef> stale = new ArrayList<>();
        for (List<StaleRead> l : concat(staleByReader.values(), staleDeferred.values()))
            for (StaleRead r : l)
                stale.add(new StaleReadRef(r.reader().getId(), r.op().getKey(), r.op().getValue(), r.entry().writer(),
                        r.entry().supersededBy(), r.entry().fate().name(), r.entry().round()));
        VerifierCore core = service
                .setRounds(rounds).setChecked(checkedTotal).setCollected(collectedTotal).setSettled(settledTotal)
                .setCollections(collections).setDuplicates(duplicates).setHasBarrier(hasBarrier)
                .setBarrierAfter(new ArrayList<>(barrierAfter))
                .setOldMaxEnd(oldMaxEnd).setOldMaxStart(oldMaxStart).setBarrierEpoch(barrierEpoch).setStaleReads(stale)
                .setEndedSince(new HashMap<>(endedSince)).setRejectedIn(rejectedIn).setDroppedState(droppedState)
                .setFrontier(new ArrayList<>(lastFrontier)).setLostProof(lostProof).setUnincluded(new ArrayList<>(unincluded)).build();
        return new Checkpoint(held, facts, new ArrayList<>(barrierBefore), core);
    }

    private static <T> List<T> concat(Collection<T> a, Collection<T> b) {
        List<T> out = new ArrayList<>(a.size() + b.size());
        out.addAll(a);
        out.addAll(b);
        return out;
    }

    /**
     * The state {@link #checkpoint} exports: held transactions in admission order, the carried facts, the
     * retained old transactions before the barrier (the three that grow with the retained set), and the rest.
     */
    public record Checkpoint(List<HeldTxn> held, List<CarriedFact> carried,
                             List<String> barrierBefore, VerifierCore core) {}

    /**
     * Replaces this (fresh) verifier's state by a checkpoint's, taken by {@code incarnation − 1} or earlier.
     * Collected writes stamped after the checkpoint's last round by an earlier incarnation are ignored from
     * now on; this one stamps its own with {@code incarnation}.
     */
    public void restore(Checkpoint c, long incarnation) {
        if (!byId.isEmpty() || !incoming.isEmpty() || rounds != 0) throw new IllegalStateException("restore needs a fresh verifier");
        VerifierCore k = c.core();
        this.incarnation = incarnation;
        rounds = k.getRounds();
        batchStart = rounds;
        visibleThrough = rounds - 1;
        checkedTotal = k.getChecked();
        collectedTotal = k.getCollected();
        settledTotal = k.getSettled();
        collections = k.getCollections();
        duplicates = k.getDuplicates();
        hasBarrier = k.getHasBarrier();
        barrierBefore = new HashSet<>(c.barrierBefore());
        barrierAfter = new HashSet<>();
        for (CharSequence x : k.getBarrierAfter()) barrierAfter.add(x.toString());
        oldMaxEnd = k.getOldMaxEnd();
        oldMaxStart = k.getOldMaxStart();
        barrierEpoch = k.getBarrierEpoch();
        carried = new ArrayList<>();
        for (CarriedFact f : c.carried())
            carried.add(new CarriedEdge(f.getSrc().toString(), f.getDst().toString(), f.getKind(), f.getKey() == null ? null : f.getKey().toString()));
        endedSince.putAll(k.getEndedSince());
        rejectedIn = k.getRejectedIn() == null ? null : k.getRejectedIn().toString();
        droppedState = k.getDroppedState() == null ? null : k.getDroppedState().toString();
        lostProof = k.getLostProof() == null ? null : k.getLostProof().toString();
        for (CharSequence x : k.getUnincluded()) unincluded.add(x.toString());
        lastFrontier = new ArrayList<>(k.getFrontier());
        for (HeldTxn x : c.held()) {
            Transaction t = x.getTxn();
            byId.put(t.getId(), t);
            for (TxnOp o : t.getOps()) if (o.getWrite()) writerOf.putIfAbsent(o.getKey(), o.getValue(), t);
            if (x.getUnknownSince() >= 0) unknownSince.put(t.getId(), x.getUnknownSince());
            if (x.getPendingSince() < 0) { retained.add(t); retainedIds.add(t.getId()); }
            else { pending.add(t); pendingSince.put(t.getId(), x.getPendingSince()); }
        }
        for (Transaction t : retained)
            for (TxnOp o : t.getOps())
                if (!o.getWrite() && o.getValue() != null && !writerOf.contains(o.getKey(), o.getValue())) { partlyRead.add(t.getId()); break; }
        for (StaleReadRef r : k.getStaleReads()) {
            Transaction reader = byId.get(r.getReader().toString());
            if (reader == null) continue;
            // the reader's own operation: admission matches a waiting reader's stale reads by identity
            String key = r.getKey().toString(), value = r.getValue() == null ? null : r.getValue().toString();
            TxnOp op = null;
            for (TxnOp o : reader.getOps()) if (!o.getWrite() && o.getKey().equals(key) && Objects.equals(o.getValue(), value)) { op = o; break; }
            if (op == null) throw new IllegalArgumentException("checkpoint: " + reader.getId() + " has no read of " + key + " = " + value);
            CollectedWrites.Entry e = new CollectedWrites.Entry(r.getWriter().toString(), r.getSupersededBy() == null ? null : r.getSupersededBy().toString(),
                    CollectedWrites.Fate.valueOf(r.getFate().toString()), r.getCollectedIn(), incarnation);
            (retainedIds.contains(reader.getId()) ? staleDeferred : staleByReader).computeIfAbsent(reader.getId(), x -> new ArrayList<>())
                    .add(new StaleRead(reader, op, e));
        }
    }

    /** Every transaction retained, in the order it was admitted (for tests and checkpoints). */
    public Collection<Transaction> retained() { return Collections.unmodifiableList(retained); }

    @Override
    public void close() { collected.close(); }
}
