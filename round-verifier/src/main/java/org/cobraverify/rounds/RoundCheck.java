package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.gc.analysis.Barrier;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.analysis.IncrementalCheck;
import org.cobraverify.gc.analysis.SealedPast;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * Steps 3–4 of a round (docs/DESIGN.md §7): the round's history built from the retained and admitted transactions in session
 * order, with a synthetic writer for each frontier record they touch ({@link PastFrontier}, §7.9) and the collected past as
 * a barrier; garbage collection's plan ({@link CollectionPlanner}); and the check against the past, analysing on accept
 * what garbage collection may take ({@link IncrementalCheck}). A round that sets violations aside runs this more than once.
 * It changes nothing it is given but its counters and the admission's answers it was told to forget.
 */
final class RoundCheck {
    /**
     * One build and check of the round's history. {@code failure}: why the check did not run to a verdict (an internal
     * error, or the heap: {@code outOfMemory}); then {@code r} is null.
     */
    record Attempt(List<Transaction> order, Map<String, Integer> index, History h, List<StaleReads.StaleRead> stale,
                   CollectionPlanner.Plan plan, IncrementalCheck.Result r, long t1, String failure, boolean outOfMemory, PastFrontier frontier,
                   Set<String> uncovered, Map<String, String> uncoveredWhy) {
        Attempt(List<Transaction> order, Map<String, Integer> index, History h, List<StaleReads.StaleRead> stale,
                CollectionPlanner.Plan plan, IncrementalCheck.Result r, long t1, String failure, boolean outOfMemory, PastFrontier frontier) {
            this(order, index, h, stale, plan, r, t1, failure, outOfMemory, frontier, Set.of(), Map.of());
        }

        /** Whether the check ran and accepted. */
        boolean accepted() { return failure == null && r.verdict().outcome() == Verdict.Outcome.ACCEPT; }
    }

    private final HeldTransactions held;
    private final StaleReads stale;
    private final CollectedWrites collected;
    private final CollectionPlanner planner;
    private final Incarnation incarnation;
    private final boolean gc;
    /** The level checked: serializability (and its strict variant) as §7.1–§7.10 say, any weaker one with the sealed past (§7.11). */
    private final IsolationLevel level;
    private final GarbageCollection.Rules rules;
    /** Key and value ids shared by the rounds' histories (derived: not part of the state, never checkpointed). */
    private final RoundIds ids = new RoundIds();
    /** Transactions checked in the last round with reads that never resolved (the verifier's: the last round checks them as they are). */
    private final Set<String> forced;
    /**
     * What {@link Admission} found of this round's admitted transactions' reads (which have a held writer), reused by the
     * round's first history; emptied when a set-aside changes the writer index.
     */
    private Map<Transaction, boolean[]> admittedHeldReads = Map.of();
    /** See {@link IncrementalVerifier#isolatedKeysCount}: observability only, not part of the state (a restart counts from 0). */
    private long isolatedKeys, chainedKeys;
    /** See {@link IncrementalVerifier#violationsWithoutPastCount}: observability only, as above. */
    private long violationsWithoutPast;

    RoundCheck(boolean gc, GarbageCollection.Rules rules, HeldTransactions held, StaleReads stale, CollectedWrites collected,
               CollectionPlanner planner, Incarnation incarnation, Set<String> forced, IsolationLevel level) {
        this.level = level;
        this.gc = gc;
        this.rules = rules;
        this.held = held;
        this.stale = stale;
        this.collected = collected;
        this.planner = planner;
        this.incarnation = incarnation;
        this.forced = forced;
    }

    /** Admission's answers for this round's admitted transactions, until {@link #forgetAdmission}. */
    void admission(Map<Transaction, boolean[]> heldReads) { admittedHeldReads = heldReads; }

    /** The writer index changed (a set-aside), or the round's first history was built: admission's answers are stale. */
    void forgetAdmission() { admittedHeldReads = Map.of(); }

    long isolatedKeys() { return isolatedKeys; }

    long chainedKeys() { return chainedKeys; }

    long violationsWithoutPast() { return violationsWithoutPast; }

