package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.Collector;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.Barrier;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.analysis.IncrementalCheck;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * Verification in rounds with garbage collection (paper §4), without I/O: the round's steps, in order. Transactions
 * are {@link #add}ed; {@link #endRound} records their writes, admits what can be checked ({@link Admission}), plans
 * garbage collection ({@link CollectionPlanner}), checks the round's history against the collected past
 * ({@link IncrementalCheck}), judges reads of collected writes ({@link StaleReads}), and once the round's outcome is
 * final, collects ({@link Collector}). What it carries between rounds is one {@link VerifierState}: the held
 * transactions ({@link HeldTransactions}), the stale reads, the collected past ({@link CollectedPast}), counters and
 * the sticky notes below; the collected writes live in {@link CollectedWrites} (on disk). The whole story of
 * garbage collection is in package {@code org.cobraverify.gc}.
 *
 * <p>Invariants. The checked history is read-from closed: a transaction whose read's writer has not
 * arrived waits (pending); one pending for {@code pendingRoundsLimit} rounds makes the verdict unknown.
 * Retained transactions, plus the collected past as one {@link Barrier} vertex, stand for every
 * transaction checked so far: a cycle of the whole history is a cycle of this graph (see
 * {@link GarbageCollection} for why). A read of a collected write is judged once its reader is in the checked
 * history ({@link StaleReads}): a reject, with the reader, the collected writer and the frontier write that
 * superseded it, when the reader provably follows the collected past; an unknown otherwise. Nothing is collected
 * before the round's outcome is final. Memory: the retained transactions (at most
 * {@code maxRetained}, waiting ones included; past that the verifier drops its state and says unknown from then on, never
 * running out of heap) and the sessions; collected writes live in {@link CollectedWrites} (on disk).
 * The state is a function of the transactions and round ends fed in: replaying them rebuilds it.
 *
 * <p>The round's steps, the assumptions A1–A9 and how each is checked or enforced: docs/DESIGN.md §7; checkpoints §8; what bounds each field §9.1.
 */
public final class IncrementalVerifier implements AutoCloseable {
    private final RoundSettings settings;
    private final CollectedWrites collected;
    private final CollectionPlanner planner;
    private final HeldTransactions held = new HeldTransactions();
    /** The collected-write store as this incarnation sees it, and the checkpoints a restart may resume from. */
    private final Incarnation incarnation;
    /** Builds and checks the round's history (steps 3–4). */
    private final RoundCheck check;
    private final StaleReads stale = new StaleReads();
    private CollectedPast past = new CollectedPast();
    /** Transactions added to the open round, and their ids. */
    private final List<Transaction> incoming = new ArrayList<>();
    private final Set<String> incomingIds = new HashSet<>();
    /**
     * For transactions of a batch of rounds decided with one check ({@link #add(Transaction, long)}): the
     * round each arrived in, so that how long one waits for a write counts from its own round, as it would
     * if the rounds were decided one by one. Cleared when the round ends.
     */
    private final Map<String, Long> arrivedIn = new HashMap<>();
    private long rounds, checkedTotal, collectedTotal, duplicates, settledTotal, collections, frontierRecords;
    /** The first round of the open batch: the number {@link #nextRound} had when the last round ended. */
    private long batchStart;
    private int lastSuperseded, lastOld, lastSettled;
    /** The last round's {@link RoundResult#keptBy}. */
    private int[] lastKept;
    /** The last round's {@link RoundResult#batchCounts} (set by each {@link #endRound}). */
    private long[][] batchCounts;
    /** Violations found this round and so far, and why verification stopped, if it did. */
    private final Violations violations = new Violations();
    /** Transactions left unchecked (docs/DESIGN.md §7.6). */
    private final UncheckedTransactions unchecked = new UncheckedTransactions();
    /** Transactions set aside after violations, reads of their writes left unchecked. */
    private long setAsideTotal, uncheckedReads;
    private String droppedState; // why the state was dropped (verdicts are unknown from then on)
    /**
     * Why no later round can be accepted: a round found a read it could not judge, or a transaction it could not
     * check against the collected past, and every later history contains it. Rejects are still found and reported.
     */
    private String lostProof;
    /** Transactions checked in the last round with reads that never resolved (the last round checks them as they are). */
    private final Set<String> forced = new HashSet<>();

    public IncrementalVerifier(RoundSettings settings, CollectedWrites collected) {
        this.settings = settings;
        this.collected = collected;
        this.planner = new CollectionPlanner(settings.pendingRoundsLimit());
        this.incarnation = new Incarnation(collected, held);
        this.check = new RoundCheck(settings.gc(), settings.gcRules(), held, stale, collected, planner, incarnation, forced);
    }

    public RoundSettings settings() { return settings; }

    /** Adds an arrived transaction to the current round; an id already retained or waiting is ignored (a duplicate). */
    public boolean add(Transaction t, long arrivedInRound) {
        if (!add(t)) return false;
        arrivedIn.put(t.getId(), arrivedInRound);
        return true;
    }

    /** The number the next {@link #endRound} will have. */
    public long nextRound() { return rounds; }

