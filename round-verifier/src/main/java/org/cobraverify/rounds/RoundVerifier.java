package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.report.TextReport;
import org.cobraverify.schemas.CarriedFact;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.UncheckedTxn;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * The verifier service's view of rounds, without I/O: transactions are {@link #add}ed as they arrive on
 * the rounds topic, {@link #closeRound} takes a {@link RoundEnd}, and {@link #decide} turns closed rounds
 * into {@link Verdict} records. The state is an {@link IncrementalVerifier}: rounds with garbage
 * collection, epochs from the topology's stamps ({@code epoch_agree − 2} is the last epoch GC may close),
 * collected writes on disk.
 *
 * <p>Invariant: the verdicts are those of deciding each round on its own, in order. A verifier that is
 * behind decides several rounds with one check: an accept of the last round's history is an accept of
 * every earlier one (each is read-from closed and contained in it); otherwise it returns to the state
 * before the batch and decides them one by one. The state is a function of the transactions and round
 * ends fed in, so replaying the same input rebuilds an equivalent state.
 *
 * <p>docs/DESIGN.md §6.4 (epochs in), §8.1–8.3 (batches, checkpoints, resuming).
 */
public final class RoundVerifier implements AutoCloseable {
    private final RoundSettings settings;
    private final IncrementalVerifier engine;
    private List<Transaction> round = new ArrayList<>();
    private final Set<String> roundIds = new HashSet<>();
    private long rounds, duplicates;

    public RoundVerifier(RoundSettings settings) { this(settings, null); }

    /** With {@code collected} null, collected writes go to RocksDB in a temporary directory (removed on {@link #close}). */
    public RoundVerifier(RoundSettings settings, CollectedWrites collected) {
        this.settings = settings;
        this.engine = new IncrementalVerifier(settings, collected != null ? collected : RocksDbCollectedWrites.temporary());
    }

    /** Adds an arrived transaction to the current round; an id seen in this round is ignored (counted as a duplicate). */
    public void add(Transaction t) {
        if (!roundIds.add(t.getId())) { duplicates++; return; }
        round.add(t);
    }

    /** Transactions in the checked history so far (every round's, less those still waiting). */
    public long checkedCount() { return engine.checkedCount(); }

    public int retainedCount() { return engine.retainedCount(); }

    /** See {@link IncrementalVerifier#isolatedKeysCount}. */
    public long isolatedKeysCount() { return engine.isolatedKeysCount(); }

    /** See {@link IncrementalVerifier#chainedKeysCount}. */
    public long chainedKeysCount() { return engine.chainedKeysCount(); }

    /** See {@link IncrementalVerifier#violationsWithoutPastCount}. */
    public long violationsWithoutPastCount() { return engine.violationsWithoutPastCount(); }

    public long duplicates() { return duplicates + engine.duplicates(); }

    /** Ends the round {@code end} describes and returns its verdict; {@code verify} false only advances the state (a replay). */
    public Verdict endRound(RoundEnd end, boolean verify) {
        Closed c = closeRound(end);
        if (!verify) { replay(List.of(c)); return null; }
        return decide(List.of(c)).get(0);
    }

    /** A round taken off the topic: its end marker, its number, its transactions, and the sessions retired as it ends. */
    public record Closed(RoundEnd end, long roundNo, List<Transaction> txns, Set<String> retired, Set<String> closedNow) {}

    /**
     * Sessions retired so far, by the round that retired them: RoundEnds (v2) carry changes, applied here in
     * order (revived, then retired). A session leaves this map once retired for {@code pendingRoundsLimit} rounds
     * with none of its transactions held: the map does not grow with the sessions that ever existed. (A v1
     * RoundEnd's full list replaces it.)
     */
    private final Map<String, Long> retiredSince = new HashMap<>();

    /** Ends the round {@code end} describes, without deciding it yet. */
    public Closed closeRound(RoundEnd end) {
        long no = rounds++;
        if (end != null) {
            if (!end.getRetiredSessions().isEmpty()) { // a v1 producer: the full list
                Set<String> all = new HashSet<>();
                for (CharSequence x : end.getRetiredSessions()) all.add(x.toString());
                retiredSince.keySet().retainAll(all);
                for (String x : all) retiredSince.putIfAbsent(x, no);
            }
            for (CharSequence x : end.getRevivedNow()) retiredSince.remove(x.toString());
            for (CharSequence x : end.getRetiredNow()) retiredSince.putIfAbsent(x.toString(), no);
            if (retiredSince.size() > 0 && no % 16 == 0) {
                Set<String> held = engine.sessionsHeld();
                for (Transaction t : round) held.add(t.getSession());
                retiredSince.entrySet().removeIf(e -> no - e.getValue() >= settings.pendingRoundsLimit() && !held.contains(e.getKey()));
            }
        }
        Set<String> closedNow = new HashSet<>();
        if (end != null) for (CharSequence x : end.getClosedNow()) closedNow.add(x.toString());
        Closed c = new Closed(end, no, round, Set.copyOf(retiredSince.keySet()), closedNow);
        round = new ArrayList<>();
        roundIds.clear();
        return c;
    }

    /** Feeds rounds decided before a restart (their verdicts are already published): one check for all of them. */
    public void replay(List<Closed> closed) {
        if (closed.isEmpty()) return;
        Closed lastReplayed = closed.get(closed.size() - 1);
        lastDecided = lastReplayed.end() != null ? lastReplayed.end().getRound() : lastReplayed.roundNo();
        Closed last = feed(closed);
        engine.endRound(oldEpochMax(last), retired(last)::contains);
    }

    /**
     * Adds a batch of rounds to the engine as one (each transaction with the round it arrived in, the sessions
     * closed in any of them), ready for one {@link IncrementalVerifier#endRound}; returns the last round.
     */
    private Closed feed(List<Closed> closed) {
        long base = engine.nextRound();
        for (int i = 0; i < closed.size(); i++) for (Transaction t : closed.get(i).txns()) engine.add(t, base + i);
        engine.skipRounds(closed.size() - 1);
        for (Closed c : closed) engine.sessionsClosed(c.closedNow());
        return closed.get(closed.size() - 1);
    }

    /** Decides rounds closed earlier, in order; one verdict per round. */
    public List<Verdict> decide(List<Closed> closed) {
        if (!closed.isEmpty()) {
            Closed last = closed.get(closed.size() - 1);
            lastDecided = last.end() != null ? last.end().getRound() : last.roundNo();
        }
        List<Verdict> out = new ArrayList<>(closed.size());
        if (closed.size() > 1) {
            VerifierState before = engine.snapshot();
            Closed last = feed(closed);
            RoundResult r = engine.endRound(oldEpochMax(last), retired(last)::contains);
            if (r.clean()) { // verified with no new violation (the history may have had some before: every round says so)
                long[][] counts = r.batchCounts();
                for (int i = 0; i < closed.size() - 1; i++) out.add(acceptedWith(closed.get(i), r, last.roundNo(), counts[i]));
                out.add(verdict(last, r));
                return out;
            }
            if (r.collectedNow() > 0) {
                // the check accepted and garbage was collected before the outcome turned unknown (a transaction waiting
                // too long, one the collected past does not cover, the retained bound): the state before the batch is
                // gone, so the batch is not decided again round by round; each round says unknown, which is never wrong
                // (or, with new violations in the batch, unknown for its own transactions: the violations are the last round's;
                // a reject of the history only if it had violations before the batch)
                long before0 = before.counters().violations();
                for (int i = 0; i < closed.size() - 1; i++) {
                    Verdict v = base(closed.get(i), before0 > 0 ? Outcome.REJECT : Outcome.UNKNOWN,
                            "decided with round " + last.roundNo() + ": " + r.reason(), r, null, true);
                    v.setViolations(before0);
                    v.setFirstViolationRound(before0 > 0 ? r.firstViolationRound() : -1);
                    v.setOwnOutcome(Outcome.UNKNOWN);
                    out.add(v);
                }
                out.add(verdict(last, r));
                return out;
            }
            engine.restore(before);
        }
        for (Closed c : closed) {
            for (Transaction t : c.txns()) engine.add(t);
            engine.sessionsClosed(c.closedNow());
            out.add(verdict(c, engine.endRound(oldEpochMax(c), retired(c)::contains)));
        }
        return out;
    }

    private static long oldEpochMax(Closed c) { return c.end() == null ? -1 : EpochRules.lastClosedEpoch(c.end().getEpochAgree()); }

    private static Set<String> retired(Closed c) { return c.retired(); }

    /** An earlier round of a batch whose last round was verified clean. */
    private Verdict acceptedWith(Closed c, RoundResult last, long lastRound, long[] counts) {
        String own = settings.satisfied() + ": " + counts[0]
                + " transactions (checked with round " + lastRound + ", whose history contains this one's)";
        Verdict v = last.violationsTotal() == 0 ? base(c, Outcome.ACCEPT, own, last, null, true)
                : base(c, Outcome.REJECT, "no new violation, this round's transactions verified: " + own + "; the history is not " + settings.satisfied().replace(" (strictly)", " strictly") + " ("
                       + last.violationsTotal() + " violation(s) so far, the first in round " + last.firstViolationRound() + ")", last, null, true);
        v.setOwnOutcome(Outcome.ACCEPT);
        v.setCheckedTxns(counts[0]);
        v.setPendingTxns(counts[1]);
        return v;
    }

    private Verdict verdict(Closed c, RoundResult r) {
        Outcome o = switch (r.outcome()) {
            case ACCEPT -> Outcome.ACCEPT;
            case REJECT -> Outcome.REJECT;
            case UNKNOWN -> Outcome.UNKNOWN;
        };
        List<org.cobraverify.schemas.Certificate> certs = new ArrayList<>();
        for (Certificate x : r.violations()) {
            String text = r.verdict() != null && r.verdict().certificate() == x
                    ? TextReport.render("round " + c.roundNo(), r.verdict(), r.historySize(), r.millis())
                    : "round " + c.roundNo() + ": REJECT: " + x.kind().displayName() + "\n" + TextReport.certificate(x);
            certs.add(toAvro(x, text));
        }
        int kept = fitting(certs);
        String reason = kept == certs.size() ? r.reason() : r.reason() + "; " + (certs.size() - kept) + " of the round's " + certs.size()
                + " certificates are left out of this record, which stays under Kafka's message size (the violations are counted; cobra"
                + " export and verify --all on the round's history give every certificate)";
        Verdict v = base(c, o, reason, r, certs.isEmpty() ? null : certs.get(0), false);
        v.setMoreCertificates(kept > 1 ? new ArrayList<>(certs.subList(1, kept)) : new ArrayList<>());
        v.setNewViolations(certs.size());
        return withUnchecked(v, r.unchecked());
    }

    /** At most this many characters of certificates go into one verdict: with the rest of it, under Kafka's 1 MB message. */
    static final int CERTIFICATE_CHARS = 600_000;

    /** How many of {@code certs}, in order, fit in {@link #CERTIFICATE_CHARS} (the first always does). */
    static int fitting(List<org.cobraverify.schemas.Certificate> certs) {
        long chars = 0;
        for (int i = 0; i < certs.size(); i++) {
            org.cobraverify.schemas.Certificate x = certs.get(i);
            long n = x.getText().length() + x.getSummary().length();
            for (CertTxn t : x.getTransactions()) n += t.getId().length() + t.getSession().length() + t.getOps().length();
            for (CycleEdge e : x.getCycle()) n += e.getFrom().length() + e.getTo().length() + e.getKind().length()
                    + (e.getKey() == null ? 0 : e.getKey().length()) + (e.getWhy() == null ? 0 : e.getWhy().length());
            if (i > 0 && (chars += n) > CERTIFICATE_CHARS) return i;
            if (i == 0) chars = n;
        }
        return certs.size();
    }

    private Verdict base(Closed c, Outcome o, String reason, RoundResult r, org.cobraverify.schemas.Certificate cert, boolean batched) {
        CheckStats s = batched ? null : r.stats();
        RoundEnd end = c.end();
        List<Transaction> txns = c.txns();
        return Verdict.newBuilder()
                .setRound(end != null ? end.getRound() : c.roundNo())
                .setOutcome(o)
                .setReason(reason)
                .setRoundTxns(txns.size())
                .setCheckedTxns(r.checkedTxns())
                .setPendingTxns(r.pendingTxns())
                .setFirstEpoch(end != null ? end.getFirstEpoch() : -1)
                .setLastEpoch(end != null ? end.getLastEpoch() : -1)
                .setFirstTxn(txns.isEmpty() ? null : txns.get(0).getId())
                .setLastTxn(txns.isEmpty() ? null : txns.get(txns.size() - 1).getId())
                .setConstraints(r.stats() == null ? 0 : r.stats().constraintsBefore)
                .setConstraintsAfterPruning(r.stats() == null ? 0 : r.stats().constraintsAfterPrune)
                .setBuildMs(batched ? 0 : r.buildNanos() / 1_000_000)
                .setConstructMs(s == null ? 0 : s.constructNanos / 1_000_000)
                .setPruneMs(s == null ? 0 : s.pruneNanos / 1_000_000)
                .setSolveMs(s == null ? 0 : s.solveNanos / 1_000_000)
                .setTotalMs(batched ? 0 : (long) r.millis())
                .setStrict(settings.check().strict())
                .setIsolation(settings.level().longName())
                .setCertificate(cert)
                .setVerifiedAt(System.currentTimeMillis())
                .setRoundCutAt(end != null ? end.getCutAt() : 0)
                .setRoundLatestEnd(txns.stream().mapToLong(Transaction::getEnd).max().orElse(0))
                .setRetainedTxns(r.retained())
                .setCollectedTxns(r.collectedTotal())
                .setGcMs(batched ? 0 : r.gcNanos() / 1_000_000)
                .setOwnOutcome(batched ? null : own(r.own()))
                .setViolations(r.violationsTotal())
                .setFirstViolationRound(r.firstViolationRound())
                .setMoreCertificates(new ArrayList<>()) // set, not defaulted: a default of records is built by reflection, which Avro allows only for trusted packages
                .setUnchecked(new ArrayList<>())
                .setUncheckedTxns(r.uncheckedTotal())
                .build();
    }

    /** Names in {@code v} the transactions the round left unchecked (at most {@link #UNCHECKED_LISTED}). */
    private static Verdict withUnchecked(Verdict v, List<Unchecked> unchecked) {
        List<UncheckedTxn> l = new ArrayList<>(Math.min(UNCHECKED_LISTED, unchecked.size()));
        for (Unchecked u : unchecked.subList(0, Math.min(UNCHECKED_LISTED, unchecked.size()))) l.add(new UncheckedTxn(u.id(), u.reason()));
        v.setUnchecked(l);
        v.setUncheckedNow(unchecked.size());
        return v;
    }

    /** How many unchecked transactions a verdict names (it counts them all). */
    static final int UNCHECKED_LISTED = 500;

    private static Outcome own(org.cobraverify.checker.Verdict.Outcome o) {
        return switch (o) {
            case ACCEPT -> Outcome.ACCEPT;
            case REJECT -> Outcome.REJECT;
            case UNKNOWN -> Outcome.UNKNOWN;
        };
    }

    static org.cobraverify.schemas.Certificate toAvro(Certificate c, String text) {
        List<CycleEdge> cycle = new ArrayList<>();
        for (Certificate.Edge e : c.cycle()) cycle.add(new CycleEdge(e.from(), e.to(), e.kind(), e.key(), e.derivedBecause()));
        List<CertTxn> txns = new ArrayList<>();
        for (Certificate.Txn t : c.transactions()) txns.add(new CertTxn(t.label(), t.session(), t.ops()));
        return org.cobraverify.schemas.Certificate.newBuilder().setAnomaly(c.kind().displayName()).setSummary(c.summary())
                .setCycle(cycle).setTransactions(txns).setText(text).build();
    }

    // ---- checkpoints (cobra.gc-frontiers)

    /** The last round decided (its RoundEnd's number), or -1. */
    private long lastDecided = -1;

    public long lastDecidedRound() { return lastDecided; }

    /** See {@link IncrementalVerifier#inputLost}. */
    public void inputLost(String why) { engine.inputLost(why); }

    /** Stamps collected writes with the service's restart count (see {@link IncrementalVerifier#restore}). */
    public void incarnation(long n) { engine.incarnation(n); }

    /**
     * The incarnation a replay restores with: none of the live verifier's (its restart counts), so that no entry of a
     * frontier log it imports passes for the replay's own (docs/DESIGN.md §7.9).
     */
    public static final long REPLAY_INCARNATION = Long.MAX_VALUE;

    /** The engine's frontier-log hooks ({@link IncrementalVerifier#trackFrontierChanges} and the rest). */
    public IncrementalVerifier engine() { return engine; }

    /**
     * The state after the last decided round, as checkpoint records: chunk 0 carries the core and the first
     * held transactions, each further chunk about {@code maxChunkBytes} of held transactions. Requires: no
     * transaction of the next round added yet on the engine's side (the service's open round is not part of
     * it: it lies after {@code inputOffset} and is read again on a restart).
     */
    public List<VerifierCheckpoint> checkpoint(String verifierId, long inputOffset, long epochAgree, int maxChunkBytes) {
        RoundsCheckpoint c = engine.checkpoint(VerifierCore.newBuilder().setServiceRounds(rounds).setServiceDuplicates(duplicates)
                .setRetiredSince(new HashMap<>(retiredSince)));
        return chunk(c, verifierId, lastDecided, inputOffset, epochAgree, maxChunkBytes);
    }

    /**
     * A verifier state as checkpoint records: the held transactions, then the carried facts, then the
     * barrier's old transactions, cut into chunks of about {@code maxChunkBytes} each; chunk 0 also
     * carries the core. {@link #unchunk} is the inverse.
     */
    static List<VerifierCheckpoint> chunk(RoundsCheckpoint c, String verifierId, long round, long inputOffset, long epochAgree, int maxChunkBytes) {
        List<VerifierCheckpoint> out = new ArrayList<>();
        VerifierCheckpoint cur = null;
        long bytes = Long.MAX_VALUE;
        int hi = 0, ci = 0, bi = 0;
        while (cur == null || hi < c.held().size() || ci < c.carried().size() || bi < c.barrierBefore().size()) {
            if (cur == null || bytes >= maxChunkBytes) {
                cur = VerifierCheckpoint.newBuilder().setVerifier(verifierId).setRound(round).setInputOffset(inputOffset).setEpochAgree(epochAgree)
                        .setChunk(out.size()).setChunks(0).setHeld(new ArrayList<>()).setCarried(new ArrayList<>()).setBarrierBefore(new ArrayList<>())
                        .setCore(out.isEmpty() ? c.core() : null).build();
                out.add(cur);
                bytes = 0;
            }
            if (hi < c.held().size()) {
                HeldTxn h = c.held().get(hi++);
                cur.getHeld().add(h);
                bytes += estimate(h.getTxn());
            }
            else if (ci < c.carried().size()) {
                CarriedFact f = c.carried().get(ci++);
                cur.getCarried().add(f);
                bytes += 16 + f.getSrc().length() + f.getDst().length() + (f.getKey() == null ? 0 : f.getKey().length());
            } else if (bi < c.barrierBefore().size()) {
                String id = c.barrierBefore().get(bi++);
                cur.getBarrierBefore().add(id);
                bytes += 4 + id.length();
            }
        }
        for (VerifierCheckpoint x : out) x.setChunks(out.size());
        return out;
    }

    private static long estimate(Transaction t) {
        long b = 48 + t.getId().length() + t.getSession().length();
        for (TxnOp o : t.getOps()) b += 8 + o.getKey().length() + (o.getValue() == null ? 0 : o.getValue().length());
        return b;
    }

    /**
     * Resumes from a checkpoint's records (every chunk of one checkpoint, any order) in a fresh verifier;
     * {@code incarnation}: the service's restart count. Throws {@link IllegalArgumentException} naming what
     * is missing when the chunks are not one whole checkpoint.
     */
    public void restore(List<VerifierCheckpoint> chunks, long incarnation) {
        RoundsCheckpoint c = unchunk(chunks);
        engine.restore(c, incarnation);
        rounds = c.core().getServiceRounds();
        duplicates = c.core().getServiceDuplicates();
        retiredSince.clear();
        retiredSince.putAll(c.core().getRetiredSince());
        lastDecided = chunks.get(0).getRound();
    }

    /** The state in a checkpoint's records (every chunk, any order); {@link IllegalArgumentException} naming what is missing. */
    static RoundsCheckpoint unchunk(List<VerifierCheckpoint> chunks) {
        if (chunks.isEmpty()) throw new IllegalArgumentException("no checkpoint records");
        VerifierCheckpoint[] byChunk = new VerifierCheckpoint[chunks.get(0).getChunks()];
        for (VerifierCheckpoint c : chunks) {
            if (c.getRound() != chunks.get(0).getRound() || c.getChunks() != byChunk.length || c.getChunk() < 0 || c.getChunk() >= byChunk.length)
                throw new IllegalArgumentException("checkpoint records of different checkpoints: round " + c.getRound() + " chunk " + c.getChunk() + "/"
                        + c.getChunks() + " with round " + chunks.get(0).getRound());
            byChunk[c.getChunk()] = c;
        }
        List<HeldTxn> held = new ArrayList<>();
        List<CarriedFact> carried = new ArrayList<>();
        List<String> before = new ArrayList<>();
        for (int i = 0; i < byChunk.length; i++) {
            if (byChunk[i] == null) throw new IllegalArgumentException("checkpoint of round " + chunks.get(0).getRound() + ": chunk " + i + " of " + byChunk.length + " is missing");
            held.addAll(byChunk[i].getHeld());
            carried.addAll(byChunk[i].getCarried());
            before.addAll(byChunk[i].getBarrierBefore());
        }
        VerifierCore core = byChunk[0].getCore();
        if (core == null) throw new IllegalArgumentException("checkpoint of round " + chunks.get(0).getRound() + ": chunk 0 has no core");
        return new RoundsCheckpoint(held, carried, before, core);
    }

    @Override
    public void close() { engine.close(); }
}
