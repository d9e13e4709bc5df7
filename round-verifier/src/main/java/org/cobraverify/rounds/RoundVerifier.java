package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.report.TextReport;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.Verdict;

/**
 * Verification in rounds, without I/O: transactions are {@link #add}ed as they arrive, and
 * {@link #endRound} decides the history so far and returns the round's verdict.
 *
 * <p>Invariant: the checked history is the largest set of arrived transactions closed under read-from
 * (every read in it observes the initial state or a write of a transaction in it). A transaction that
 * reads a write not yet arrived is held back (pending) until the writer arrives; this never causes a
 * false reject (a read-from-closed subset of a serializable history is serializable) and a violation
 * in the subset is a violation of the whole. A transaction pending for {@code pendingRoundsLimit}
 * rounds makes the verdict {@code UNKNOWN}, never {@code ACCEPT}. The state is a function of the
 * transactions and round ends fed in, so replaying the same input rebuilds it exactly.
 */
public final class RoundVerifier {
    /** Settings: the checker's options, and how many rounds a transaction may wait for a write before the verdict is unknown. */
    public record Settings(CheckOptions check, int pendingRoundsLimit) {
        public static Settings defaults() { return new Settings(CheckOptions.defaults().withTimeout(60), 20); }
    }

    private final Settings settings;
    private final Set<String> ids = new HashSet<>();
    private final Map<String, Transaction> writerOf = new HashMap<>(); // key \0 write id -> transaction
    private final List<Transaction> included = new ArrayList<>();
    private final Set<String> includedIds = new HashSet<>();
    private final List<Transaction> pending = new ArrayList<>();
    private final Map<String, Long> pendingSince = new HashMap<>();
    private List<Transaction> round = new ArrayList<>();
    private long rounds, duplicates;

    public RoundVerifier(Settings settings) { this.settings = settings; }

    /** Adds an arrived transaction to the current round; an id seen before is ignored (counted as a duplicate). */
    public void add(Transaction t) {
        if (!ids.add(t.getId())) {
            duplicates++;
            return;
        }
        for (TxnOp o : t.getOps()) if (o.getWrite()) writerOf.putIfAbsent(o.getKey() + '\0' + o.getValue(), t);
        round.add(t);
        pending.add(t);
        pendingSince.put(t.getId(), rounds);
    }

    public int checkedCount() { return included.size(); }

    public long duplicates() { return duplicates; }

    /**
     * Ends the round {@code end} describes: resolves pending reads, checks the read-from-closed history
     * so far, and returns the verdict. {@code verify} false only advances the state (a replay).
     */
    public Verdict endRound(RoundEnd end, boolean verify) {
        Closed c = closeRound(end);
        return verify ? decide(List.of(c)).get(0) : null;
    }

    /** What a round's verdict needs, taken when the round ends; {@link #decide} turns it into the verdict. */
    public record Closed(RoundEnd end, long roundNo, List<Transaction> txns, int included, int pending, String pendingNote,
                          boolean pendingTooLong) {}

    /** Ends the round {@code end} describes (resolving pending reads) without checking it yet. */
    public Closed closeRound(RoundEnd end) {
        resolvePending();
        List<Transaction> thisRound = round;
        round = new ArrayList<>();
        long roundNo = rounds++;
        String note = null;
        boolean tooLong = false;
        if (!pending.isEmpty()) {
            Transaction oldest = pending.get(0);
            long waited = rounds - pendingSince.get(oldest.getId());
            String missing = firstMissingRead(oldest);
            tooLong = waited >= settings.pendingRoundsLimit();
            note = tooLong ? pending.size() + " transactions read writes that have not arrived after " + waited + " rounds (oldest: "
                    + oldest.getId() + " reads " + missing + "); the rest is serializable"
                    : pending.size() + " wait for writes not yet seen (oldest: " + oldest.getId() + " reads " + missing + ")";
        }
        return new Closed(end, roundNo, thisRound, included.size(), pending.size(), note, tooLong);
    }