    public boolean add(Transaction t) {
        if (held.holds(t.getId()) || !incomingIds.add(t.getId())) {
            duplicates++;
            return false;
        }
        shareKeys(t.getOps());
        incoming.add(t);
        return true;
    }

    /**
     * Gives an operation on the key the one before it named that one's key string (equal strings, so nothing a check
     * decides changes): a transaction delivered through the wire format holds a string per operation, and a
     * read-modify-write names its key twice (44% of TPC-C's operations). One object per key and transaction stays on the
     * heap while it is held, and comparisons of the two are identity checks.
     */
    static void shareKeys(List<TxnOp> ops) {
        for (int i = 1; i < ops.size(); i++) {
            String before = ops.get(i - 1).getKey(), k = ops.get(i).getKey();
            if (k != before && k.equals(before)) ops.get(i).setKey(before);
        }
    }

    public long duplicates() { return duplicates; }

    public int retainedCount() { return held.retainedCount(); }

    /** The sessions of the transactions kept (retained or waiting). */
    public Set<String> sessionsHeld() { return held.sessions(); }

    public int pendingCount() { return held.waitingCount(); }

    public long collectedCount() { return collectedTotal; }

    /** Open constraints settled for good by garbage collection so far ({@link GarbageCollection#settled}). */
    public long settledCount() { return settledTotal; }

    public long checkedCount() { return checkedTotal; }

    /**
     * Whether verification has stopped: after a violation none of whose transactions could be set aside (or too many in
     * one round), or after the state was dropped; every later round then says it was not checked.
     */
    public boolean stopped() { return violations.stoppedIn() != null || droppedState != null; }

    /** Violations found so far (each set aside, docs/DESIGN.md §7.10). */
    public long violationsCount() { return violations.total(); }

    /**
     * Keys tainted by violations and not cleared yet (docs/DESIGN.md §7.10): remembered one by one, and in the overflow filter
     * (past {@link TaintedKeys#MAX_KEYS}).
     */
    public long taintedKeysCount() { return held.tainted().size(); }

    /** Of the tainted keys, those only in the overflow filter (reads of them stay untestable). */
    public long forgottenTaintedKeysCount() { return held.tainted().forgotten(); }

    /** Transactions set aside after violations so far, and the reads of their writes left unchecked. */
    public long setAsideCount() { return setAsideTotal; }

    public long uncheckedReadsCount() { return uncheckedReads; }

    /**
     * Keys whose synthetic writer the checks left out as isolated (docs/DESIGN.md §7.9), summed over every check this
     * incarnation ran (a round that sets violations aside checks more than once): what the rule saves, for benchmarks.
     */
    public long isolatedKeysCount() { return check.isolatedKeys(); }

    /** Of {@link #isolatedKeysCount}, the keys isolated by the chain rule (docs/DESIGN.md §7.9, "Chains from a frontier value"). */
    public long chainedKeysCount() { return check.chainedKeys(); }

    /** Frontier writes collected as data so far, by this incarnation and those it resumed from (docs/DESIGN.md §7.9). */
    public long frontierRecordsCollected() { return frontierRecords; }

    /** The held transactions' writes collected while they stay, by transaction and key, with the writer that superseded each (for tests). */
    Map<String, Map<String, String>> collectedWritesOfStayingWriters() { return java.util.Collections.unmodifiableMap(held.supersededMarks()); }

    /** Counts {@code k} more rounds as passed (a batch of rounds decided with one check counts as all of them). */
    public void skipRounds(int k) { rounds += k; }

    /** See {@link CollectionPlanner#sessionsClosed}: sessions that delivered everything (the topology's {@code closedNow}). */
    public void sessionsClosed(Collection<String> sessions) { planner.sessionsClosed(sessions); }

    /** See {@link CollectionPlanner#endedIsExact}. */
    public void endedIsExact(boolean exact) { planner.endedIsExact(exact); }

    /**
     * Ends a round: admits what can be checked, checks, and collects garbage. {@code oldEpochMax}: the
     * largest epoch GC may treat as closed (the paper's {@code epoch_agree − 2}; negative: none).
     * {@code ended}: sessions that will send nothing more (they need no entry fence).
     */
    public RoundResult endRound(long oldEpochMax, Predicate<String> ended) { return endRound(oldEpochMax, ended, false); }

