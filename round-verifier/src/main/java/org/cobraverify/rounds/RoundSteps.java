package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.Collector;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.analysis.IncrementalCheck;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * The steps of one round of an {@link IncrementalVerifier}, in order (docs/DESIGN.md §7, whose table names each step's
 * unit): leave out what cannot be checked (steps 0–1, {@link #leaveOut}); admit what can (2, {@link #admit},
 * {@link Admission}); build, plan and check, setting a violation's transactions aside and checking again (3–4,
 * {@link RoundCheck}, {@link SetAside}); leave unchecked what does not follow the past, judge reads of collected writes,
 * find reads the baseline cannot judge (5); fix the outcome (6, {@link #decide}); and collect (7, {@link #collect}). It
 * works on the verifier's parts, which it shares: the held transactions, the stale reads, the collected past, the
 * violations, the ledger of totals and notes; it holds nothing of its own between rounds.
 */
final class RoundSteps {
    private final RoundSettings settings;
    private final CollectedWrites collected;
    private final HeldTransactions held;
    private final Incarnation incarnation;
    private final RoundCheck check;
    private final StaleReads stale;
    private final CollectedPast past;
    private final Map<String, Long> arrivedIn;
    private final Violations violations;
    private final UncheckedTransactions unchecked;
    private final Set<String> forced;
    private final RoundLedger ledger;

    RoundSteps(RoundSettings settings, CollectedWrites collected, HeldTransactions held, Incarnation incarnation, RoundCheck check, StaleReads stale,
               CollectedPast past, Map<String, Long> arrivedIn, Violations violations, UncheckedTransactions unchecked, Set<String> forced,
               RoundLedger ledger) {
        this.settings = settings;
        this.collected = collected;
        this.held = held;
        this.incarnation = incarnation;
        this.check = check;
        this.stale = stale;
        this.past = past;
        this.arrivedIn = arrivedIn;
        this.violations = violations;
        this.unchecked = unchecked;
        this.forced = forced;
        this.ledger = ledger;
    }

    /**
     * Ends a round of {@code thisRound} (the transactions added since the last): admits what can be checked, checks, and
     * collects garbage ({@link IncrementalVerifier#endRound(long, Predicate, boolean)}).
     */
    RoundResult endRound(List<Transaction> thisRound, long oldEpochMax, Predicate<String> ended, boolean last) {
        ledger.roundCpu0 = RoundClock.cpuNanos();
        ledger.roundCollector0 = RoundClock.collectorMillis();
        long roundNo = ledger.rounds++, firstRound = Math.min(ledger.batchStart, roundNo);
        ledger.batchStart = ledger.rounds;
        int batchRounds = (int) (roundNo - firstRound + 1);
        ledger.batchCounts = null; // set below once admission has run
        ledger.lastKept = null;
        unchecked.startRound();
        if (violations.stoppedIn() != null || ledger.droppedState != null) { arrivedIn.clear(); return afterTerminal(roundNo, thisRound); }
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
            // below serializability, a transaction set aside now may show another violation in its reads of collected writes,
            // judged only once its round accepts: reported with it, before those reads go (§7.11)
            if (settings.sealed())
                for (Certificate c : StaleReads.violationsOf(a.stale(), ids, settings.mayReadOld(), held::get)) {
                    if (violations.tooManyThisRound()) break;
                    violations.found(c);
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
                ledger.droppedState = "the heap ran out while checking round " + roundNo + " (" + (held.retainedCount() + admitted.size())
                        + " transactions retained and new)";
                dropState();
                return result(roundNo, Verdict.Outcome.UNKNOWN, ledger.droppedState + "; the state was dropped so that the verifier goes on",
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
        // below serializability, so is a reader whose read of a collected write the sealed past cannot judge: of a version it
        // left unordered, of an unknown-outcome writer it set aside, or, at read committed and read atomic, of a version it
        // superseded (§7.11)
        Map<String, String> unjudgeable = settings.sealed() ? UncheckedTransactions.unjudgeableReaders(a.stale(), index, inc, check.oldVersions()) : Map.of();
        Set<String> uncovered = new java.util.LinkedHashSet<>(UncheckedTransactions.uncovered(admitted, held, r.fromBarrier(), inc, index));
        uncovered.addAll(unjudgeable.keySet());
        if (!uncovered.isEmpty()) {
            leaveUnchecked(uncovered, unjudgeable, roundNo, admitted, staleNow);
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
        StaleReads.Judgement judged = stale.judge(a.stale(), index::get, inc, r.fromBarrier(), held::get, check.oldVersions());
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
        ledger.uncheckedReads += judged.unchecked();
        if (judged.unknown() != null) {
            ledger.lostProof = "round " + roundNo + ": " + judged.unknown();
            held.noteUnincluded(order, inc);
            return result(roundNo, Verdict.Outcome.UNKNOWN, ledger.lostProof, shown, thisRound, h.size(), t0, t1, t2, t2, 0, null);
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
        String gcNote = plan == null ? null : plan.skip() != null ? plan.skip() : r.gc() == null ? null
                : r.gc().skipped != null ? r.gc().skipped : r.gc().heldBack; // (below serializability: the first key not sealed, and why)
        int collectedNow = 0;
        ledger.lastSuperseded = r.gc() == null ? 0 : r.gc().superseded;
        ledger.lastKept = r.gc() == null || r.gc().skipped != null ? null : r.gc().kept;
        ledger.lastSettled = 0;
        ledger.lastOld = plan == null ? 0 : plan.oldCount();
        boolean batchFound = batchRounds > 1 && !violations.noneThisRound();
        if (!staleSetAside && !noCollection && !batchFound && plan != null && plan.skip() == null && r.gc() != null && r.gc().skipped == null)
            collectedNow = collect(a, inc, roundNo);
        long t3 = System.nanoTime();
        // why the retained set did not shrink, for whoever watches it grow (the retained-set alert)
        if (gcNote != null && collectedNow == 0 && !(held.retainedCount() == 0)) reason += "; nothing collected: " + gcNote;
        if (held.size() > settings.maxRetained()) {
            ledger.droppedState = "the verifier kept " + held.retainedCount() + " transactions after garbage collection in round " + roundNo
                    + ((held.waitingCount() == 0) ? "" : ", and " + held.waitingCount() + " waiting for writes,")
                    + " more than its bound of " + settings.maxRetained() + " (constraints no read resolves keep them alive)";
            dropState();
            outcome = Verdict.Outcome.UNKNOWN;
            reason = ledger.droppedState + "; the state was dropped so that the verifier goes on within its memory";
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
        Map<String, Map<String, CollectedWrites.Entry>> unfencedWrites = new HashMap<>();
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            if (!EpochRules.isUnfenced(t.getEpoch())) continue;
            it.remove();
            unchecked.leaveUnfenced(t, held, roundNo, incarnation.number(), unfencedWrites);
        }
        // a transaction waiting already for one of their writes resolves it now, as a read that goes unchecked (a reader
        // that arrives later finds the write among the set-aside ones at admission)
        if (!unfencedWrites.isEmpty()) held.loseReadsOf(unfencedWrites, stale);
        // 1. new writes become known (reads of collected writes are found when the new transactions are first admitted).
        // A transaction that writes a (key, value) a held transaction wrote, or writes one twice, breaks unique writes
        // (assumption A1): its reads cannot be tied to one writer, and the round's history could not even be built. It
        // is left out, and no later round can be accepted (the history is not the one checked); rejects still count.
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            String dup = held.recordWrites(t);
            if (dup == null) continue;
            it.remove();
            if (ledger.lostProof == null) ledger.lostProof = "round " + roundNo + ": " + dup + "; " + t.getId() + " was left out of the checked history";
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
        long checkedBefore = ledger.checked;
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
        ledger.batchCounts = arrival == null ? null : Admission.batchCounts(arrival, admission.level(), batchRounds, checkedBefore);
        List<StaleReads.StaleRead> staleNow = stale.takeAdmitted(admitted);
        ledger.checked += admitted.size();
        String pendingNote = null;
        boolean pendingTooLong = false;
        if (!(held.waitingCount() == 0)) {
            Transaction oldest = held.waiting().get(0);
            long waited = ledger.rounds - held.waitingSince().get(oldest.getId());
            pendingTooLong = waited >= settings.pendingRoundsLimit();
            pendingNote = pendingTooLong
                    ? held.waitingCount() + " transactions read writes that have not arrived after " + waited + " rounds (oldest: " + oldest.getId()
                      + " reads " + held.firstMissingRead(oldest) + (collected.horizonNote() == null ? "" : "; " + collected.horizonNote())
                      + "); the rest is " + settings.satisfied()
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
        String reason = settings.satisfied() + ": " + ledger.checked + " transactions";
        if (in.pendingNote() != null) {
            if (in.pendingTooLong()) { outcome = Verdict.Outcome.UNKNOWN; reason = in.pendingNote(); } else reason += "; " + in.pendingNote();
        }
        if (untestable != null && outcome == Verdict.Outcome.ACCEPT) { outcome = Verdict.Outcome.UNKNOWN; reason = untestable; }
        if (ledger.lostProof != null && outcome == Verdict.Outcome.ACCEPT) {
            outcome = Verdict.Outcome.UNKNOWN;
            reason = settings.satisfied() + " as far as it can be checked, but no round can be accepted since " + ledger.lostProof;
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
        if (settings.sealed()) reopen(h, r.gc(), r.fromBarrier(), roundNo);
        int collectedNow = gone.gone().size();
        ledger.frontierRecords += r.gc().frontierAsData.length;
        held.forget(gone.gone());
        if (settings.sealed()) held.waitingReadsOfCollected(incarnation::entries, stale); // no pins below serializability (§7.11)
        StayingWriters.collectMarkedWrites(h, r.gc(), roundNo, incarnation.number(), settings.gcRules() == GarbageCollection.Rules.CARELESS_MARKS,
                held, collected, stale);
        for (String id : gone.gone()) stale.forget(id);
        flushSetAside(); // no snapshot from before this collection can be restored now
        held.partlyRead(gone.partlyRead());
        for (String id : gone.knownCommitted()) held.knownCommitted(id);
        // (below serializability a retained reader's read of a collected write is the initial state's, or decided: §7.11)
        if (gone.lostProof() != null && ledger.lostProof == null && !settings.sealed()) ledger.lostProof = gone.lostProof();
        if (collectedNow > 0) ledger.collections++;
        ledger.collected += collectedNow;
        ledger.lastSettled = r.gc().settled;
        ledger.settled += ledger.lastSettled;
        collected.writeBehind(); // written while the next round arrives
        return collectedNow;
    }

    /**
     * Below serializability, after collection {@code gc} of {@code h} in round {@code roundNo} (docs/DESIGN.md §7.11, open
     * writers): a key sealed by a writer left open on it is sealed by choice; one sealed by a writer that follows the
     * collected past ({@code follows}; null: nothing was collected before) is sealed by fact again ({@link ChosenSeals}). Then
     * the open marks on the keys it sealed end, and its open writes are the new ones.
     */
    private void reopen(History h, org.cobraverify.gc.analysis.GarbageCollection gc, boolean[] follows, long roundNo) {
        if (gc.frontierOps.length == 0) return;
        Set<String> sealed = new java.util.HashSet<>();
        int t = 0;
        for (int op : gc.frontierOps) { // ascending: a cursor finds each one's transaction
            while (h.opEnd(t) <= op) t++;
            String k = org.cobraverify.schemas.protocol.WireNames.of(h.keyName(h.key(op)));
            sealed.add(k);
            if (held.openKeys(h.name(t)).contains(k)) held.chosen().choose(k, roundNo);
            else if (follows == null || follows[t]) held.chosen().settle(k);
        }
        Map<String, Set<String>> opened = new java.util.HashMap<>();
        t = 0;
        for (int op : gc.openOps) {
            while (h.opEnd(t) <= op) t++;
            opened.computeIfAbsent(h.name(t), x -> new java.util.HashSet<>()).add(org.cobraverify.schemas.protocol.WireNames.of(h.keyName(h.key(op))));
        }
        held.reopen(sealed, opened);
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
        while (true) {
            RoundCheck.Attempt a = check.attempt(admitted, staleNow, oldEpochMax, ended, options, retainedAlready, past, ledger.lostProof != null, ledger.rounds);
            if (a.frontier().unknowable() != null && ledger.lostProof == null) ledger.lostProof = "round " + roundNo + ": " + a.frontier().unknowable();
            if (a.uncovered().isEmpty()) return a;
            // below serializability: what joins without following the collected past is left unchecked before the check
            // (RoundCheck.attemptSealed), and the rest is built again
            leaveUnchecked(a.uncovered(), a.uncoveredWhy(), roundNo, admitted, staleNow);
        }
    }

    /**
     * Leaves {@code ids} (held) unchecked ({@link UncheckedTransactions#leaveUncovered}; {@code why}: those among them
     * left for a read the sealed past cannot judge, with why), with their reads of collected writes and their places in the round.
     */
    private void leaveUnchecked(Set<String> ids, Map<String, String> why, long roundNo, List<Transaction> admitted,
                                List<StaleReads.StaleRead> staleNow) {
        ledger.checked -= ids.size();
        ledger.uncheckedReads += unchecked.leaveUncovered(ids, why, held, past, stale, admitted, roundNo, incarnation.number());
        staleNow.removeIf(x -> ids.contains(x.reader().getId()));
        forced.removeAll(ids);
        check.forgetAdmission(); // their writes left the writer index
    }

    /** Moves the writes set aside since the last collection or checkpoint into the collected-write store. */
    void flushSetAside() {
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
        ledger.uncheckedReads += SetAside.apply(ids, held, stale, admitted, roundNo, incarnation.number(), past, uncontracted,
                id -> held.isRetained(id) && !fresh.contains(id));
        if (!uncontracted.isEmpty() && ledger.lostProof == null)
            ledger.lostProof = "round " + roundNo + ": " + uncontracted.get(0) + ", set aside after a violation, carried more than "
                    + CollectedPast.MAX_CONTRACTED_FACTS + " paths of the collected past; without them later rounds could miss a cycle";
        staleNow.removeIf(x -> ids.contains(x.reader().getId()));
        forced.removeAll(ids);
        ledger.setAside += ids.size();
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
        return result(roundNo, Verdict.Outcome.UNKNOWN, ledger.droppedState + " (round " + roundNo + " was not checked)", null, thisRound, 0, now, now, now, now, 0, null);
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
                ledger.checked, held.waitingCount(), hSize, held.retainedCount(), collectedNow, ledger.collected, t1 - t0, t2 - t1, t3 - t2, gcNote,
                ledger.lastSuperseded, ledger.lastOld, ledger.lastSettled, ledger.batchCounts, ledger.lastKept, found, violations.total(), violations.firstRound(), own,
                RoundClock.between(ledger.roundCpu0, RoundClock.cpuNanos()), RoundClock.between(ledger.roundCollector0, RoundClock.collectorMillis()),
                left, unchecked.total(), rest);
    }


    /** Retains the round's checked transactions; those checked with a read of no held writer lack it from now on. */
    private void retain(List<Transaction> admitted) {
        held.retain(admitted, id -> (!forced.isEmpty() && forced.contains(id)) || stale.readCollected(id));
    }

    /** After a reject (every later history contains it) or past the memory bound: nothing more is kept. */
    void dropState() {
        held.clear();
        stale.clear();
        past.clear();
    }
}