    /**
     * Builds the round's history from the retained and {@code admitted} transactions ({@code retainedAlready}: those are
     * among the retained now), with the frontier records they touch, plans garbage collection ({@code oldEpochMax} negative:
     * none; {@code roundsEnded} counts this round), and checks it against {@code past}. {@code lost}: no round can be
     * accepted any more (the barrier then carries no edge that only an accept could justify); the frontier may find a new
     * reason ({@link PastFrontier#unknowable}), for the caller to record.
     */
    Attempt attempt(List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax, Predicate<String> ended,
                    CheckOptions check, boolean retainedAlready, CollectedPast past, boolean lost, long roundsEnded) {
        if (!level.implies(IsolationLevel.SERIALIZABLE))
            return attemptSealed(admitted, staleNow, oldEpochMax, ended, check, retainedAlready, past, roundsEnded);
        List<Transaction> order = order(admitted, retainedAlready);
        // the operations' key and value ids, interned once per transaction, not once per round (RoundIds)
        int[][] opIds = ids.compile(order);
        int ops = opCount(opIds);
        HistoryBuilder hb = new HistoryBuilder(order.size() + order.size() / 2, ops + ops / 4, ids.keys(), ids.values()); // and the synthetic writers
        Map<String, Integer> index = hb.index(); // each transaction's place in the round's history, by id (the builder's own map)
        // the frontier records of the keys the round touches: each becomes a synthetic writer before the past (§7.9)
        boolean[][] heldReads = PastFrontier.heldReads(order, this::whole, held, admittedHeldReads);
        PastFrontier frontier = past.exists() && collected.hasFrontiers() ? PastFrontier.of(order, opIds, heldReads, ids, collected, held, incarnation::visible,
                this::mayIsolate, t -> !stale.readCollected(t.getId()), t -> past.before().contains(t.getId())) : PastFrontier.NONE;
        lost |= frontier.unknowable() != null;
        isolatedKeys += frontier.isolatedCount();
        chainedKeys += frontier.chainKeys().length;
        History h = RoundHistory.build(hb, order, opIds, heldReads, frontier, held, past, stale, forced);
        Barrier barrier = past.exists() ? past.toBarrier(hb, index, frontier.writers(), frontier.edges(order, opIds, ids, admitted, held.unincluded(), lost, held))
                : null;
        List<StaleReads.StaleRead> judgeable = frontier.judgeable(staleNow, ids);
        long t1 = System.nanoTime();
        CollectionPlanner.Plan plan = gc && oldEpochMax >= 0
                ? planner.plan(order, index, oldEpochMax, ended, roundsEnded, held.waiting(), held.waitingSince(), held.unknownSince(), held::get, held::writerOf) : null;
        boolean[] oldAll = plan == null || plan.skip() != null ? null : frontier.old(plan.old(), h.size());
        boolean[] pinnedAll = plan == null || plan.skip() != null ? null : frontier.pinned(plan, h);
        try {
            IncrementalCheck.Result r = IncrementalCheck.run(h, check, barrier, oldAll, plan == null ? null : plan.entries(), pinnedAll, rules, order.size());
            return new Attempt(order, index, h, judgeable, plan, r, t1, null, false, frontier);
        } catch (RuntimeException e) {
            return new Attempt(order, index, h, judgeable, plan, null, t1, e.toString(), false, frontier);
        } catch (OutOfMemoryError e) {
            return new Attempt(order, index, null, judgeable, plan, null, t1, "the heap ran out", true, frontier);
        }
    }