    /**
     * As above; with {@code last}, nothing more will arrive: transactions still waiting are checked as they
     * are (a read of a value nobody wrote is then a violation, as in a one-shot check).
     */
    public RoundResult endRound(long oldEpochMax, Predicate<String> ended, boolean last) {
        roundCpu0 = RoundClock.cpuNanos();
        roundCollector0 = RoundClock.collectorMillis();
        long roundNo = rounds++, firstRound = Math.min(batchStart, roundNo);
        batchStart = rounds;
        int batchRounds = (int) (roundNo - firstRound + 1);
        batchCounts = null; // set below once admission has run
        lastKept = null;
        List<Transaction> thisRound = new ArrayList<>(incoming);
        incoming.clear();
        incomingIds.clear();
        unchecked.startRound();
        if (stopped()) { arrivedIn.clear(); return afterTerminal(roundNo, thisRound); }
        long t0 = System.nanoTime();
        leaveOut(thisRound, roundNo);
        Admitted in = admit(thisRound, roundNo, firstRound, batchRounds, last);
        List<Transaction> admitted = in.admitted();
        List<StaleReads.StaleRead> staleNow = in.staleNow();
        // 3–4. the round's history (retained and admitted, in session order), garbage collection's plan, the check, and
        // what GC may take (on accept). A violation's transactions are set aside and the rest is checked again (and GC
        // planned again), until the check accepts (docs/DESIGN.md §7.10).
        violations.startRound();
        RoundCheck.Attempt a = attempt(roundNo, admitted, staleNow, oldEpochMax, ended, settings.check(), false);
        long t1 = a.t1();
        Verdict first = a.r() == null ? null : a.r().verdict();
        while (a.failure() == null && a.r().verdict().outcome() == Verdict.Outcome.REJECT) {
            // the reject's violation, and those found with it (each with transactions of its own): all set aside at once
            List<Certificate> found = new ArrayList<>();
            found.add(a.r().verdict().certificate());
            found.addAll(a.r().moreViolations());
            Set<String> ids = new java.util.LinkedHashSet<>();
            for (Certificate c : found) {
                if (violations.tooManyThisRound()) break;
                Set<String> named = SetAside.of(c, held);
                if (named.isEmpty()) continue;
                violations.found(c);
                ids.addAll(named);
            }
            if (ids.isEmpty()) {
                violations.found(found.get(0));
                return terminal(roundNo, "the violation names no transaction the verifier holds, so none can be set aside", first, thisRound, a.h().size(), t0, t1);
            }
            if (violations.tooManyThisRound())
                return terminal(roundNo, "round " + roundNo + " holds at least " + Violations.MAX_PER_ROUND + " violations (more than are set aside one by one)",
                        first, thisRound, a.h().size(), t0, t1);
            setAside(ids, roundNo, admitted, staleNow);
            CheckOptions left = RoundCheck.remaining(settings.check(), t1);
            if (left == null) {
                retain(admitted);
                long now = System.nanoTime();
                return result(roundNo, Verdict.Outcome.UNKNOWN, "the check's budget ran out while the round's violations were set aside; the rest of"
                        + " the round is checked with the next one", first, thisRound, a.h().size(), t0, t1, now, now, 0, null);
            }
            a = attempt(roundNo, admitted, staleNow, oldEpochMax, ended, left, false);
        }
        if (a.failure() != null) {
            long now = System.nanoTime();
            if (a.outOfMemory()) {
                // the round's graph did not fit: drop the state (which frees it) and go on, saying unknown from now on
                droppedState = "the heap ran out while checking round " + roundNo + " (" + (held.retainedCount() + admitted.size())
                        + " transactions retained and new)";
                dropState();
                return result(roundNo, Verdict.Outcome.UNKNOWN, droppedState + "; the state was dropped so that the verifier goes on",
                        first, thisRound, 0, t0, t1, now, now, 0, null);
            }
            retain(admitted);
            return result(roundNo, Verdict.Outcome.UNKNOWN, "internal error in the checker (please report it with this round's history, cobra export): "
                    + a.failure(), first, thisRound, a.h().size(), t0, t1, now, now, 0, null);
        }
        long t2 = System.nanoTime();
        check.forgetAdmission();
        History h = a.h();
        List<Transaction> order = a.order();
        Map<String, Integer> index = a.index();
        CollectionPlanner.Plan plan = a.plan();
        IncrementalCheck.Result r = a.r();
        Verdict v = r.verdict();
        Verdict shown = violations.noneThisRound() ? v : first;
        retain(admitted);
        if (v.outcome() == Verdict.Outcome.UNKNOWN) {
            return result(roundNo, Verdict.Outcome.UNKNOWN, v.unknownReason(), shown, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        boolean[] inc = r.included();
        // 5. accepted: a transaction that joined the checked history now without following the collected past in the facts
        // (A3: admitted this round, or of unknown outcome and included now by a read) cannot be checked against it. It is
        // set aside, unchecked (§7.6), never holding anything back, and the rest is checked again without it, so that
        // garbage collection analyses the history it will collect from (the check accepted with it, so it accepts without)
        boolean noCollection = false;
        Set<String> uncovered = UncheckedTransactions.uncovered(admitted, held, r.fromBarrier(), inc, index);
        if (!uncovered.isEmpty()) {
            checkedTotal -= uncovered.size();
            uncheckedReads += unchecked.leaveUncovered(uncovered, held, past, stale, admitted, roundNo, incarnation.number());
            staleNow.removeIf(x -> uncovered.contains(x.reader().getId()));
            forced.removeAll(uncovered);
            RoundCheck.Attempt again = checkAgain(roundNo, admitted, staleNow, oldEpochMax, ended, t1);
            if (again != null) {
                a = again;
                h = a.h(); order = a.order(); index = a.index(); plan = a.plan(); r = a.r(); v = r.verdict(); inc = r.included();
            } else {
                noCollection = true;
                long now = System.nanoTime();
                return result(roundNo, Verdict.Outcome.UNKNOWN, "the check's budget ran out while the transactions that do not follow the collected"
                        + " past were set aside; the rest of the round is checked with the next one", shown, thisRound, h.size(), t0, t1, now, now, 0, null);
            }
        }
        // reads of collected writes are judged now, for readers in the checked history (docs/DESIGN.md §7.5); a stale reader
        // is set aside like any violation's (the check accepted with it, so it accepts without it)
        StaleReads.Judgement judged = stale.judge(a.stale(), index::get, inc, r.fromBarrier(), held::get);
        boolean staleSetAside = !judged.rejects().isEmpty();
        if (staleSetAside) {
            violations.foundAll(judged.rejects());
            setAside(new java.util.LinkedHashSet<>(judged.readers()), roundNo, admitted, staleNow);
            // checked again without them, so that garbage collection analyses the history it will collect from (the check
            // accepted with them, so it accepts without them unless the budget runs out)
            RoundCheck.Attempt again = checkAgain(roundNo, admitted, staleNow, oldEpochMax, ended, t1);
            if (again != null) {
                a = again;
                h = a.h(); order = a.order(); index = a.index(); plan = a.plan(); r = a.r(); v = r.verdict(); inc = r.included();
                staleSetAside = false;
            }
        }
        uncheckedReads += judged.unchecked();
        if (judged.unknown() != null) {
            lostProof = "round " + roundNo + ": " + judged.unknown();
            held.noteUnincluded(order, inc);
            return result(roundNo, Verdict.Outcome.UNKNOWN, lostProof, shown, thisRound, h.size(), t0, t1, t2, t2, 0, null);
        }
        String untestable = untestableRead(admitted, index, inc);
        held.noteUnincluded(order, inc);
        // 6. the outcome, final before anything is collected (a batch restores its snapshot unless it accepts, and a
        // snapshot may be restored only if nothing was collected since)
        Decided decided = decide(in, untestable);
        Verdict.Outcome outcome = decided.outcome();
        String reason = decided.reason();
        // 7. collect (not after stale readers were set aside: the analysis saw them; a violation the check found was set
        // aside before the check that GC analysed).
        String gcNote = plan == null ? null : plan.skip() != null ? plan.skip() : r.gc() != null ? r.gc().skipped : null;
        int collectedNow = 0;
        lastSuperseded = r.gc() == null ? 0 : r.gc().superseded;
        lastKept = r.gc() == null || r.gc().skipped != null ? null : r.gc().kept;
        lastSettled = 0;
        lastOld = plan == null ? 0 : plan.oldCount();
        boolean batchFound = batchRounds > 1 && !violations.noneThisRound();
        if (!staleSetAside && !noCollection && !batchFound && plan != null && plan.skip() == null && r.gc() != null && r.gc().skipped == null)
            collectedNow = collect(a, inc, roundNo);
        long t3 = System.nanoTime();
        // why the retained set did not shrink, for whoever watches it grow (the retained-set alert)
        if (gcNote != null && collectedNow == 0 && !(held.retainedCount() == 0)) reason += "; nothing collected: " + gcNote;
        if (held.size() > settings.maxRetained()) {
            droppedState = "the verifier kept " + held.retainedCount() + " transactions after garbage collection in round " + roundNo
                    + ((held.waitingCount() == 0) ? "" : ", and " + held.waitingCount() + " waiting for writes,")
                    + " more than its bound of " + settings.maxRetained() + " (constraints no read resolves keep them alive)";
            dropState();
            outcome = Verdict.Outcome.UNKNOWN;
            reason = droppedState + "; the state was dropped so that the verifier goes on within its memory";
        }
        return result(roundNo, outcome, reason, shown, thisRound, h.size(), t0, t1, t2, t3, collectedNow, gcNote);
    }

    /**
     * Steps 0–1: leaves out of the round what cannot be checked in it. A transaction that follows no fence of its session
     * (EpochRules rule 5) is unchecked (docs/DESIGN.md §7.6); one that breaks unique writes (A1) makes every later round
     * unknown. The others' writes become known.
     */
    private void leaveOut(List<Transaction> thisRound, long roundNo) {
        // 0. a transaction that follows no fence of its session (EpochRules rule 5) is not checked: nothing could show that it
        // follows the collected past, and kept in the graph it would never be old (docs/DESIGN.md §7.6)
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            if (!EpochRules.isUnfenced(t.getEpoch())) continue;
            it.remove();
            unchecked.leaveUnfenced(t, held, roundNo, incarnation.number());
        }
        // 1. new writes become known (reads of collected writes are found when the new transactions are first admitted).
        // A transaction that writes a (key, value) a held transaction wrote, or writes one twice, breaks unique writes
        // (assumption A1): its reads cannot be tied to one writer, and the round's history could not even be built. It
        // is left out, and no later round can be accepted (the history is not the one checked); rejects still count.
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            String dup = held.recordWrites(t);
            if (dup == null) continue;
            it.remove();
            if (lostProof == null) lostProof = "round " + roundNo + ": " + dup + "; " + t.getId() + " was left out of the checked history";
        }
    }

