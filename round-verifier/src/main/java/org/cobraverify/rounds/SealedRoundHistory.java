package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.gc.WireText;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * A round's history below serializability (docs/DESIGN.md §7.11): the held transactions, where the initial state stands for
 * the sealed past. A read of a key's latest collected version (its frontier record) is a read of the initial state; a read of
 * any other collected version, and a read of the initial state of a key the past wrote, is left out of the history and judged
 * on its own ({@link StaleReads}); a retained transaction's read of a collected version that is no longer the latest was judged
 * when it was admitted, or decided for good when its key was sealed, and is left out (an older sealed version of a key sealed
 * by choice since is unordered with the latest, not superseded by it). A read that follows its transaction's
 * own write of the key is none of these: it is kept as it is, checked against that write alone.
 *
 * @param history    the round's history
 * @param judgeable  this round's reads of collected versions to judge after the check
 * @param unknowable why a read of this round cannot be judged at all (a frontier a restart cannot know), or null
 */
record SealedRoundHistory(History history, List<StaleReads.StaleRead> judgeable, String unknowable) {
    /** How a certificate names the writer of a key's initial state. */
    static final String INITIAL = StaleReads.INITIAL;

    /**
     * Builds into {@code b} the history of {@code order} ({@code opIds}: its key and value ids, in {@code ids}' tables, whose
     * pass it uses). {@code heldReads[i]}: which reads of transaction {@code i} have a held writer (null: all); {@code admitted}:
     * the transactions admitted this round, whose reads of collected writes ({@code staleNow}, recorded as they arrived) and
     * of initial states are judged now; {@code forced}: transactions admitted in the last round with a read of no held writer
     * (such a read stays in the history, for the check to reject). {@code pastExists}: something was collected (else no
     * frontier is looked up).
     */
    static SealedRoundHistory build(HistoryBuilder b, RoundIds ids, List<Transaction> order, int[][] opIds, boolean[][] heldReads, Set<String> admitted,
                                    List<StaleReads.StaleRead> staleNow, Set<String> forced, boolean pastExists, CollectedWrites store,
                                    Predicate<CollectedWrites.FrontierEntry> visible, Predicate<Transaction> acknowledged, Predicate<String> chosen) {
        return build(b, ids, order, opIds, heldReads, admitted, staleNow, forced, pastExists, store, visible, acknowledged, chosen, false);
    }

