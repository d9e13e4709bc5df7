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
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.CarriedFact;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
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
     * one by one would report (before any collection between them); null for a single round. {@code keptBy}: when
     * garbage collection analysed the round, how many transactions stayed for each {@link GarbageCollection.Kept}
     * reason (indexed by ordinal); null otherwise. {@code violations}: those this round found (each with its certificate;
     * {@code certificate} is the first), {@code violationsTotal} and {@code firstViolationRound}: the history's so far
     * (-1: none yet); {@code own}: what the round's own transactions came to (a reject when it found a violation), while
     * {@code outcome} is the verdict on the history as a whole, a reject from the first violation on (docs/DESIGN.md §7.10).
     * {@code unchecked}: the transactions this round left out of the checked history because nothing shows that they follow
     * the collected past (docs/DESIGN.md §7.6), and {@code uncheckedTotal} how many so far: an accept speaks of the rest.
     * {@code rest}: what the round's own transactions less its new violations' came to ({@code own} is a reject when it found one).
     */
    public record RoundResult(long round, Verdict.Outcome outcome, String reason, Certificate certificate, Verdict verdict, CheckStats stats,
                              int roundTxns, long checkedTxns, int pendingTxns, int historySize, int retained, int collectedNow,
                              long collectedTotal, long buildNanos, long checkNanos, long gcNanos, String gcNote, int superseded, int old,
                              int settled, long[][] batchCounts, int[] keptBy, List<Certificate> violations, long violationsTotal,
                              long firstViolationRound, Verdict.Outcome own, long cpuNanos, long collectorMillis, List<Unchecked> unchecked,
                              long uncheckedTotal, Verdict.Outcome rest) {
        public double millis() { return (buildNanos + checkNanos + gcNanos) / 1e6; }

        /** Whether the round's own transactions were verified, with no new violation (whatever the history had before). */
        public boolean clean() { return own == Verdict.Outcome.ACCEPT; }
    }

    private final Settings settings;
    private final CollectedWrites collected;
    private final CollectionPlanner planner;
    private HeldTransactions held = new HeldTransactions();
    private StaleReads stale = new StaleReads();
    private CollectedPast past = new CollectedPast();
    /** Key and value ids shared by the rounds' histories (derived: not part of the state, never checkpointed). */
    private final RoundIds ids = new RoundIds();
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
    /** See {@link #isolatedKeysCount} and {@link #chainedKeysCount}: observability only, not part of the state (a restart counts from 0). */
    private long isolatedKeys, chainedKeys;
    /** The first round of the open batch: the number {@link #nextRound} had when the last round ended. */
    private long batchStart;
    private int lastSuperseded, lastOld, lastSettled;
    /** The last round's {@link RoundResult#keptBy}. */
    private int[] lastKept;
    /** The last round's {@link RoundResult#batchCounts} (set by each {@link #endRound}). */
    private long[][] batchCounts;
    private String rejectedIn;   // why verification stopped after a violation (none could be set aside), with its round
    /** Violations found this round (each is set aside before the round's result is made). */
    private List<Certificate> roundViolations = List.of();
    /** Transactions left unchecked (docs/DESIGN.md §7.6). */
    private final UncheckedTransactions unchecked = new UncheckedTransactions();
    /** Violations found so far, the first one's round (-1: none), transactions set aside, reads of their writes left unchecked. */
    private long violationsTotal, firstViolationRound = -1, setAsideTotal, uncheckedReads;
    private String droppedState; // why the state was dropped (verdicts are unknown from then on)
    /**
     * Why no later round can be accepted: a round found a read it could not judge, or a transaction it could not
     * check against the collected past, and every later history contains it. Rejects are still found and reported.
     */
    private String lostProof;
    /** Transactions checked in the last round with reads that never resolved (the last round checks them as they are). */
    private final Set<String> forced = new HashSet<>();
    /**
     * What {@link Admission} found of this round's admitted transactions' reads (which have a held writer), reused by the
     * round's first history; emptied when a set-aside changes the writer index.
     */
    private Map<Transaction, boolean[]> admittedHeldReads = Map.of();
    /** The verifier's incarnation (how many times it restarted): collected writes carry it. */
    private long incarnation;
    /** After a restart from a checkpoint: the checkpoint's round. Collected writes of an earlier incarnation after it are ignored. */
    private long visibleThrough = Long.MAX_VALUE;
    /** The rounds of the last two checkpoints taken or resumed from (older, newer; -1: none): a restart resumes from one of them. */
    private long olderCheckpoint = -1, newerCheckpoint = -1;

    public IncrementalVerifier(Settings settings, CollectedWrites collected) {
        this.settings = settings;
        this.collected = collected;
        this.planner = new CollectionPlanner(settings.pendingRoundsLimit());
    }

    public Settings settings() { return settings; }

    /** Adds an arrived transaction to the current round; an id already retained or waiting is ignored (a duplicate). */
    public boolean add(Transaction t, long arrivedInRound) {
        if (!add(t)) return false;
        arrivedIn.put(t.getId(), arrivedInRound);
        return true;
    }

    /** The number the next {@link #endRound} will have. */
    public long nextRound() { return rounds; }

    public boolean add(Transaction t) {
        if (held.byId.containsKey(t.getId()) || !incomingIds.add(t.getId())) {
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

    public int retainedCount() { return held.retained.size(); }

    /** The sessions of the transactions kept (retained or waiting). */
    public Set<String> sessionsHeld() { return held.sessions(); }

    public int pendingCount() { return held.waiting.size(); }

    public long collectedCount() { return collectedTotal; }

    /** Open constraints settled for good by garbage collection so far ({@link GarbageCollection#settled}). */
    public long settledCount() { return settledTotal; }

    public long checkedCount() { return checkedTotal; }

    /**
     * Whether verification has stopped: after a violation none of whose transactions could be set aside (or too many in
     * one round), or after the state was dropped; every later round then says it was not checked.
     */
    public boolean stopped() { return rejectedIn != null || droppedState != null; }

    /** Violations found so far (each set aside, docs/DESIGN.md §7.10). */
    public long violationsCount() { return violationsTotal; }

    /**
     * Keys tainted by violations and not cleared yet (docs/DESIGN.md §7.10): remembered one by one, and in the overflow filter
     * (past {@link SetAside#MAX_TAINTED_KEYS}).
     */
    public long taintedKeysCount() { return held.taintedKeys.size(); }

    /** Of the tainted keys, those only in the overflow filter (reads of them stay untestable). */
    public long forgottenTaintedKeysCount() { return held.taintOverflow == null ? 0 : held.taintOverflow.keys(); }

    /** Transactions set aside after violations so far, and the reads of their writes left unchecked. */
    public long setAsideCount() { return setAsideTotal; }

    public long uncheckedReadsCount() { return uncheckedReads; }

    /**
     * Keys whose synthetic writer the checks left out as isolated (docs/DESIGN.md §7.9), summed over every check this
     * incarnation ran (a round that sets violations aside checks more than once): what the rule saves, for benchmarks.
     */
    public long isolatedKeysCount() { return isolatedKeys; }

    /** Of {@link #isolatedKeysCount}, the keys isolated by the chain rule (docs/DESIGN.md §7.9, "Chains from a frontier value"). */
    public long chainedKeysCount() { return chainedKeys; }

    /** Frontier writes collected as data so far, by this incarnation and those it resumed from (docs/DESIGN.md §7.9). */
    public long frontierRecordsCollected() { return frontierRecords; }

    /** The held transactions' writes collected while they stay, by transaction and key, with the writer that superseded each (for tests). */
    Map<String, Map<String, String>> collectedWritesOfStayingWriters() { return java.util.Collections.unmodifiableMap(held.supersededMarks); }

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
        if (rejectedIn != null || droppedState != null) { arrivedIn.clear(); return afterTerminal(roundNo, thisRound); }
        long t0 = System.nanoTime();
        // 0. a transaction that follows no fence of its session (EpochRules rule 5) is not checked: nothing could show that it
        // follows the collected past, and kept in the graph it would never be old (docs/DESIGN.md §7.6)
        for (Iterator<Transaction> it = thisRound.iterator(); it.hasNext(); ) {
            Transaction t = it.next();
            if (!EpochRules.isUnfenced(t.getEpoch())) continue;
            it.remove();
            unchecked.leaveUnfenced(t, held, roundNo, incarnation);
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
        // a waiting transaction's level: the round of the batch from which on it is there (those from before: the first)
        int waitedBefore = held.waiting.size();
        int[] arrival = batchRounds > 1 ? new int[waitedBefore + thisRound.size()] : null;
        for (Transaction t : thisRound) {
            long arrived = Math.min(roundNo, arrivedIn.getOrDefault(t.getId(), roundNo));
            if (arrival != null) arrival[held.waiting.size()] = (int) Math.max(0, arrived - firstRound);
            held.arrive(t, arrived);
        }
        arrivedIn.clear();
        long checkedBefore = checkedTotal;
        // 2. admit every waiting transaction whose reads all resolve (a stale read resolves to nothing: it is judged below)
        Admission admission = held.waiting.isEmpty() ? Admission.none()
                : Admission.of(held.waiting, arrival, waitedBefore, held, stale, this::collectedEntries);
        admittedHeldReads = admission.heldReads(); // until a set-aside changes the writer index
        List<Transaction> admitted = admission.admitted();
        held.stopWaiting(admitted);
        forced.clear();
        if (last && !held.waiting.isEmpty()) {
            for (Transaction t : held.waiting) forced.add(t.getId());
            admitted.addAll(held.takeAllWaiting());
        }
        batchCounts = arrival == null ? null : batchCounts(arrival, admission.level(), batchRounds, checkedBefore);
        List<StaleReads.StaleRead> staleNow = stale.takeAdmitted(admitted);
        checkedTotal += admitted.size();
        String pendingNote = null;
        boolean pendingTooLong = false;
        if (!held.waiting.isEmpty()) {
            Transaction oldest = held.waiting.get(0);
            long waited = rounds - held.waitingSince.get(oldest.getId());
            pendingTooLong = waited >= settings.pendingRoundsLimit();
            pendingNote = pendingTooLong
                    ? held.waiting.size() + " transactions read writes that have not arrived after " + waited + " rounds (oldest: " + oldest.getId()
                      + " reads " + held.firstMissingRead(oldest) + (collected.horizonNote() == null ? "" : "; " + collected.horizonNote())
                      + "); the rest is serializable"
                    : held.waiting.size() + " wait for writes not yet seen (oldest: " + oldest.getId() + " reads " + held.firstMissingRead(oldest) + ")";
        }
        // 3–4. the round's history (retained and admitted, in session order), garbage collection's plan, the check, and
        // what GC may take (on accept). A violation's transactions are set aside and the rest is checked again (and GC
        // planned again), until the check accepts (docs/DESIGN.md §7.10).
        roundViolations = new ArrayList<>();
        Attempt a = attempt(roundNo, admitted, staleNow, oldEpochMax, ended, settings.check(), false);
        long t1 = a.t1();
        Verdict first = a.r() == null ? null : a.r().verdict();
        while (a.failure() == null && a.r().verdict().outcome() == Verdict.Outcome.REJECT) {
            // the reject's violation, and those found with it (each with transactions of its own): all set aside at once
            List<Certificate> found = new ArrayList<>();
            found.add(a.r().verdict().certificate());
            found.addAll(a.r().moreViolations());
            Set<String> ids = new java.util.LinkedHashSet<>();
            for (Certificate c : found) {
                if (roundViolations.size() >= MAX_VIOLATIONS_PER_ROUND) break;
                Set<String> named = SetAside.of(c, held.byId);
                if (named.isEmpty()) continue;
                roundViolations.add(c);
                ids.addAll(named);
            }
            if (ids.isEmpty()) {
                roundViolations.add(found.get(0));
                return terminal(roundNo, "the violation names no transaction the verifier holds, so none can be set aside", first, thisRound, a.h().size(), t0, t1);
            }
            if (roundViolations.size() >= MAX_VIOLATIONS_PER_ROUND)
                return terminal(roundNo, "round " + roundNo + " holds at least " + MAX_VIOLATIONS_PER_ROUND + " violations (more than are set aside one by one)",
                        first, thisRound, a.h().size(), t0, t1);
            setAside(ids, roundNo, admitted, staleNow);
            CheckOptions left = remaining(settings.check(), t1);
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
                droppedState = "the heap ran out while checking round " + roundNo + " (" + (held.retained.size() + admitted.size())
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
        admittedHeldReads = Map.of();
        History h = a.h();
        List<Transaction> order = a.order();
        Map<String, Integer> index = a.index();
        CollectionPlanner.Plan plan = a.plan();
        IncrementalCheck.Result r = a.r();
        Verdict v = r.verdict();
        Verdict shown = roundViolations.isEmpty() ? v : first;
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
            uncheckedReads += unchecked.leaveUncovered(uncovered, held, past, stale, admitted, roundNo, incarnation);
            staleNow.removeIf(x -> uncovered.contains(x.reader().getId()));
            forced.removeAll(uncovered);
            Attempt again = checkAgain(roundNo, admitted, staleNow, oldEpochMax, ended, t1);
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
        StaleReads.Judgement judged = stale.judge(a.stale(), index::get, inc, r.fromBarrier(), held.byId::get);
        boolean staleSetAside = !judged.rejects().isEmpty();
        if (staleSetAside) {
            roundViolations.addAll(judged.rejects());
            setAside(new java.util.LinkedHashSet<>(judged.readers()), roundNo, admitted, staleNow);
            // checked again without them, so that garbage collection analyses the history it will collect from (the check
            // accepted with them, so it accepts without them unless the budget runs out)
            Attempt again = checkAgain(roundNo, admitted, staleNow, oldEpochMax, ended, t1);
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
        // a read the baseline leaves undecidable (§7.10) makes this round's own outcome unknown; garbage collection goes on.
        // Checked for the first time: the admitted transactions, and those of unknown outcome that the checked history left
        // out until now (nobody had read their writes) and includes from this round on (seed 1415324 of the differential)
        List<Transaction> firstChecked = admitted;
        if (!held.unincluded.isEmpty() && !held.taintedKeys.isEmpty()) {
            firstChecked = new ArrayList<>(admitted);
            for (String id : held.unincluded) {
                Integer i = index.get(id);
                Transaction t = held.byId.get(id);
                if (i != null && inc[i] && t != null) firstChecked.add(t);
            }
        }
        String untestable = SetAside.untestableRead(firstChecked, held, this::collectedEntry);
        held.noteUnincluded(order, inc);
        // 6. the outcome, final before anything is collected (a batch restores its snapshot unless it accepts, and a
        // snapshot may be restored only if nothing was collected since)
        Verdict.Outcome outcome = Verdict.Outcome.ACCEPT;
        String reason = "serializable" + (settings.check().strict() ? " (strictly)" : "") + ": " + checkedTotal + " transactions";
        if (pendingNote != null) {
            if (pendingTooLong) { outcome = Verdict.Outcome.UNKNOWN; reason = pendingNote; } else reason += "; " + pendingNote;
        }
        if (untestable != null && outcome == Verdict.Outcome.ACCEPT) { outcome = Verdict.Outcome.UNKNOWN; reason = untestable; }
        if (lostProof != null && outcome == Verdict.Outcome.ACCEPT) {
            outcome = Verdict.Outcome.UNKNOWN;
            reason = "serializable as far as it can be checked, but no round can be accepted since " + lostProof;
        }
        // 7. collect (not after stale readers were set aside: the analysis saw them; a violation the check found was set
        // aside before the check that GC analysed).
        String gcNote = plan == null ? null : plan.skip() != null ? plan.skip() : r.gc() != null ? r.gc().skipped : null;
        int collectedNow = 0;
        lastSuperseded = r.gc() == null ? 0 : r.gc().superseded;
        lastKept = r.gc() == null || r.gc().skipped != null ? null : r.gc().kept;
        lastSettled = 0;
        lastOld = plan == null ? 0 : plan.oldCount();
        boolean batchFound = batchRounds > 1 && !roundViolations.isEmpty();
        if (!staleSetAside && !noCollection && !batchFound && plan != null && plan.skip() == null && r.gc() != null && r.gc().skipped == null) {
            Set<String> cleared = SetAside.clearable(held, h, order, index, r.gc(), inc);
            Collector.Outcome gone = Collector.collect(h, order, plan, r.gc(), inc, collected, past, roundNo, incarnation, this::visible,
                    keepFrom(roundNo), a.frontier().chainKeys());
            for (String k : cleared) { held.taintedKeys.remove(k); held.taintedWriters.remove(k); }
            collectedNow = gone.gone().size();
            frontierRecords += r.gc().frontierAsData.length;
            held.forget(gone.gone());
            collectMarkedWrites(h, r.gc(), roundNo);
            for (String id : gone.gone()) stale.forget(id);
            flushSetAside(); // no snapshot from before this collection can be restored now
            held.partlyRead.addAll(gone.partlyRead());
            for (String id : gone.knownCommitted()) held.knownCommitted(id);
            if (gone.lostProof() != null && lostProof == null) lostProof = gone.lostProof();
            if (collectedNow > 0) collections++;
            collectedTotal += collectedNow;
            lastSettled = r.gc().settled;
            settledTotal += lastSettled;
            collected.writeBehind(); // written while the next round arrives
        }
        long t3 = System.nanoTime();
        // why the retained set did not shrink, for whoever watches it grow (the retained-set alert)
        if (gcNote != null && collectedNow == 0 && !held.retained.isEmpty()) reason += "; nothing collected: " + gcNote;
        if (held.size() > settings.maxRetained()) {
            droppedState = "the verifier kept " + held.retained.size() + " transactions after garbage collection in round " + roundNo
                    + (held.waiting.isEmpty() ? "" : ", and " + held.waiting.size() + " waiting for writes,")
                    + " more than its bound of " + settings.maxRetained() + " (constraints no read resolves keep them alive)";
            dropState();
            outcome = Verdict.Outcome.UNKNOWN;
            reason = droppedState + "; the state was dropped so that the verifier goes on within its memory";
        }
        return result(roundNo, outcome, reason, shown, thisRound, h.size(), t0, t1, t2, t3, collectedNow, gcNote);
    }

    /**
     * The round checked again with what its first check accepted less what was set aside since (the retained and
     * admitted transactions as they are now), within what is left of the budget since {@code t1}; null when that did not
     * accept (the budget ran out, or an internal error).
     */
    private Attempt checkAgain(long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax,
                               Predicate<String> ended, long t1) {
        CheckOptions left = remaining(settings.check(), t1);
        Attempt again = left == null ? null : attempt(roundNo, admitted, staleNow, oldEpochMax, ended, left, true);
        return again != null && again.failure() == null && again.r().verdict().outcome() == Verdict.Outcome.ACCEPT ? again : null;
    }

    /** Violations set aside in one round; past this many, verification stops (the database is broken wholesale). */
    static final int MAX_VIOLATIONS_PER_ROUND = 256;

    /**
     * One build and check of the round's history. {@code failure}: why the check did not run to a verdict (an internal
     * error, or the heap: {@code outOfMemory}); then {@code r} is null.
     */
    private record Attempt(List<Transaction> order, Map<String, Integer> index, History h, List<StaleReads.StaleRead> stale,
                           CollectionPlanner.Plan plan, IncrementalCheck.Result r, long t1, String failure, boolean outOfMemory, PastFrontier frontier) {}

    /**
     * Builds the round's history from the retained and {@code admitted} transactions ({@code retainedAlready}: those are
     * among the retained now), with the frontier records they
     * touch, plans garbage collection, and checks it against the collected past (analysing what GC may take, on accept).
     */
    private Attempt attempt(long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax, Predicate<String> ended,
                            CheckOptions check, boolean retainedAlready) {
        List<Transaction> all = new ArrayList<>(held.retained.size() + admitted.size());
        all.addAll(held.retained);
        if (!retainedAlready) all.addAll(admitted);
        List<Transaction> order = SessionOrder.of(all);
        // the operations' key and value ids, interned once per transaction, not once per round (RoundIds)
        int[][] opIds = ids.compile(order);
        int ops = 0;
        for (int[] x : opIds) ops += x.length / 2;
        HistoryBuilder hb = new HistoryBuilder(order.size() + order.size() / 2, ops + ops / 4, ids.keys(), ids.values()); // and the synthetic writers
        Map<String, Integer> index = hb.index(); // each transaction's place in the round's history, by id (the builder's own map)
        // the frontier records of the keys the round touches: each becomes a synthetic writer before the past (§7.9)
        boolean[][] heldReads = PastFrontier.heldReads(order, this::whole, held, admittedHeldReads);
        PastFrontier frontier = past.exists() && collected.hasFrontiers() ? PastFrontier.of(order, opIds, heldReads, ids, collected, held, this::visible,
                this::mayIsolate, t -> !stale.readCollected(t.getId()), t -> past.before().contains(t.getId())) : PastFrontier.NONE;
        if (frontier.unknowable() != null && lostProof == null) lostProof = "round " + roundNo + ": " + frontier.unknowable();
        isolatedKeys += frontier.isolatedCount();
        chainedKeys += frontier.chainKeys().length;
        History h = RoundHistory.build(hb, order, opIds, heldReads, frontier, held, past, stale, forced);
        Barrier barrier = past.exists() ? past.toBarrier(hb, index, frontier.writers(), frontier.edges(order, opIds, ids, admitted, held.unincluded, lostProof != null, held))
                : null;
        List<StaleReads.StaleRead> judgeable = frontier.judgeable(staleNow, ids);
        long t1 = System.nanoTime();
        CollectionPlanner.Plan plan = settings.gc() && oldEpochMax >= 0
                ? planner.plan(order, index, oldEpochMax, ended, rounds, held.waiting, held.waitingSince, held.unknownSince, held.byId, held.writers::get) : null;
        boolean[] oldAll = plan == null || plan.skip() != null ? null : frontier.old(plan.old(), h.size());
        boolean[] pinnedAll = plan == null || plan.skip() != null ? null : frontier.pinned(plan, h);
        try {
            IncrementalCheck.Result r = IncrementalCheck.run(h, check, barrier, oldAll, plan == null ? null : plan.entries(), pinnedAll, settings.gcRules(), order.size());
            return new Attempt(order, index, h, judgeable, plan, r, t1, null, false, frontier);
        } catch (RuntimeException e) {
            return new Attempt(order, index, h, judgeable, plan, null, t1, e.toString(), false, frontier);
        } catch (OutOfMemoryError e) {
            return new Attempt(order, index, null, judgeable, plan, null, t1, "the heap ran out", true, frontier);
        }
    }

    /**
     * Collects the superseded writes of old writers that stay ({@link GarbageCollection#markOps}; docs/DESIGN.md §7.9): each
     * goes to the collected-write store, superseded by the frontier writer that went as data, and leaves the writer index;
     * the held transactions that read it lack that read from then on (a retained one is partly read, its order after the
     * writer carried as a fact; a waiting one has it recorded as a read of a collected write, judged when it is admitted).
     */
    private void collectMarkedWrites(History h, GarbageCollection gc, long roundNo) {
        if (gc.markOps.length == 0) return;
        boolean careless = settings.gcRules() == GarbageCollection.Rules.CARELESS_MARKS;
        Map<String, Map<String, CollectedWrites.Entry>> gone = new HashMap<>();
        for (int i = 0; i < gc.markOps.length; i++) {
            int op = gc.markOps[i];
            Transaction w = held.byId.get(h.name(gc.markTxn[i]));
            String key = String.valueOf(h.keyName(h.key(op))), value = String.valueOf(h.valueName(h.value(op))), by = h.name(gc.markBy[i]);
            if (w == null || held.writers.get(key, value) != w) continue;
            if (careless) continue; // the write stays in the index and the histories: a later round takes it for the frontier
            // its last write of the key, superseded; any earlier one, intermediate (as the Collector records them)
            for (TxnOp o : w.getOps()) {
                if (!o.getWrite() || !o.getKey().equals(key) || held.writers.get(key, o.getValue()) != w) continue;
                CollectedWrites.Entry e = o.getValue().equals(value)
                        ? new CollectedWrites.Entry(w.getId(), by, CollectedWrites.Fate.SUPERSEDED, roundNo, incarnation)
                        : new CollectedWrites.Entry(w.getId(), null, CollectedWrites.Fate.INTERMEDIATE, roundNo, incarnation);
                collected.put(key, o.getValue(), e);
                held.writers.remove(key, o.getValue());
                gone.computeIfAbsent(key, k -> new HashMap<>()).put(o.getValue(), e);
            }
            held.markSuperseded(w.getId(), key, by);
        }
        if (!gone.isEmpty()) held.loseReadsOf(gone, stale);
    }

    /** Moves the writes set aside since the last collection or checkpoint into the collected-write store. */
    private void flushSetAside() {
        if (held.setAsideWrites.isEmpty()) return;
        for (Map.Entry<String, Map<String, CollectedWrites.Entry>> k : held.setAsideWrites.entrySet())
            for (Map.Entry<String, CollectedWrites.Entry> v : k.getValue().entrySet()) collected.put(k.getKey(), v.getKey(), v.getValue());
        held.setAsideWrites.clear();
    }

    /** {@code check} with what is left of its timeout since {@code since} (nanoTime); null when nothing is left. */
    private static CheckOptions remaining(CheckOptions check, long since) {
        if (check.timeoutSeconds() <= 0) return check;
        double left = check.timeoutSeconds() - (System.nanoTime() - since) / 1e9;
        return left <= 0.05 ? null : check.withTimeout(left);
    }

    /** Sets {@code ids} aside ({@link SetAside#apply}), with their reads of collected writes and their places in this round. */
    private void setAside(Set<String> ids, long roundNo, List<Transaction> admitted, List<StaleReads.StaleRead> staleNow) {
        admittedHeldReads = Map.of(); // their writes leave the writer index: admission's answers may be stale now
        List<String> uncontracted = new ArrayList<>();
        // only what a collection may have analysed (retained before this round) taints keys (docs/DESIGN.md §7.10)
        Set<String> fresh = new HashSet<>();
        for (Transaction t : admitted) fresh.add(t.getId());
        uncheckedReads += SetAside.apply(ids, held, stale, admitted, roundNo, incarnation, past, uncontracted,
                id -> held.retainedIds.contains(id) && !fresh.contains(id));
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
        rejectedIn = "round " + roundNo + ": " + why;
        dropState();
        long now = System.nanoTime();
        return result(roundNo, Verdict.Outcome.REJECT, "verification stops: " + why, shown, thisRound, hSize, t0, t1, now, now, 0, null);
    }

    private RoundResult afterTerminal(long roundNo, List<Transaction> thisRound) {
        roundViolations = List.of();
        long now = System.nanoTime();
        if (rejectedIn != null)
            return result(roundNo, Verdict.Outcome.UNKNOWN, "not checked: verification stopped in " + rejectedIn, null, thisRound, 0, now, now, now, now, 0, null);
        return result(roundNo, Verdict.Outcome.UNKNOWN, droppedState + " (round " + roundNo + " was not checked)", null, thisRound, 0, now, now, now, now, 0, null);
    }

    /**
     * The round's result. {@code own}, {@code ownReason}: what the round's own transactions came to; a round that found
     * violations ({@link #roundViolations}) is a reject of its own, and once the history has one, every round's outcome is a
     * reject (the history as a whole is not serializable) and its reason says what became of the round's own transactions.
     */
    private RoundResult result(long roundNo, Verdict.Outcome own, String ownReason, Verdict v, List<Transaction> thisRound, int hSize,
                               long t0, long t1, long t2, long t3, int collectedNow, String gcNote) {
        List<Certificate> found = List.copyOf(roundViolations);
        roundViolations = List.of();
        Verdict.Outcome rest = own;
        List<Unchecked> left = unchecked.takeRound();
        if (!left.isEmpty()) ownReason = ownReason + "; " + unchecked.note(left);
        if (!found.isEmpty()) {
            own = Verdict.Outcome.REJECT;
            if (violationsTotal == 0) firstViolationRound = roundNo;
            violationsTotal += found.size();
        }
        boolean violated = violationsTotal > 0 || rejectedIn != null;
        String reason = ownReason;
        if (!found.isEmpty()) {
            StringBuilder b = new StringBuilder();
            if (found.size() == 1) b.append(found.get(0).summary());
            else {
                b.append(found.size()).append(" violations: ");
                for (int i = 0; i < found.size(); i++) b.append(i == 0 ? "" : " | ").append(i + 1).append(". ").append(found.get(i).summary());
            }
            if (violationsTotal > found.size()) b.append(" (").append(historyNote()).append(")");
            b.append("; their transactions are set aside; the rest of the round: ").append(ownReason);
            reason = b.toString();
        } else if (violated) {
            reason = (own == Verdict.Outcome.ACCEPT ? "no new violation, this round's transactions verified: " : "no new violation found: ") + ownReason
                    + "; the history is not serializable (" + historyNote() + ")";
        }
        Certificate cert = found.isEmpty() ? null : found.get(0);
        return new RoundResult(roundNo, violated ? Verdict.Outcome.REJECT : own, reason, cert, v, v == null ? null : v.stats(), thisRound.size() + unchecked.arrivedUnfenced(),
                checkedTotal, held.waiting.size(), hSize, held.retained.size(), collectedNow, collectedTotal, t1 - t0, t2 - t1, t3 - t2, gcNote,
                lastSuperseded, lastOld, lastSettled, batchCounts, lastKept, found, violationsTotal, firstViolationRound, own,
                RoundClock.between(roundCpu0, RoundClock.cpuNanos()), RoundClock.between(roundCollector0, RoundClock.collectorMillis()),
                left, unchecked.total(), rest);
    }

    /** {@link RoundClock}'s readings when the round being ended began (observability only). */
    private long roundCpu0 = -1, roundCollector0 = -1;

    /** How many violations the history has had, and the first one's round. */
    private String historyNote() {
        if (violationsTotal == 0) return "a violation was found in " + rejectedIn;
        return violationsTotal + (violationsTotal == 1 ? " violation" : " violations") + " so far, the first in round " + firstViolationRound;
    }

    /**
     * Per round {@code i} of a batch: the checked-transaction total and the number waiting after it, had the rounds been
     * decided one by one. A waiting transaction is checked by round {@code i} when its level is at most {@code i}: its level
     * is the later of its arrival's and its writers' (a transaction admitted with the batch waits only on writers of
     * the batch, {@link Admission}); transactions still waiting, or checked as they are on the last round, count as
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

    /**
     * A collected write, unless an earlier incarnation collected it after the checkpoint this one resumed
     * from (that round is being decided again; its collection will be redone if it still holds).
     */
    private CollectedWrites.Entry collectedEntry(String key, String value) {
        CollectedWrites.Entry aside = held.setAsideWrite(key, value);
        if (aside != null) return aside;
        return visibleEntry(collected.get(key, value));
    }

    /** {@link #collectedEntry} of each pair ({@code keys[i]}, {@code values[i]}), the store's lookups batched. */
    private CollectedWrites.Entry[] collectedEntries(List<String> keys, List<String> values) {
        CollectedWrites.Entry[] out = new CollectedWrites.Entry[keys.size()];
        List<String> k = new ArrayList<>(), v = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            out[i] = held.setAsideWrite(keys.get(i), values.get(i));
            if (out[i] == null) { k.add(keys.get(i)); v.add(values.get(i)); at.add(i); }
        }
        CollectedWrites.Entry[] stored = k.isEmpty() ? new CollectedWrites.Entry[0] : collected.getAll(k, v);
        for (int j = 0; j < stored.length; j++) out[at.get(j)] = visibleEntry(stored[j]);
        return out;
    }

    /** A stored collected write as this incarnation may see it (null when {@link #collectedEntry} would ignore it). */
    private CollectedWrites.Entry visibleEntry(CollectedWrites.Entry e) {
        return e != null && e.incarnation() != incarnation && e.round() > visibleThrough ? null : e;
    }

    /** The round of the oldest checkpoint a restart may resume from; without one, {@code roundNo} (no restart can need older entries). */
    private long keepFrom(long roundNo) { return newerCheckpoint < 0 ? roundNo : olderCheckpoint < 0 ? newerCheckpoint : olderCheckpoint; }

    /** Whether this incarnation may see a frontier log entry (not one an earlier incarnation wrote after the checkpoint it resumed from). */
    private boolean visible(CollectedWrites.FrontierEntry e) { return e.incarnation() == incarnation || e.round() <= visibleThrough; }

    /**
     * Whether {@code t}'s read of a frontier value may leave its key isolated (no synthetic writer, docs/DESIGN.md §7.9):
     * committed or aborted (one of unknown outcome may join later), and not forced in the last round.
     */
    private boolean mayIsolate(Transaction t) {
        return (t.getStatus() == TxnStatus.COMMITTED || t.getStatus() == TxnStatus.ABORTED) && (forced.isEmpty() || !forced.contains(t.getId()));
    }

    /** A retained transaction not partly read, or one admitted now without a stale read: every read's writer is held. */
    private boolean whole(Transaction t) {
        return !held.partlyRead.contains(t.getId()) && (forced.isEmpty() || !forced.contains(t.getId())) && !stale.readCollected(t.getId());
    }

    // ---- the state as one value: snapshots (a batch decided again round by round) and checkpoints

    /**
     * A copy of the state, to {@link #restore(VerifierState)}. The collected-write store is not copied: a snapshot
     * may be restored only if no collection has happened since ({@link RoundResult#collectedNow} 0).
     */
    VerifierState snapshot() {
        return new VerifierState(held.copy(), stale.copy(), past.copy(), new HashMap<>(planner.endedSince()), new HashMap<>(planner.withoutFenceSince()),
                counters(), rejectedIn, droppedState,
                lostProof, new ArrayList<>(incoming));
    }

    private VerifierState.Counters counters() {
        return new VerifierState.Counters(rounds, checkedTotal, collectedTotal, settledTotal, collections, duplicates, frontierRecords,
                violationsTotal, firstViolationRound, setAsideTotal, uncheckedReads, unchecked.total());
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
        violationsTotal = n.violations(); firstViolationRound = n.firstViolationRound(); setAsideTotal = n.setAside(); uncheckedReads = n.uncheckedReads();
        unchecked.restoreTotal(n.unchecked());
        batchStart = rounds;
        rejectedIn = s.rejectedIn();
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
        this.incarnation = n;
        // a restart that resumes from no checkpoint rebuilds from the start: what earlier incarnations collected is not its own
        if (n > 0 && rounds == 0 && held.isEmpty()) visibleThrough = -1;
    }

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
        flushSetAside();
        collected.sync();
        olderCheckpoint = newerCheckpoint;
        newerCheckpoint = rounds - 1;
        return CheckpointCodec.encode(new VerifierState(held, stale, past, planner.endedSince(), planner.withoutFenceSince(), counters(), rejectedIn,
                droppedState, lostProof,
                List.of()), service);
    }

    /**
     * The state {@link #checkpoint} exports: held transactions in admission order, the carried facts, the
     * retained old transactions before the barrier (the three that grow with the retained set), and the rest.
     */
    public record Checkpoint(List<HeldTxn> held, List<CarriedFact> carried, List<String> barrierBefore, VerifierCore core) {}

    /**
     * Replaces this (fresh) verifier's state by a checkpoint's, taken by {@code incarnation − 1} or earlier.
     * Collected writes stamped after the checkpoint's last round by an earlier incarnation are ignored from
     * now on; this one stamps its own with {@code incarnation}.
     */
    public void restore(Checkpoint c, long incarnation) {
        if (!held.isEmpty() || !incoming.isEmpty() || rounds != 0) throw new IllegalStateException("restore needs a fresh verifier");
        VerifierState s = CheckpointCodec.decode(c, incarnation);
        this.incarnation = incarnation;
        restore(s);
        visibleThrough = rounds - 1;
        newerCheckpoint = visibleThrough;
        // the frontier logs of the keys collected as data are in the store the checkpoint's verifier wrote: without them a
        // read of such a key (its latest value, or its initial value) cannot be judged (docs/DESIGN.md §7.9)
        if (frontierRecords > 0 && !collected.hasFrontiers() && lostProof == null)
            lostProof = "resumed from the checkpoint of round " + visibleThrough + ", after " + frontierRecords + " frontier writes were collected as"
                    + " data, into a collected-writes store without their frontier logs (a replay, or a verifier without its --state-dir):"
                    + " reads of those keys cannot be judged";
    }

    // ---- frontier logs for others (docs/DESIGN.md §7.9): published with checkpoints, imported by a verifier without them

    /** From now on, remembers the keys whose frontier log changes ({@link #takeFrontierLogsToPublish}). */
    public void trackFrontierChanges() { collected.trackFrontierChanges(); }

    /** The frontier logs changed since the last call, as this verifier's timeline has them ({@link FrontierLog#publishable}). */
    public Map<String, List<CollectedWrites.FrontierEntry>> takeFrontierLogsToPublish() {
        Map<String, List<CollectedWrites.FrontierEntry>> out = new java.util.TreeMap<>();
        for (String key : collected.takeChangedFrontiers()) out.put(key, FrontierLog.publishable(collected.frontierLog(key), this::visible));
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
    public Collection<Transaction> retained() { return Collections.unmodifiableList(held.retained); }

    @Override
    public void close() { collected.close(); }
}