    /** What step 2 admitted: the transactions checked for the first time, their reads of collected writes, and what still waits. */
    private record Admitted(List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, String pendingNote, boolean pendingTooLong) {}

    /**
     * Step 2: the round's transactions join the waiting ones, and every waiting transaction whose reads all resolve is admitted
     * ({@link Admission}; a stale read resolves to nothing: it is judged later); with {@code last}, every one, as it is.
     */
    private Admitted admit(List<Transaction> thisRound, long roundNo, long firstRound, int batchRounds, boolean last) {
        // a waiting transaction's level: the round of the batch from which on it is there (those from before: the first)
        int waitedBefore = held.waitingCount();
        int[] arrival = batchRounds > 1 ? new int[waitedBefore + thisRound.size()] : null;
        for (Transaction t : thisRound) {
            long arrived = Math.min(roundNo, arrivedIn.getOrDefault(t.getId(), roundNo));
            if (arrival != null) arrival[held.waitingCount()] = (int) Math.max(0, arrived - firstRound);
            held.arrive(t, arrived);
        }
        arrivedIn.clear();
        long checkedBefore = checkedTotal;
        // 2. admit every waiting transaction whose reads all resolve (a stale read resolves to nothing: it is judged below)
        Admission admission = (held.waitingCount() == 0) ? Admission.none()
                : Admission.of(held.waiting(), arrival, waitedBefore, held, stale, incarnation::entries);
        check.admission(admission.heldReads()); // until a set-aside changes the writer index
        List<Transaction> admitted = admission.admitted();
        held.stopWaiting(admitted);
        forced.clear();
        if (last && !(held.waitingCount() == 0)) {
            for (Transaction t : held.waiting()) forced.add(t.getId());
            admitted.addAll(held.takeAllWaiting());
        }
        batchCounts = arrival == null ? null : Admission.batchCounts(arrival, admission.level(), batchRounds, checkedBefore);
        List<StaleReads.StaleRead> staleNow = stale.takeAdmitted(admitted);
        checkedTotal += admitted.size();
        String pendingNote = null;
        boolean pendingTooLong = false;
        if (!(held.waitingCount() == 0)) {
            Transaction oldest = held.waiting().get(0);
            long waited = rounds - held.waitingSince().get(oldest.getId());
            pendingTooLong = waited >= settings.pendingRoundsLimit();
            pendingNote = pendingTooLong
                    ? held.waitingCount() + " transactions read writes that have not arrived after " + waited + " rounds (oldest: " + oldest.getId()
                      + " reads " + held.firstMissingRead(oldest) + (collected.horizonNote() == null ? "" : "; " + collected.horizonNote())
                      + "); the rest is serializable"
                    : held.waitingCount() + " wait for writes not yet seen (oldest: " + oldest.getId() + " reads " + held.firstMissingRead(oldest) + ")";
        }
        return new Admitted(admitted, staleNow, pendingNote, pendingTooLong);
    }

