package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.Collector;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.Barrier;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.analysis.IncrementalCheck;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.VerifierCore;

/**
 * Verification in rounds with garbage collection (paper §4), without I/O. Transactions are {@link #add}ed;
 * {@link #endRound} runs the round's steps ({@link RoundSteps}): it records their writes, admits what can be checked ({@link Admission}), plans
 * garbage collection ({@link CollectionPlanner}), checks the round's history against the collected past
 * ({@link IncrementalCheck}), judges reads of collected writes ({@link StaleReads}), and once the round's outcome is
 * final, collects ({@link Collector}). What it carries between rounds is one {@link VerifierState}: the held
 * transactions ({@link HeldTransactions}), the stale reads, the collected past ({@link CollectedPast}), the violations
 * ({@link Violations}), totals and sticky notes ({@link RoundLedger}); the collected writes live in {@link CollectedWrites} (on disk). The whole story of
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
    private final CollectedPast past = new CollectedPast();
    /** Transactions added to the open round, and their ids. */
    private final List<Transaction> incoming = new ArrayList<>();
    private final Set<String> incomingIds = new HashSet<>();
    /**
     * For transactions of a batch of rounds decided with one check ({@link #add(Transaction, long)}): the
     * round each arrived in, so that how long one waits for a write counts from its own round, as it would
     * if the rounds were decided one by one. Cleared when the round ends.
     */
    private final Map<String, Long> arrivedIn = new HashMap<>();
    /** Violations found this round and so far, and why verification stopped, if it did. */
    private final Violations violations;
    /** Transactions left unchecked (docs/DESIGN.md §7.6). */
    private final UncheckedTransactions unchecked = new UncheckedTransactions();
    /** Transactions checked in the last round with reads that never resolved (the last round checks them as they are). */
    private final Set<String> forced = new HashSet<>();
    /** Running totals, the last round's figures, and the sticky notes. */
    private final RoundLedger ledger = new RoundLedger();
    /** The round's steps, on the parts above. */
    private final RoundSteps steps;

    public IncrementalVerifier(RoundSettings settings, CollectedWrites collected) {
        this.settings = settings;
        this.violations = new Violations(settings.satisfied());
        this.collected = collected;
        this.planner = new CollectionPlanner(settings.pendingRoundsLimit());
        this.incarnation = new Incarnation(collected, held);
        this.check = new RoundCheck(settings.gc(), settings.gcRules(), held, stale, collected, planner, incarnation, forced, settings.level());
        this.steps = new RoundSteps(settings, collected, held, incarnation, check, stale, past, arrivedIn, violations, unchecked, forced, ledger);
    }

    public RoundSettings settings() { return settings; }

    /** Adds an arrived transaction to the current round; an id already retained or waiting is ignored (a duplicate). */
    public boolean add(Transaction t, long arrivedInRound) {
        if (!add(t)) return false;
        arrivedIn.put(t.getId(), arrivedInRound);
        return true;
    }

    /** The number the next {@link #endRound} will have. */
    public long nextRound() { return ledger.rounds; }

    public boolean add(Transaction t) {
        if (held.holds(t.getId()) || !incomingIds.add(t.getId())) {
            ledger.duplicates++;
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

    public long duplicates() { return ledger.duplicates; }

    public int retainedCount() { return held.retainedCount(); }

    /** The sessions of the transactions kept (retained or waiting). */
    public Set<String> sessionsHeld() { return held.sessions(); }

    public int pendingCount() { return held.waitingCount(); }

    public long collectedCount() { return ledger.collected; }

    /** Open constraints settled for good by garbage collection so far ({@link GarbageCollection#settled}). */
    public long settledCount() { return ledger.settled; }

    public long checkedCount() { return ledger.checked; }

    /**
     * Whether verification has stopped: after a violation none of whose transactions could be set aside (or too many in
     * one round), or after the state was dropped; every later round then says it was not checked.
     */
    public boolean stopped() { return violations.stoppedIn() != null || ledger.droppedState != null; }

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
    public long setAsideCount() { return ledger.setAside; }

    public long uncheckedReadsCount() { return ledger.uncheckedReads; }

    /**
     * Keys whose synthetic writer the checks left out as isolated (docs/DESIGN.md §7.9), summed over every check this
     * incarnation ran (a round that sets violations aside checks more than once): what the rule saves, for benchmarks.
     */
    public long isolatedKeysCount() { return check.isolatedKeys(); }

    /** Of {@link #isolatedKeysCount}, the keys isolated by the chain rule (docs/DESIGN.md §7.9, "Chains from a frontier value"). */
    public long chainedKeysCount() { return check.chainedKeys(); }

    /**
     * Violations found, below serializability, by checking a round without the sealed past's reads before its transactions
     * that do not follow the past are left unchecked (docs/DESIGN.md §7.11, Assumptions), summed over this incarnation's
     * checks: observability only, for benchmarks and tests.
     */
    public long violationsWithoutPastCount() { return check.violationsWithoutPast(); }

    /** Frontier writes collected as data so far, by this incarnation and those it resumed from (docs/DESIGN.md §7.9). */
    public long frontierRecordsCollected() { return ledger.frontierRecords; }

    /** The held transactions' writes collected while they stay, by transaction and key, with the writer that superseded each (for tests). */
    Map<String, Map<String, String>> collectedWritesOfStayingWriters() { return java.util.Collections.unmodifiableMap(held.supersededMarks()); }

    /** Counts {@code k} more rounds as passed (a batch of rounds decided with one check counts as all of them). */
    public void skipRounds(int k) { ledger.rounds += k; }

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
        List<Transaction> thisRound = new ArrayList<>(incoming);
        incoming.clear();
        incomingIds.clear();
        return steps.endRound(thisRound, oldEpochMax, ended, last);
    }

    // ---- the state as one value: snapshots (a batch decided again round by round) and checkpoints

    /**
     * A copy of the state, to {@link #restore(VerifierState)}. The collected-write store is not copied: a snapshot
     * may be restored only if no collection has happened since ({@link RoundResult#collectedNow} 0).
     */
    VerifierState snapshot() {
        return new VerifierState(held.copy(), stale.copy(), past.copy(), new HashMap<>(planner.endedSince()), new HashMap<>(planner.withoutFenceSince()),
                ledger.counters(violations, unchecked.total()), violations.stoppedIn(), ledger.droppedState,
                ledger.lostProof, new ArrayList<>(incoming));
    }

    /** Returns to a state taken by {@link #snapshot} (no collection may have happened since), or decoded from a checkpoint. */
    void restore(VerifierState s) {
        held.replaceWith(s.held());
        stale.replaceWith(s.stale());
        past.replaceWith(s.past());
        planner.restoreEndedSince(s.endedSince());
        planner.restoreWithoutFenceSince(s.withoutFenceSince());
        VerifierState.Counters n = s.counters();
        ledger.restore(n, s.droppedState(), s.lostProof());
        unchecked.restoreTotal(n.unchecked());
        violations.restore(n.violations(), n.firstViolationRound(), s.rejectedIn());
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
    public void inputLost(String why) { ledger.loseProof(why); }

    /** Sets the incarnation that collected writes are stamped with (the service's restart count). */
    public void incarnation(long n) {
        // a restart that resumes from no checkpoint rebuilds from the start: what earlier incarnations collected is not its own
        incarnation.start(n, ledger.rounds == 0 && held.isEmpty());
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
        steps.flushSetAside();
        collected.sync();
        incarnation.checkpointTaken(ledger.rounds - 1);
        service.setIsolation(settings.sealed() ? settings.level().longName() : null);
        return CheckpointCodec.encode(new VerifierState(held, stale, past, planner.endedSince(), planner.withoutFenceSince(), ledger.counters(violations, unchecked.total()), violations.stoppedIn(),
                ledger.droppedState, ledger.lostProof,
                List.of()), service);
    }


    /**
     * Replaces this (fresh) verifier's state by a checkpoint's, taken by {@code incarnation − 1} or earlier.
     * Collected writes stamped after the checkpoint's last round by an earlier incarnation are ignored from
     * now on; this one stamps its own with {@code incarnation}.
     */
    public void restore(RoundsCheckpoint c, long incarnation) {
        if (!held.isEmpty() || !incoming.isEmpty() || ledger.rounds != 0) throw new IllegalStateException("restore needs a fresh verifier");
        // a sealed past (below serializability, docs/DESIGN.md §7.11) and a barrier (§7.3) are different states of one store
        String made = c.core() == null || c.core().getIsolation() == null ? null : c.core().getIsolation().toString();
        String mine = settings.sealed() ? settings.level().longName() : null;
        if (!java.util.Objects.equals(made, mine))
            throw new IllegalArgumentException("the checkpoint was made checking " + (made == null ? "serializability" : made) + ", and this verifier checks "
                    + settings.level().longName() + ": resume it at that level, or start another verifier (its own id) at this one");
        VerifierState s = CheckpointCodec.decode(c, incarnation);
        restore(s);
        this.incarnation.resume(incarnation, ledger.rounds - 1);
        assert held.invariantsHold() : "the checkpoint's held transactions break their invariants";
        // the frontier logs of the keys collected as data are in the store the checkpoint's verifier wrote: without them a
        // read of such a key (its latest value, or its initial value) cannot be judged (docs/DESIGN.md §7.9)
        if (ledger.frontierRecords > 0 && !collected.hasFrontiers() && ledger.lostProof == null)
            ledger.lostProof = "resumed from the checkpoint of round " + this.incarnation.visibleThrough() + ", after " + ledger.frontierRecords + " frontier writes were collected as"
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