    /**
     * Decides rounds closed earlier, in order (a verifier catching up decides several at once), with one
     * check where it can: the checked history only grows from round to round (transactions are added,
     * none removed), and a read-from-closed subset of a serializable history is serializable, so an
     * accept of the last round is an accept of every earlier one. Otherwise each round is checked on the
     * prefix it had. Returns one verdict per round, in order.
     */
    public List<Verdict> decide(List<Closed> closed) {
        List<Verdict> out = new ArrayList<>(closed.size());
        Closed last = closed.get(closed.size() - 1);
        Checked lastChecked = check(last);
        Verdict lastVerdict = lastChecked.verdict();
        if (lastChecked.serializable()) {
            // the last round's history holds every earlier one's: serializable there, serializable here
            for (int i = 0; i < closed.size() - 1; i++) out.add(accepted(closed.get(i), lastVerdict, last.roundNo()));
            out.add(lastVerdict);
            return out;
        }
        Verdict firstReject = null;
        for (int i = 0; i < closed.size() - 1; i++) {
            Closed c = closed.get(i);
            Verdict v = firstReject != null ? stillRejected(c, firstReject) : check(c).verdict();
            if (firstReject == null && v.getOutcome() == Outcome.REJECT) firstReject = v;
            out.add(v);
        }
        out.add(lastVerdict);
        return out;
    }

    /** A round's verdict, and whether the checker found its history serializable (pending reads may still make it unknown). */
    private record Checked(Verdict verdict, boolean serializable) {}

    /** Checks the history as it stood when round {@code c} ended (the first {@code c.included} checked transactions). */
    private Checked check(Closed c) {
        long t0 = System.nanoTime();
        History h;
        try {
            h = build(c.included());
        } catch (IllegalArgumentException e) {
            return new Checked(verdict(c, Outcome.UNKNOWN, "the history cannot be built: " + e.getMessage(), null, null, t0, System.nanoTime(), 0), false);
        }
        long t1 = System.nanoTime();
        org.cobraverify.checker.Verdict v;
        try {
            v = Checker.check(h, settings.check());
        } catch (RuntimeException e) {
            // a checker bug must not take the service down, nor turn into an accept
            return new Checked(verdict(c, Outcome.UNKNOWN, "internal error in the checker (please report it with this round's history, cobra export): " + e,
                    null, null, t1, System.nanoTime(), t1 - t0), false);
        }
        Outcome outcome = switch (v.outcome()) {
            case ACCEPT -> Outcome.ACCEPT;
            case REJECT -> Outcome.REJECT;
            case UNKNOWN -> Outcome.UNKNOWN;
        };
        String reason;
        if (outcome == Outcome.REJECT) reason = v.certificate().summary();
        else if (outcome == Outcome.UNKNOWN) reason = v.unknownReason();
        else reason = "serializable" + (settings.check().strict() ? " (strictly)" : "") + ": " + h.size() + " transactions";
        if (outcome == Outcome.ACCEPT && c.pendingNote() != null) {
            if (c.pendingTooLong()) {
                outcome = Outcome.UNKNOWN;
                reason = c.pendingNote();
            } else reason += "; " + c.pendingNote();
        }
        Certificate cert = outcome == Outcome.REJECT ? v.certificate() : null;
        String text = cert == null ? null : TextReport.render("round " + c.roundNo(), v, h.size(), (System.nanoTime() - t1) / 1e6);
        return new Checked(verdict(c, outcome, reason, v.stats(), cert == null ? null : toAvro(cert, text), t1, System.nanoTime(), t1 - t0),
                v.outcome() == org.cobraverify.checker.Verdict.Outcome.ACCEPT);
    }

    /** An earlier round of a batch whose last round was accepted. */
    private Verdict accepted(Closed c, Verdict last, long lastRound) {
        Outcome o = Outcome.ACCEPT;
        String reason = "serializable" + (settings.check().strict() ? " (strictly)" : "") + ": " + c.included()
                + " transactions (checked with round " + lastRound + ", whose history contains this one's)";
        if (c.pendingNote() != null) {
            if (c.pendingTooLong()) { o = Outcome.UNKNOWN; reason = c.pendingNote(); } else reason += "; " + c.pendingNote();
        }
        Verdict v = verdict(c, o, reason, null, null, 0, 0, 0);
        v.setConstraints(last.getConstraints());
        v.setConstraintsAfterPruning(last.getConstraintsAfterPruning());
        return v;
    }

    /** A round after a rejected one in the same batch: its history contains the violation. */
    private Verdict stillRejected(Closed c, Verdict first) {
        return verdict(c, Outcome.REJECT, "still contains the violation found in round " + first.getRound() + ": " + first.getReason(), null,
                first.getCertificate(), 0, 0, 0);
    }

    private Verdict verdict(Closed c, Outcome o, String reason, CheckStats s, org.cobraverify.schemas.Certificate cert, long t0, long t1,
                            long buildNanos) {
        return verdict(c.end(), c.roundNo(), c.txns(), c.included(), c.pending(), o, reason, s, cert, t0, t1, buildNanos);
    }