    /**
     * Step 5's last part: the first read, by a transaction checked for the first time, that the baseline leaves undecidable
     * (§7.10), described; null if none. A read the baseline leaves undecidable makes this round's own outcome unknown; garbage
     * collection goes on.
     */
    private String untestableRead(List<Transaction> admitted, Map<String, Integer> index, boolean[] inc) {
    // a read the baseline leaves undecidable (§7.10) makes this round's own outcome unknown; garbage collection goes on.
    // Checked for the first time: the admitted transactions, and those of unknown outcome that the checked history left
    // out until now (nobody had read their writes) and includes from this round on (seed 1415324 of the differential)
    List<Transaction> firstChecked = admitted;
    if (!held.unincluded().isEmpty() && !held.tainted().isEmpty()) {
        firstChecked = new ArrayList<>(admitted);
        for (String id : held.unincluded()) {
            Integer i = index.get(id);
            Transaction t = held.get(id);
            if (i != null && inc[i] && t != null) firstChecked.add(t);
        }
    }
        return SetAside.untestableRead(firstChecked, held, incarnation::entry);
    }

    /** A round's own outcome and its reason. */
    private record Decided(Verdict.Outcome outcome, String reason) {}

    /** Step 6: the round's own outcome once its check accepted. */
    private Decided decide(Admitted in, String untestable) {
        Verdict.Outcome outcome = Verdict.Outcome.ACCEPT;
        String reason = "serializable" + (settings.check().strict() ? " (strictly)" : "") + ": " + checkedTotal + " transactions";
        if (in.pendingNote() != null) {
            if (in.pendingTooLong()) { outcome = Verdict.Outcome.UNKNOWN; reason = in.pendingNote(); } else reason += "; " + in.pendingNote();
        }
        if (untestable != null && outcome == Verdict.Outcome.ACCEPT) { outcome = Verdict.Outcome.UNKNOWN; reason = untestable; }
        if (lostProof != null && outcome == Verdict.Outcome.ACCEPT) {
            outcome = Verdict.Outcome.UNKNOWN;
            reason = "serializable as far as it can be checked, but no round can be accepted since " + lostProof;
        }
        return new Decided(outcome, reason);
    }