    /**
     * As above; {@code withoutPast}: every read the sealed past decides is left out, none judged: only the reads of held
     * writers, and of the initial state of keys the past never wrote, stay. That history is a sub-history of the real one (some of its
     * transactions, some of their reads, their session order), so a violation of it is a violation of the whole history
     * at every level of the ladder, whether or not its transactions follow the past (docs/DESIGN.md §7.11, Assumptions).
     */
    static SealedRoundHistory build(HistoryBuilder b, RoundIds ids, List<Transaction> order, int[][] opIds, boolean[][] heldReads, Set<String> admitted,
                                    List<StaleReads.StaleRead> staleNow, Set<String> forced, boolean pastExists, CollectedWrites store,
                                    Predicate<CollectedWrites.FrontierEntry> visible, Predicate<Transaction> acknowledged, Predicate<String> chosen,
                                    boolean withoutPast) {
        Map<TxnOp, StaleReads.StaleRead> staleByOp = new IdentityHashMap<>();
        for (StaleReads.StaleRead s : staleNow) staleByOp.put(s.op(), s);
        // the keys whose frontier record decides a read: reads of collected writes, and initial-state reads of admitted transactions
        // (by key id: each key marked once in a pass of ids, its slot indexing latest)
        CollectedWrites.FrontierEntry[] latest = null;
        if (pastExists && store.hasFrontiers()) {
            ids.beginPass();
            List<String> ks = new ArrayList<>();
            for (int ti = 0; ti < order.size(); ti++) {
                boolean[] resolved = heldReads[ti];
                int[] x = opIds[ti];
                List<TxnOp> ops = order.get(ti).getOps();
                for (int j = 0; j < ops.size(); j++) {
                    TxnOp o = ops.get(j);
                    if (o.getWrite() || !(x[2 * j + 1] == History.NIL || (resolved != null && !resolved[j])) || !ids.mark(x[2 * j])) continue;
                    ids.slot(x[2 * j], ks.size());
                    ks.add(o.getKey());
                }
            }
            List<List<CollectedWrites.FrontierEntry>> logs = store.frontierLogs(ks);
            latest = new CollectedWrites.FrontierEntry[ks.size()];
            for (int i = 0; i < ks.size(); i++) latest[i] = FrontierLog.latest(logs.get(i), visible);
        }
        List<StaleReads.StaleRead> judge = new ArrayList<>();
        String unknowable = null;
        for (int ti = 0; ti < order.size(); ti++) {
            Transaction t = order.get(ti);
            int[] x = opIds[ti];
            RoundHistory.begin(b, t, acknowledged);
            boolean isAdmitted = admitted.contains(t.getId());
            boolean isForced = !forced.isEmpty() && forced.contains(t.getId());
            boolean[] resolved = heldReads[ti];
            List<TxnOp> ops = t.getOps();
            for (int j = 0; j < ops.size(); j++) {
                TxnOp o = ops.get(j);
                int k = x[2 * j], v = x[2 * j + 1];
                if (o.getWrite()) { b.write(k, v); continue; }
                // a read after the transaction's own write of the key (internal) is checked against that write alone, whatever
                // the past holds: kept as it is, never a read of the past (an unknown-outcome reader that a read includes only
                // after the version was collected would otherwise lose it, and with it its own inconsistency)
                if ((v == History.NIL || (resolved != null && !resolved[j])) && wroteBefore(ops, x, j, k)) { b.read(k, v); continue; }
                CollectedWrites.FrontierEntry last = latest == null || !ids.marked(k) ? null : latest[ids.slot(k)];
                if (v == History.NIL) {
                    if (last == null) { b.read(k, History.NIL); continue; }
                    if (withoutPast) continue;
                    // a retained reader's read of a key's initial state that the past has written since: decided when it was
                    // admitted (judged then as a read of a collected version), or for good when the key was sealed (§7.11)
                    if (!isAdmitted) continue;
                    if (last == FrontierLog.UNKNOWABLE || last.value() == null || last.writer() == null) {
                        if (unknowable == null) unknowable = cannotKnow(t, o);
                        continue;
                    }
                    // the initial state of a key the past wrote: superseded by the key's latest collected version
                    judge.add(new StaleReads.StaleRead(t, o, new CollectedWrites.Entry(INITIAL, last.writer(), olderThan(chosen, o),
                            last.round(), last.incarnation()), last.value()));
                    continue;
                }
                if (resolved == null || resolved[j]) { b.read(k, v); continue; }
                if (withoutPast) continue; // (a read of no held writer: the past's, or nobody's, left to the round's own check)
                StaleReads.StaleRead s = staleByOp.get(o);
                boolean current = last != null && last.value() != null && last.value().equals(o.getValue());
                if (current) { b.read(k, History.NIL); continue; } // the sealed version: the initial state now
                if (s != null) {
                    if (s.entry().fate() != CollectedWrites.Fate.FRONTIER) // (superseded by the key's sealed version: the certificate shows it)
                        judge.add(last != null && last.value() != null && last.writer() != null && last.writer().equals(s.entry().supersededBy())
                                ? new StaleReads.StaleRead(t, o, s.entry(), last.value()) : s);
                    else if (last == null || last == FrontierLog.UNKNOWABLE || last.writer() == null) { if (unknowable == null) unknowable = cannotKnow(t, o); }
                    else judge.add(new StaleReads.StaleRead(t, o, new CollectedWrites.Entry(s.entry().writer(), last.writer(),
                                olderThan(chosen, o), s.entry().round(), s.entry().incarnation()), last.value()));
                    continue;
                }
                if (isForced) { b.read(k, v); continue; } // nobody wrote it: the check says so
                // a retained reader's read of a version superseded since: judged when it was admitted
            }
            b.end();
        }
        return new SealedRoundHistory(b.build(), judge, unknowable);
    }

    /**
     * The fate of an older sealed version of {@code o}'s key than the latest: superseded by the latest's writer, a fact, unless
     * the key was sealed by choice since ({@code chosen}: an open writer's version, docs/DESIGN.md §7.11), when the order of
     * the two is one the collected past does not keep ({@code UNORDERED}: the read is not judged).
     */
    private static CollectedWrites.Fate olderThan(Predicate<String> chosen, TxnOp o) {
        return chosen.test(o.getKey()) ? CollectedWrites.Fate.UNORDERED : CollectedWrites.Fate.SUPERSEDED;
    }

    /** Whether one of the operations before {@code j} of a transaction ({@code ops}, their ids {@code x}) writes key id {@code k}. */
    private static boolean wroteBefore(List<TxnOp> ops, int[] x, int j, int k) {
        for (int i = 0; i < j; i++) if (ops.get(i).getWrite() && x[2 * i] == k) return true;
        return false;
    }

    private static String cannotKnow(Transaction t, TxnOp o) {
        return t.getId() + " reads " + WireText.shown(o.getKey()) + (o.getValue() == null ? " (initial state)" : " = " + WireText.shown(o.getValue()))
                + ", a key whose latest collected version this verifier cannot know (its frontier log holds no entry of this"
                + " verifier's timeline since the checkpoint it resumed from), so this cannot be judged";
    }
}