    private Verdict verdict(RoundEnd end, long roundNo, List<Transaction> thisRound, int includedCount, int pendingCount, Outcome o,
                            String reason, CheckStats s, org.cobraverify.schemas.Certificate cert, long t0, long t1, long buildNanos) {
        return Verdict.newBuilder()
                .setRound(end != null ? end.getRound() : roundNo)
                .setOutcome(o)
                .setReason(reason)
                .setRoundTxns(thisRound.size())
                .setCheckedTxns(includedCount)
                .setPendingTxns(pendingCount)
                .setFirstEpoch(end != null ? end.getFirstEpoch() : -1)
                .setLastEpoch(end != null ? end.getLastEpoch() : -1)
                .setFirstTxn(thisRound.isEmpty() ? null : thisRound.get(0).getId())
                .setLastTxn(thisRound.isEmpty() ? null : thisRound.get(thisRound.size() - 1).getId())
                .setConstraints(s == null ? 0 : s.constraintsBefore)
                .setConstraintsAfterPruning(s == null ? 0 : s.constraintsAfterPrune)
                .setBuildMs(buildNanos / 1_000_000)
                .setConstructMs(s == null ? 0 : s.constructNanos / 1_000_000)
                .setPruneMs(s == null ? 0 : s.pruneNanos / 1_000_000)
                .setSolveMs(s == null ? 0 : s.solveNanos / 1_000_000)
                .setTotalMs((t1 - t0 + buildNanos) / 1_000_000)
                .setStrict(settings.check().strict())
                .setCertificate(cert)
                .setVerifiedAt(System.currentTimeMillis())
                .setRoundCutAt(end != null ? end.getCutAt() : 0)
                .setRoundLatestEnd(thisRound.stream().mapToLong(Transaction::getEnd).max().orElse(0))
                .build();
    }

    /** Moves pending transactions whose reads all come from checked transactions into the checked set, to a fixed point. */
    private void resolvePending() {
        boolean changed = true;
        while (changed && !pending.isEmpty()) {
            changed = false;
            List<Transaction> still = new ArrayList<>(pending.size());
            for (Transaction t : pending) {
                if (readsResolved(t)) {
                    included.add(t);
                    includedIds.add(t.getId());
                    pendingSince.remove(t.getId());
                    changed = true;
                } else still.add(t);
            }
            pending.clear();
            pending.addAll(still);
        }
    }

    private boolean readsResolved(Transaction t) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writerOf.get(o.getKey() + '\0' + o.getValue());
            if (w == null || (w != t && !includedIds.contains(w.getId()))) return false;
        }
        return true;
    }

    private String firstMissingRead(Transaction t) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writerOf.get(o.getKey() + '\0' + o.getValue());
            if (w == null) return o.getKey() + " = " + o.getValue() + ", which nobody has written yet";
            if (w != t && !includedIds.contains(w.getId())) return o.getKey() + " = " + o.getValue() + " from " + w.getId() + ", itself waiting";
        }
        return "?";
    }

    /** The first {@code count} checked transactions as a history, in {@link SessionOrder}. */
    private History build(int count) {
        List<Transaction> order = SessionOrder.of(included.subList(0, count));
        HistoryBuilder b = new HistoryBuilder();
        for (Transaction t : order) {
            byte st = t.getStatus() == TxnStatus.COMMITTED ? History.COMMITTED : t.getStatus() == TxnStatus.ABORTED ? History.ABORTED : History.UNKNOWN;
            b.begin(t.getId(), b.session(t.getSession()), st, t.getStart(), t.getEnd(), -1);
            for (TxnOp o : t.getOps()) {
                int k = b.key(o.getKey());
                if (o.getWrite()) b.write(k, b.value(o.getValue()));
                else b.read(k, o.getValue() == null ? History.NIL : b.value(o.getValue()));
            }
            b.end();
        }
        return b.build();
    }

    static org.cobraverify.schemas.Certificate toAvro(Certificate c, String text) {
        List<CycleEdge> cycle = new ArrayList<>();
        for (Certificate.Edge e : c.cycle()) cycle.add(new CycleEdge(e.from(), e.to(), e.kind(), e.key(), e.derivedBecause()));
        List<CertTxn> txns = new ArrayList<>();
        for (Certificate.Txn t : c.transactions()) txns.add(new CertTxn(t.label(), t.session(), t.ops()));
        return org.cobraverify.schemas.Certificate.newBuilder().setAnomaly(c.kind().title()).setSummary(c.summary())
                .setCycle(cycle).setTransactions(txns).setText(text).build();
    }
}