    /**
     * Step 7: collects what the accepted round's analysis ({@code a}) lets go ({@link Collector}), once the round's outcome
     * is final; returns how many transactions went.
     */
    private int collect(RoundCheck.Attempt a, boolean[] inc, long roundNo) {
        History h = a.h();
        List<Transaction> order = a.order();
        Map<String, Integer> index = a.index();
        CollectionPlanner.Plan plan = a.plan();
        IncrementalCheck.Result r = a.r();
        Set<String> cleared = SetAside.clearable(held, h, order, index, r.gc(), inc);
        Collector.Outcome gone = Collector.collect(h, order, plan, r.gc(), inc, collected, past, roundNo, incarnation.number(), incarnation::visible,
                incarnation.keepFrom(roundNo), a.frontier().chainKeys());
        for (String k : cleared) { held.tainted().clear(k); }
        int collectedNow = gone.gone().size();
        frontierRecords += r.gc().frontierAsData.length;
        held.forget(gone.gone());
        StayingWriters.collectMarkedWrites(h, r.gc(), roundNo, incarnation.number(), settings.gcRules() == GarbageCollection.Rules.CARELESS_MARKS,
                held, collected, stale);
        for (String id : gone.gone()) stale.forget(id);
        flushSetAside(); // no snapshot from before this collection can be restored now
        held.partlyRead(gone.partlyRead());
        for (String id : gone.knownCommitted()) held.knownCommitted(id);
        if (gone.lostProof() != null && lostProof == null) lostProof = gone.lostProof();
        if (collectedNow > 0) collections++;
        collectedTotal += collectedNow;
        lastSettled = r.gc().settled;
        settledTotal += lastSettled;
        collected.writeBehind(); // written while the next round arrives
        return collectedNow;
    }

    /**
     * The round checked again with what its first check accepted less what was set aside since (the retained and
     * admitted transactions as they are now), within what is left of the budget since {@code t1}; null when that did not
     * accept (the budget ran out, or an internal error).
     */
    private RoundCheck.Attempt checkAgain(long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax,
                               Predicate<String> ended, long t1) {
        CheckOptions left = RoundCheck.remaining(settings.check(), t1);
        RoundCheck.Attempt again = left == null ? null : attempt(roundNo, admitted, staleNow, oldEpochMax, ended, left, true);
        return again != null && again.accepted() ? again : null;
    }

    /** One build and check of the round's history ({@link RoundCheck#attempt}); a frontier that cannot be judged any more is a lost proof. */
    private RoundCheck.Attempt attempt(long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax, Predicate<String> ended,
                            CheckOptions options, boolean retainedAlready) {
        RoundCheck.Attempt a = check.attempt(admitted, staleNow, oldEpochMax, ended, options, retainedAlready, past, lostProof != null, rounds);
        if (a.frontier().unknowable() != null && lostProof == null) lostProof = "round " + roundNo + ": " + a.frontier().unknowable();
        return a;
    }

    /** Moves the writes set aside since the last collection or checkpoint into the collected-write store. */
    private void flushSetAside() {
        for (Map.Entry<String, Map<String, CollectedWrites.Entry>> k : held.takeSetAsideWrites().entrySet())
            for (Map.Entry<String, CollectedWrites.Entry> v : k.getValue().entrySet()) collected.put(k.getKey(), v.getKey(), v.getValue());
    }

    /** Sets {@code ids} aside ({@link SetAside#apply}), with their reads of collected writes and their places in this round. */
    private void setAside(Set<String> ids, long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow) {
        check.forgetAdmission(); // their writes leave the writer index: admission's answers may be stale now
        List<String> uncontracted = new ArrayList<>();
        // only what a collection may have analysed (retained before this round) taints keys (docs/DESIGN.md §7.10)
        Set<String> fresh = new HashSet<>();
        for (Transaction t : admitted) fresh.add(t.getId());
        uncheckedReads += SetAside.apply(ids, held, stale, admitted, roundNo, incarnation.number(), past, uncontracted,
                id -> held.isRetained(id) && !fresh.contains(id));
        if (!uncontracted.isEmpty() && lostProof == null)
            lostProof = "round " + roundNo + ": " + uncontracted.get(0) + ", set aside after a violation, carried more than "
                    + CollectedPast.MAX_CONTRACTED_FACTS + " paths of the collected past; without them later rounds could miss a cycle";
        staleNow.removeIf(x -> ids.contains(x.reader().getId()));
        forced.removeAll(ids);
        setAsideTotal += ids.size();
        SetAside.bound(held); // past the bound, the oldest tainted keys are remembered only as possibly tainted (§7.10)
    }

    /**
     * Verification stops: the round's violations are reported, nothing more is kept, and every later round is a reject
     * that says its transactions were not checked.
     */
    private RoundResult terminal(long roundNo, String why, Verdict shown, List<Transaction> thisRound, int hSize, long t0, long t1) {
        violations.stop(roundNo, why);
        dropState();
        long now = System.nanoTime();
        return result(roundNo, Verdict.Outcome.REJECT, "verification stops: " + why, shown, thisRound, hSize, t0, t1, now, now, 0, null);
    }