    /**
     * {@link #attempt} below serializability (docs/DESIGN.md §7.11): the round's history with the sealed past as its initial
     * state ({@link SealedRoundHistory}), checked at the level; on accept, {@link SealedPast} says what follows the past and
     * what may be sealed into it.
     */
    private Attempt attemptSealed(List<Transaction> admitted, List<StaleReads.StaleRead> staleNow, long oldEpochMax, Predicate<String> ended,
                                  CheckOptions check, boolean retainedAlready, CollectedPast past, long roundsEnded) {
        List<Transaction> order = order(admitted, retainedAlready);
        int[][] opIds = ids.compile(order);
        int ops = opCount(opIds);
        HistoryBuilder hb = new HistoryBuilder(order.size(), ops, ids.keys(), ids.values());
        Map<String, Integer> index = hb.index();
        boolean[][] heldReads = PastFrontier.heldReads(order, this::whole, held, admittedHeldReads);
        Set<String> admittedIds = new java.util.HashSet<>(admitted.size() * 2);
        for (Transaction t : admitted) admittedIds.add(t.getId());
        SealedRoundHistory s = SealedRoundHistory.build(hb, ids, order, opIds, heldReads, admittedIds, staleNow, forced, past.exists(), collected,
                incarnation::visible, held::acknowledged, held.chosen()::chosen);
        History h = s.history();
        long t1 = System.nanoTime();
        CollectionPlanner.Plan plan = gc && oldEpochMax >= 0
                ? planner.plan(order, index, oldEpochMax, ended, roundsEnded, held.waiting(), held.waitingSince(), held.unknownSince(), held::get, held::writerOf) : null;
        PastFrontier frontier = PastFrontier.sealed(s.unknowable());
        try {
            SealedPast.Round prepared = SealedPast.prepare(h);
            boolean[] included = prepared.included();
            // a read of a superseded version by a reader that saw its superseder is a violation the sealed past decides,
            // whether the reader follows the past or not: reported before the check, its reader set aside as any (§7.11)
            StaleReads.OldVersions old = oldVersions();
            if (old != null) {
                StaleReads.Judgement decided = StaleReads.supersederViolations(s.judgeable(), id -> {
                    Integer i = index.get(id);
                    return i != null && included[i];
                }, old);
                if (!decided.rejects().isEmpty()) {
                    Verdict v = new Verdict(Verdict.Outcome.REJECT, decided.reject(), null, null, new org.cobraverify.checker.CheckStats(), List.of());
                    return new Attempt(order, index, h, s.judgeable(), plan,
                            new IncrementalCheck.Result(v, null, null, null, decided.rejects().subList(1, decided.rejects().size())), t1, null, false, frontier);
                }
            }
            int[] pastFences = null;
            if (past.exists()) {
                List<Integer> f = new ArrayList<>();
                for (String id : past.after()) { Integer i = index.get(id); if (i != null) f.add(i); }
                pastFences = f.stream().mapToInt(Integer::intValue).toArray();
                // a transaction that joins without following the past (A3) would be checked against an initial state that
                // need not precede it, and could be rejected for it: it is left unchecked before the check (§7.11); so is a
                // reader of a sealed version that a writer left open on the key may precede (condition 4's open writers)
                Set<String> uncovered = new java.util.LinkedHashSet<>(UncheckedTransactions.uncovered(admitted, held, prepared.follows(pastFences), included, index));
                Map<String, String> openWhy = rules == GarbageCollection.Rules.CARELESS_OPEN_READERS ? Map.of() : readersAfterOpen(prepared, h, order, index, included);
                uncovered.addAll(openWhy.keySet());
                if (!uncovered.isEmpty()) {
                    // a violation among them is still one of the whole history when it needs nothing of the past: the round
                    // without every read the past decides is checked first, and its violations are set aside as any (§7.11)
                    if (rules != GarbageCollection.Rules.CARELESS_UNCOVERED) {
                        History withoutPast = SealedRoundHistory.build(new HistoryBuilder(order.size(), ops, ids.keys(), ids.values()), ids, order, opIds,
                                heldReads, admittedIds, staleNow, forced, true, collected, incarnation::visible, held::acknowledged, held.chosen()::chosen, true).history();
                        Verdict v = Isolation.check(withoutPast, level, check);
                        if (v.outcome() == Verdict.Outcome.REJECT) {
                            violationsWithoutPast += 1 + v.moreViolations().size();
                            // (no read of the past with it: its readers need not follow the past, so none is judged now)
                            return new Attempt(order, index, withoutPast, List.of(), plan,
                                    new IncrementalCheck.Result(v, null, null, null, v.moreViolations()), t1, null, false, frontier);
                        }
                    }
                    return new Attempt(order, index, h, s.judgeable(), plan, null, t1, null, false, frontier, uncovered, openWhy);
                }
            }
            Verdict v = Isolation.check(h, level, check);
            if (v.outcome() != Verdict.Outcome.ACCEPT) return new Attempt(order, index, h, s.judgeable(), plan, new IncrementalCheck.Result(v, null, null, null, v.moreViolations()),
                    t1, null, false, frontier);
            boolean planned = plan != null && plan.skip() == null;
            SealedPast.Result r = SealedPast.analyze(prepared, pastFences, planned ? plan.old() : null, planned ? plan.pinned() : null,
                    planned ? plan.entries() : null, v.witness(), premise(), planned ? waitsBefore(order, index) : null,
                    rules != GarbageCollection.Rules.OPEN_WRITERS_HELD);
            return new Attempt(order, index, h, s.judgeable(), plan, new IncrementalCheck.Result(v, r.gc(), r.follows(), included, List.of()), t1, null, false,
                    frontier);
        } catch (RuntimeException e) {
            return new Attempt(order, index, h, s.judgeable(), plan, null, t1, e.toString(), false, frontier);
        } catch (OutOfMemoryError e) {
            return new Attempt(order, index, null, s.judgeable(), plan, null, t1, "the heap ran out", true, frontier);
        }
    }

