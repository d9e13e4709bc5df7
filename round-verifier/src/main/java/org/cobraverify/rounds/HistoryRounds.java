package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.protocol.WireNames;

/**
 * Verification of a whole history in rounds, with the same {@link IncrementalVerifier} the service
 * runs: the history's transactions get epochs from its fences ({@link EpochAssigner}), are delivered in
 * epoch order (input order within an epoch), and are cut into rounds of at least {@code roundSize}
 * transactions on epoch boundaries (a history without fences: by size, in input order).
 *
 * <p>After each round, GC may treat as closed every epoch below the previous fence of every transaction
 * still to come ({@code min previousFence − 1}): all of those precede each of them through the fence
 * chain, which is the paper's guarantee for {@code epoch_agree − 2}, computed exactly because the whole
 * history is known. Sessions with nothing left to send need no entry fence.
 *
 * <p>docs/DESIGN.md §6.5 and §8.5.
 */
public final class HistoryRounds {
    private HistoryRounds() {}

    /** Listener for progress: called after each round. */
    public interface Progress { void round(RoundResult r); }

    /** Requires a register history (no list reads: {@link IllegalArgumentException} otherwise). */
    public static RoundsRun run(History h, int roundSize, String fenceKey, IncrementalVerifier v, Progress progress) {
        return run(h, roundSize, fenceKey, v, progress, 0);
    }

    /**
     * As above, from round {@code fromRound} on: {@code v} already holds the state after the rounds before
     * it (restored from a checkpoint), which are neither fed nor reported.
     */
    public static RoundsRun run(History h, int roundSize, String fenceKey, IncrementalVerifier v, Progress progress, int fromRound) {
        return run(h, roundSize, fenceKey, v, progress, fromRound, t -> t);
    }

    /**
     * As above; each transaction passes through {@code delivery} before it is added (a benchmark delivers it
     * through the wire format, so that, as in the pipeline, no two transactions share a key or value object).
     */
    public static RoundsRun run(History h, int roundSize, String fenceKey, IncrementalVerifier v, Progress progress, int fromRound,
                          UnaryOperator<Transaction> delivery) {
        if (h.hasLists()) throw new IllegalArgumentException("verification in rounds supports register histories; this one has list reads (check it one-shot)");
        EpochAssigner ep = new EpochAssigner(h, fenceKey);
        int n = h.size();
        // an unfenced transaction (its session never fences) comes first: it holds nothing open, and the verifier does not
        // check it in rounds (EpochRules rule 5). A transaction after its session's last fence stays open (delivered in the
        // last round): sorted among its last fence's epoch it would come before transactions that precede it in real time
        // (a strict check then rejects a strictly serializable history). Sessions that end with a fence (the recorder's
        // do) leave none behind.
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        if (ep.fenceCount() > 0) Arrays.sort(order, (a, b) -> ep.epoch(a) != ep.epoch(b) ? Long.compare(ep.epoch(a), ep.epoch(b)) : Integer.compare(a, b));
        // round boundaries: after at least roundSize transactions, where the epoch changes
        List<Integer> ends = new ArrayList<>();
        int since = 0;
        for (int i = 0; i < n; i++) {
            since++;
            boolean boundary = i == n - 1 || ep.fenceCount() == 0 || ep.epoch(order[i]) != ep.epoch(order[i + 1]);
            if (since >= roundSize && boundary) { ends.add(i + 1); since = 0; }
        }
        if (ends.isEmpty() || ends.get(ends.size() - 1) != n) ends.add(n);
        // what is still to come after each round: the smallest fence it follows, and the sessions
        long[] suffixMinPrev = new long[n + 1];
        suffixMinPrev[n] = Long.MAX_VALUE;
        for (int i = n - 1; i >= 0; i--) suffixMinPrev[i] = Math.min(suffixMinPrev[i + 1], ep.followedFence(order[i]));
        int[] lastPos = new int[h.sessionCount()];
        Arrays.fill(lastPos, -1);
        for (int i = 0; i < n; i++) lastPos[h.session(order[i])] = i;
        long[] sessionIndex = new long[n];
        int[] counter = new int[h.sessionCount()];
        for (int t = 0; t < n; t++) sessionIndex[t] = ++counter[h.session(t)];

        List<RoundResult> results = new ArrayList<>();
        v.endedIsExact(true); // a file's sessions have delivered everything once their last transaction is in
        int start = 0;
        for (int r = 0; r < ends.size(); r++) {
            int end = ends.get(r);
            if (r < fromRound) { start = end; continue; }
            for (int i = start; i < end; i++) v.add(delivery.apply(toTransaction(h, order[i], ep, sessionIndex[order[i]])));
            boolean last = r == ends.size() - 1;
            // nothing to come: every epoch is closed (GC still runs, so the figures show what a verifier would keep)
            long oldEpochMax = last || suffixMinPrev[end] == Long.MAX_VALUE ? (ep.fenceCount() > 0 ? Long.MAX_VALUE - 1 : -1) : EpochRules.lastClosedEpochBefore(suffixMinPrev[end]);
            final int cut = end;
            Set<String> ended = new HashSet<>();
            for (int s = 0; s < h.sessionCount(); s++) if (lastPos[s] < cut) ended.add(WireNames.of(h.sessionName(s)));
            RoundResult res = v.endRound(oldEpochMax, ended::contains, last);
            if (!res.violations().isEmpty()) res = withLines(res, h);
            results.add(res);
            if (progress != null) progress.round(res);
            start = end;
            if (v.stopped()) break; // verification stopped after a violation: every later round is "not checked"
        }
        return new RoundsRun(results, ep.fenceCount());
    }