    private RoundResult afterTerminal(long roundNo, List<Transaction> thisRound) {
        violations.takeRound(roundNo); // (none: a stopped verifier checks nothing)
        long now = System.nanoTime();
        if (violations.stoppedIn() != null)
            return result(roundNo, Verdict.Outcome.UNKNOWN, "not checked: verification stopped in " + violations.stoppedIn(), null, thisRound, 0, now, now, now, now, 0, null);
        return result(roundNo, Verdict.Outcome.UNKNOWN, droppedState + " (round " + roundNo + " was not checked)", null, thisRound, 0, now, now, now, now, 0, null);
    }

    /**
     * The round's result. {@code own}, {@code ownReason}: what the round's own transactions came to; a round that found
     * violations ({@link Violations}) is a reject of its own, and once the history has one, every round's outcome is a
     * reject (the history as a whole is not serializable) and its reason says what became of the round's own transactions.
     */
    private RoundResult result(long roundNo, Verdict.Outcome own, String ownReason, Verdict v, List<Transaction> thisRound, int hSize,
                               long t0, long t1, long t2, long t3, int collectedNow, String gcNote) {
        assert held.invariantsHold() : "round " + roundNo + " broke the held transactions' invariants";
        List<Certificate> found = violations.takeRound(roundNo);
        Verdict.Outcome rest = own;
        List<Unchecked> left = unchecked.takeRound();
        if (!left.isEmpty()) ownReason = ownReason + "; " + unchecked.note(left);
        if (!found.isEmpty()) own = Verdict.Outcome.REJECT;
        boolean violated = violations.violated();
        String reason = violations.reason(found, own, ownReason);
        Certificate cert = found.isEmpty() ? null : found.get(0);
        return new RoundResult(roundNo, violated ? Verdict.Outcome.REJECT : own, reason, cert, v, v == null ? null : v.stats(), thisRound.size() + unchecked.arrivedUnfenced(),
                checkedTotal, held.waitingCount(), hSize, held.retainedCount(), collectedNow, collectedTotal, t1 - t0, t2 - t1, t3 - t2, gcNote,
                lastSuperseded, lastOld, lastSettled, batchCounts, lastKept, found, violations.total(), violations.firstRound(), own,
                RoundClock.between(roundCpu0, RoundClock.cpuNanos()), RoundClock.between(roundCollector0, RoundClock.collectorMillis()),
                left, unchecked.total(), rest);
    }

    /** {@link RoundClock}'s readings when the round being ended began (observability only). */
    private long roundCpu0 = -1, roundCollector0 = -1;

    /** Retains the round's checked transactions; those checked with a read of no held writer lack it from now on. */
    private void retain(List<Transaction> admitted) {
        held.retain(admitted, id -> (!forced.isEmpty() && forced.contains(id)) || stale.readCollected(id));
    }

    /** After a reject (every later history contains it) or past the memory bound: nothing more is kept. */
    private void dropState() {
        held.clear();
        stale.clear();
        past.clear();
    }

    // ---- the state as one value: snapshots (a batch decided again round by round) and checkpoints

    /**
     * A copy of the state, to {@link #restore(VerifierState)}. The collected-write store is not copied: a snapshot
     * may be restored only if no collection has happened since ({@link RoundResult#collectedNow} 0).
     */
    VerifierState snapshot() {
        return new VerifierState(held.copy(), stale.copy(), past.copy(), new HashMap<>(planner.endedSince()), new HashMap<>(planner.withoutFenceSince()),
                counters(), violations.stoppedIn(), droppedState,
                lostProof, new ArrayList<>(incoming));
    }

    private VerifierState.Counters counters() {
        return new VerifierState.Counters(rounds, checkedTotal, collectedTotal, settledTotal, collections, duplicates, frontierRecords,
                violations.total(), violations.firstRound(), setAsideTotal, uncheckedReads, unchecked.total());
    }

    /** Returns to a state taken by {@link #snapshot} (no collection may have happened since), or decoded from a checkpoint. */
    void restore(VerifierState s) {
        held.replaceWith(s.held());
        stale.replaceWith(s.stale());
        past = s.past().copy();
        planner.restoreEndedSince(s.endedSince());
        planner.restoreWithoutFenceSince(s.withoutFenceSince());
        VerifierState.Counters n = s.counters();
        rounds = n.rounds(); checkedTotal = n.checked(); collectedTotal = n.collected(); settledTotal = n.settled();
        collections = n.collections(); duplicates = n.duplicates(); frontierRecords = n.frontierRecords();
        setAsideTotal = n.setAside(); uncheckedReads = n.uncheckedReads();
        unchecked.restoreTotal(n.unchecked());
        batchStart = rounds;
        violations.restore(n.violations(), n.firstViolationRound(), s.rejectedIn());
        droppedState = s.droppedState();
        lostProof = s.lostProof();
        arrivedIn.clear();
        incoming.clear();
        incoming.addAll(s.incoming());
        incomingIds.clear();
        for (Transaction t : incoming) incomingIds.add(t.getId());
    }