    /** What the level's premise may draw on before a reader, for the sealed past ({@link SealedPast.Premise}). */
    private SealedPast.Premise premise() {
        return level == IsolationLevel.SNAPSHOT_ISOLATION ? SealedPast.Premise.SNAPSHOT
                : level == IsolationLevel.CAUSAL ? SealedPast.Premise.CAUSAL : SealedPast.Premise.DIRECT;
    }

    /**
     * Condition 4's open writers (docs/DESIGN.md §7.11): the included transactions of the round's history {@code h} that read a
     * key's sealed version (its initial state here) while a retained writer left open on the key may precede them under the
     * level's premise ({@link SealedPast.Round#readersAfterOpen}), each with why it is left unchecked: the order of that
     * writer and the sealed version's is one the collected past does not keep.
     */
    private Map<String, String> readersAfterOpen(SealedPast.Round prepared, History h, List<Transaction> order, Map<String, Integer> index, boolean[] included) {
        if (!held.hasOpen()) return Map.of();
        org.cobraverify.history.IntVec txn = new org.cobraverify.history.IntVec(16), key = new org.cobraverify.history.IntVec(16);
        List<String> keyText = new ArrayList<>();
        for (Transaction t : order) {
            Set<String> open = held.openKeys(t.getId());
            Integer w = open.isEmpty() ? null : index.get(t.getId());
            if (w == null) continue;
            int[] x = ids.compiled(t);
            List<TxnOp> ops = t.getOps();
            Set<String> added = new java.util.HashSet<>();
            for (int j = 0; j < ops.size(); j++) {
                String k = ops.get(j).getKey();
                if (!ops.get(j).getWrite() || !open.contains(k) || !added.add(k)) continue;
                txn.add(w);
                key.add(x[2 * j]);
                keyText.add(k);
            }
        }
        if (txn.size() == 0) return Map.of();
        int[] by = prepared.readersAfterOpen(txn.toArray(), key.toArray(), premise());
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (int t = 0; t < by.length; t++) {
            if (by[t] < 0 || !included[t]) continue;
            String w = h.name(txn.get(by[t])), k = org.cobraverify.gc.WireText.shown(keyText.get(by[t]));
            out.put(h.name(t), "it read " + k + "'s latest collected version, and " + w + ", which wrote " + k + " and stays, may precede it at "
                    + level.longName() + ", while the writer of that version does not reach " + w + ": whether " + w + "'s write came before"
                    + " that version depends on an order the collected past does not keep (docs/DESIGN.md §7.11, open writers)");
        }
        return out;
    }