    /**
     * The round's certificates with each transaction's line in the file: the rounds see transactions as the
     * pipeline delivers them, which carry no line, but a person reading a file's certificate wants to find them.
     */
    static RoundResult withLines(RoundResult r, History h) {
        Set<String> ids = new HashSet<>();
        for (Certificate c : r.violations()) for (Certificate.Txn t : c.transactions()) if (t.line() < 0) ids.add(t.id());
        if (ids.isEmpty()) return r;
        Map<String, Integer> line = new HashMap<>();
        for (int t = 0; t < h.size(); t++) if (h.line(t) >= 0 && ids.contains(h.name(t))) line.putIfAbsent(h.name(t), h.line(t));
        return withLines(r, line);
    }

    /** The round's certificates with the given line of each transaction (by id) that has none. */
    public static RoundResult withLines(RoundResult r, Map<String, Integer> line) {
        if (line.isEmpty() || r.violations().isEmpty()) return r;
        List<Certificate> lined = new ArrayList<>();
        for (Certificate c : r.violations()) lined.add(withLines(c, line));
        return new RoundResult(r.round(), r.outcome(), r.reason(), lined.get(0), r.verdict(), r.stats(), r.roundTxns(), r.checkedTxns(),
                r.pendingTxns(), r.historySize(), r.retained(), r.collectedNow(), r.collectedTotal(), r.buildNanos(), r.checkNanos(), r.gcNanos(),
                r.gcNote(), r.superseded(), r.old(), r.settled(), r.batchCounts(), r.keptBy(), lined, r.violationsTotal(), r.firstViolationRound(), r.own(),
                r.cpuNanos(), r.collectorMillis(), r.unchecked(), r.uncheckedTotal(), r.rest());
    }

    private static Certificate withLines(Certificate c, Map<String, Integer> line) {
        List<Certificate.Txn> txns = new ArrayList<>();
        for (Certificate.Txn t : c.transactions())
            txns.add(t.line() >= 0 || !line.containsKey(t.id()) ? t : new Certificate.Txn(t.id(), t.session(), t.status(), t.ops(), line.get(t.id()), t.start(), t.end()));
        return new Certificate(c.kind(), c.summary(), c.cycle(), txns, c.subHistory(), c.cases(), c.alsoFound(), c.reduction());
    }

    /** Transaction {@code t} of {@code h} as the pipeline would deliver it, with its epoch ({@link EpochAssigner#OPEN}: -1). */
    static Transaction toTransaction(History h, int t, EpochAssigner ep, long sessionIndex) {
        long e = ep.epoch(t);
        return toTransaction(h, t, sessionIndex, ep.isFence(t), e == EpochAssigner.OPEN ? -1 : e);
    }

    /**
     * Transaction {@code t} of {@code h} as the wire carries it, with its session index, whether it is a fence, and its
     * epoch (-1: none yet): the one conversion from the in-memory model to the rounds' input (names as {@link WireNames} texts).
     */
    static Transaction toTransaction(History h, int t, long sessionIndex, boolean fence, long epoch) {
        List<TxnOp> ops = new ArrayList<>(h.opEnd(t) - h.opStart(t));
        for (int o = h.opStart(t); o < h.opEnd(t); o++) {
            Object val = h.valueName(h.value(o));
            boolean write = h.kind(o) == History.WRITE || h.kind(o) == History.APPEND;
            ops.add(new TxnOp(write, WireNames.of(h.keyName(h.key(o))), val == null ? null : WireNames.of(val)));
        }
        TxnStatus st = h.status(t) == History.COMMITTED ? TxnStatus.COMMITTED : h.status(t) == History.ABORTED ? TxnStatus.ABORTED : TxnStatus.UNKNOWN;
        return Transaction.newBuilder().setId(h.name(t)).setSession(WireNames.of(h.sessionName(h.session(t)))).setStatus(st)
                .setStart(h.start(t) == History.NO_TIME ? 0 : h.start(t)).setEnd(h.end(t) == History.NO_TIME ? 0 : h.end(t))
                .setOps(ops).setSessionIndex(sessionIndex).setFence(fence).setEpoch(epoch).build();
    }
}