    /**
     * Part of the history will never be fed (retention deleted it before it was read): from now on no round is
     * accepted, and each says why; rejects are still found, from what is fed (a cycle of facts among fed transactions
     * is a violation of the whole history too). Kept across checkpoints, as every lost proof is.
     */
    public void inputLost(String why) { if (lostProof == null) lostProof = why; }

    /** Sets the incarnation that collected writes are stamped with (the service's restart count). */
    public void incarnation(long n) {
        // a restart that resumes from no checkpoint rebuilds from the start: what earlier incarnations collected is not its own
        incarnation.start(n, rounds == 0 && held.isEmpty());
    }

    /**
     * The state, as records: every held transaction (retained, then waiting, in admission order) and the
     * rest. Requires: no round is open (nothing added since the last {@link #endRound}). The collected
     * writes stay where they are ({@link CollectedWrites#sync} makes them durable).
     */
    public RoundsCheckpoint checkpoint() {
        return checkpoint(VerifierCore.newBuilder().setServiceRounds(0).setServiceDuplicates(0).setRetiredSince(new HashMap<>()));
    }

    /**
     * As {@link #checkpoint()}, for a verifier driven by a layer with state of its own ({@link RoundVerifier}):
     * {@code service} has that layer's fields set (its rounds, duplicates and retired sessions); this sets the rest.
     */
    public RoundsCheckpoint checkpoint(VerifierCore.Builder service) {
        if (!incoming.isEmpty()) throw new IllegalStateException("a checkpoint is taken between rounds, not with " + incoming.size() + " transactions added");
        flushSetAside();
        collected.sync();
        incarnation.checkpointTaken(rounds - 1);
        return CheckpointCodec.encode(new VerifierState(held, stale, past, planner.endedSince(), planner.withoutFenceSince(), counters(), violations.stoppedIn(),
                droppedState, lostProof,
                List.of()), service);
    }


    /**
     * Replaces this (fresh) verifier's state by a checkpoint's, taken by {@code incarnation − 1} or earlier.
     * Collected writes stamped after the checkpoint's last round by an earlier incarnation are ignored from
     * now on; this one stamps its own with {@code incarnation}.
     */
    public void restore(RoundsCheckpoint c, long incarnation) {
        if (!held.isEmpty() || !incoming.isEmpty() || rounds != 0) throw new IllegalStateException("restore needs a fresh verifier");
        VerifierState s = CheckpointCodec.decode(c, incarnation);
        restore(s);
        this.incarnation.resume(incarnation, rounds - 1);
        assert held.invariantsHold() : "the checkpoint's held transactions break their invariants";
        // the frontier logs of the keys collected as data are in the store the checkpoint's verifier wrote: without them a
        // read of such a key (its latest value, or its initial value) cannot be judged (docs/DESIGN.md §7.9)
        if (frontierRecords > 0 && !collected.hasFrontiers() && lostProof == null)
            lostProof = "resumed from the checkpoint of round " + this.incarnation.visibleThrough() + ", after " + frontierRecords + " frontier writes were collected as"
                    + " data, into a collected-writes store without their frontier logs (a replay, or a verifier without its --state-dir):"
                    + " reads of those keys cannot be judged";
    }

    // ---- frontier logs for others (docs/DESIGN.md §7.9): published with checkpoints, imported by a verifier without them

    /** From now on, remembers the keys whose frontier log changes ({@link #takeFrontierLogsToPublish}). */
    public void trackFrontierChanges() { collected.trackFrontierChanges(); }

    /** The frontier logs changed since the last call, as this verifier's timeline has them ({@link FrontierLog#publishable}). */
    public Map<String, List<CollectedWrites.FrontierEntry>> takeFrontierLogsToPublish() {
        Map<String, List<CollectedWrites.FrontierEntry>> out = new java.util.TreeMap<>();
        for (String key : collected.takeChangedFrontiers()) out.put(key, FrontierLog.publishable(collected.frontierLog(key), incarnation::visible));
        return out;
    }

    /** Records in the store that the checkpoint at {@code offset} was taken of it ({@link CollectedWrites#markCheckpoint}). */
    public void markCheckpoint(long offset) { collected.markCheckpoint(offset); }

    /** Whether the collected-writes store holds any frontier log. */
    public boolean hasFrontierLogs() { return collected.hasFrontiers(); }

    /** {@code key}'s frontier log as the store has it, oldest first (empty: none). */
    public List<CollectedWrites.FrontierEntry> frontierLog(String key) { return collected.frontierLog(key); }

    /**
     * Puts a published frontier log into the store (before {@link #restore}). Each of its entries that names a value is
     * the collected write of that value (fate {@code FRONTIER}, as the collection that logged it recorded it: the store
     * answers from the log, {@link CollectedWrites#get}): a read of that value then resolves as it does in the store the
     * log came from, and is judged the same way (current, or superseded by the log's later entry).
     */
    public void importFrontierLog(String key, List<CollectedWrites.FrontierEntry> log) { collected.importFrontierLog(key, log); }

    /** Every transaction retained, in the order it was admitted (for tests and checkpoints). */
    public Collection<Transaction> retained() { return Collections.unmodifiableList(held.retained()); }

    @Override
    public void close() { collected.close(); }
}