    /**
     * How the level judges a read of a version the sealed past superseded ({@link StaleReads.OldVersions}): null where every
     * such read by a reader that follows the past is a violation (causal and above), else by what the reader saw of the
     * superseding writer, looked up with {@link #writerOf}.
     */
    StaleReads.OldVersions oldVersions() {
        if (level.implies(IsolationLevel.CAUSAL)) return null;
        return new StaleReads.OldVersions(level.longName(), !level.implies(IsolationLevel.READ_ATOMIC), this::writerOf);
    }

    /**
     * The transaction whose final write read {@code o} observed, as this incarnation knows it: a held writer, a collected
     * write's (not an aborted, intermediate or set-aside one), or the key's frontier record's; null when none is known.
     */
    private String writerOf(TxnOp o) {
        if (o.getWrite() || o.getValue() == null) return null;
        Transaction w = held.writerOf(o.getKey(), o.getValue());
        if (w != null) {
            String last = null; // (its final write of the key: a read of an earlier one is no read-from)
            for (TxnOp x : w.getOps()) if (x.getWrite() && x.getKey().equals(o.getKey())) last = x.getValue();
            return o.getValue().equals(last) ? w.getId() : null;
        }
        CollectedWrites.Entry e = incarnation.entry(o.getKey(), o.getValue());
        if (e != null) {
            CollectedWrites.Fate f = e.fate();
            return f == CollectedWrites.Fate.ABORTED || f == CollectedWrites.Fate.INTERMEDIATE || f == CollectedWrites.Fate.SET_ASIDE ? null : e.writer();
        }
        for (CollectedWrites.FrontierEntry f : collected.frontierLog(o.getKey()))
            if (f != null && incarnation.visible(f) && o.getValue().equals(f.value())) return f.writer();
        return null;
    }

    /**
     * Per transaction of the round's history ({@code index}): whether one before it in its session is waiting (not in the
     * history: its reads have not all resolved), so that the sealed past decides none of its reads of older versions
     * (docs/DESIGN.md §7.11, condition 4); null when none waits.
     */
    private boolean[] waitsBefore(List<Transaction> order, Map<String, Integer> index) {
        if (held.waitingCount() == 0) return null;
        Map<String, Long> firstWaiting = new java.util.HashMap<>();
        for (Transaction w : held.waiting()) firstWaiting.merge(w.getSession(), w.getSessionIndex(), Math::min);
        boolean[] out = new boolean[index.size()];
        for (Transaction t : order) {
            Long first = firstWaiting.get(t.getSession());
            Integer i = index.get(t.getId());
            if (first != null && i != null && t.getSessionIndex() > first) out[i] = true;
        }
        return out;
    }

    /** The round's transactions in session order: the retained ones and, unless they are among them already, {@code admitted}. */
    private List<Transaction> order(List<Transaction> admitted, boolean retainedAlready) {
        List<Transaction> all = new ArrayList<>(held.retainedCount() + admitted.size());
        all.addAll(held.retained());
        if (!retainedAlready) all.addAll(admitted);
        return SessionOrder.of(all);
    }

    private static int opCount(int[][] opIds) {
        int ops = 0;
        for (int[] x : opIds) ops += x.length / 2;
        return ops;
    }

    /** {@code check} with what is left of its timeout since {@code since} (nanoTime); null when nothing is left. */
    static CheckOptions remaining(CheckOptions check, long since) {
        if (check.timeoutSeconds() <= 0) return check;
        double left = check.timeoutSeconds() - (System.nanoTime() - since) / 1e9;
        return left <= 0.05 ? null : check.withTimeout(left);
    }

    /**
     * Whether {@code t}'s read of a frontier value may leave its key isolated (no synthetic writer, docs/DESIGN.md §7.9):
     * committed or aborted (one of unknown outcome may join later), and not forced in the last round.
     */
    private boolean mayIsolate(Transaction t) {
        return (t.getStatus() == TxnStatus.COMMITTED || t.getStatus() == TxnStatus.ABORTED) && (forced.isEmpty() || !forced.contains(t.getId()));
    }

    /** A retained transaction not partly read, or one admitted now without a stale read: every read's writer is held. */
    private boolean whole(Transaction t) {
        return !held.isPartlyRead(t.getId()) && (forced.isEmpty() || !forced.contains(t.getId())) && !stale.readCollected(t.getId());
    }
}
