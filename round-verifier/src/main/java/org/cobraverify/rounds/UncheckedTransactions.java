package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.gc.WireText;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.schemas.Transaction;

/**
 * The transactions verification in rounds leaves out of the checked history, unchecked (docs/DESIGN.md §7.6): which, why,
 * and how many so far. Two kinds: one that follows no fence of its session ({@link #leaveUnfenced}, as it arrives), and one
 * that joined the checked history after a collection without following the collected past in the known dependencies
 * ({@link #uncovered}, {@link #leaveUncovered}, once its round's check has accepted). Their writes are recorded as set aside
 * ({@link SetAside#leaveUnfenced}, {@link SetAside#leaveUnchecked}), so that the reads of them go unchecked too.
 */
final class UncheckedTransactions {
    private List<Unchecked> round = new ArrayList<>();
    private int arrivedUnfenced;
    private long total;

    /** A round begins: nothing is left unchecked in it yet. */
    void startRound() {
        round = new ArrayList<>();
        arrivedUnfenced = 0;
    }

    /** Leaves {@code t}, which follows no fence of its session (EpochRules rule 5), out as it arrives in round {@code roundNo}. */
    void leaveUnfenced(Transaction t, HeldTransactions held, long roundNo, long incarnation,
                       Map<String, Map<String, org.cobraverify.gc.CollectedWrites.Entry>> writes) {
        arrivedUnfenced++;
        total++;
        round.add(new Unchecked(t.getId(), "its session ran no fence before it (a session must run a fence before its first"
                + " transaction for its transactions to be checked in rounds)"));
        SetAside.leaveUnfenced(t, held, roundNo, incarnation, writes);
    }

    /**
     * The transactions that joined the checked history in this round after a collection without provably following the
     * collected past (assumption A3, docs/DESIGN.md §7.1): those admitted this round that are in it, and retained ones
     * outside it until now ({@code held.unincluded()}) that a read has included. Empty when no past was collected
     * ({@code fromBarrier} null).
     */
    static Set<String> uncovered(List<Transaction> admitted, HeldTransactions held, boolean[] fromBarrier, boolean[] included,
                                 Map<String, Integer> index) {
        if (fromBarrier == null) return Set.of();
        Set<String> out = new LinkedHashSet<>();
        for (Transaction t : admitted) {
            int i = index.get(t.getId());
            if (included[i] && !fromBarrier[i]) out.add(t.getId());
        }
        for (String id : held.unincluded()) {
            Integer i = index.get(id);
            if (i != null && included[i] && !fromBarrier[i]) out.add(id);
        }
        return out;
    }

    /**
     * Leaves the {@link #uncovered} transactions {@code ids} (held) out of the checked history ({@link SetAside#leaveUnchecked}),
     * each named with its session's entry fence, or, for those {@code why} names, with why: a read the sealed past
     * cannot judge ({@link #unjudgeableReaders}, docs/DESIGN.md §7.11). Returns how many reads of their writes by held transactions were dropped.
     */
    int leaveUncovered(Set<String> ids, Map<String, String> why, HeldTransactions held, CollectedPast past, StaleReads stale,
                       List<Transaction> admitted, long roundNo, long incarnation) {
        Map<String, String> entryFence = new HashMap<>(); // per session, its fence that the past precedes
        for (String id : past.after()) {
            Transaction f = held.get(id);
            if (f != null) entryFence.put(f.getSession(), id);
        }
        for (String id : ids) {
            Transaction t = held.get(id);
            String entry = t == null ? null : entryFence.get(t.getSession());
            String read = why.get(id);
            if (read != null) { round.add(new Unchecked(id, read)); continue; }
            round.add(new Unchecked(id, "it joined the checked history after garbage collection without following the collected past in the"
                    + " known dependencies (its session's fence that the past precedes: " + (entry == null ? "none" : entry) + "); a session"
                    + " must run a fence before its first transaction, and keep fencing, for its transactions to be checked in rounds"));
        }
        total += ids.size();
        return SetAside.leaveUnchecked(ids, held, stale, admitted, roundNo, incarnation);
    }

    /**
     * Below serializability (docs/DESIGN.md §7.11): the readers in {@code stale} (this round's reads of collected writes) that
     * are in the checked history and whose read the sealed past cannot judge, each with why it is left unchecked: a read of a
     * version garbage collection superseded by choice, not by a fact ({@code UNORDERED}); a read of a write whose transaction
     * was of unknown outcome and unread when collection set it aside ({@code UNKNOWN_OUTCOME}, A7: the past was checked
     * without it); and, at a level where a transaction may read an older version than one another session wrote before it
     * ({@code old}: read committed, strong session read committed, read atomic; null at the others), a read of a version it
     * superseded by a reader that did not see the superseding writer. Whether any of them may be read depends on what the
     * sealed past does not keep. A reader with a read that is a violation (of an aborted or intermediate write; of a superseded
     * version, at causal and snapshot isolation, or by a reader that saw its superseder) is not among them: that read is
     * judged and reported.
     */
    static Map<String, String> unjudgeableReaders(List<StaleReads.StaleRead> stale, Map<String, Integer> index, boolean[] included, StaleReads.OldVersions old) {
        String mayReadOld = old == null ? null : old.level();
        Set<String> violating = new java.util.HashSet<>();
        for (StaleReads.StaleRead s : stale)
            if (StaleReads.violates(s.entry().fate(), mayReadOld) || old != null && old.sawSuperseder(s) != null) violating.add(s.reader().getId());
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (StaleReads.StaleRead s : stale) {
            CollectedWrites.Fate f = s.entry().fate();
            if (f != CollectedWrites.Fate.UNORDERED && f != CollectedWrites.Fate.UNKNOWN_OUTCOME && !(f == CollectedWrites.Fate.SUPERSEDED && mayReadOld != null))
                continue;
            Integer i = index.get(s.reader().getId());
            if (i == null || !included[i] || violating.contains(s.reader().getId())) continue;
            String read = "it read " + WireText.shown(s.op().getKey()) + " = " + WireText.shown(s.op().getValue()) + ", written by " + s.entry().writer();
            out.putIfAbsent(s.reader().getId(), f == CollectedWrites.Fate.UNORDERED
                    ? read + ", a version garbage collection left unordered with the one it kept for the key (" + s.entry().supersededBy()
                      + "): whether it may be read depends on an order the collected past does not keep"
                    : f == CollectedWrites.Fate.UNKNOWN_OUTCOME
                    ? read + ", whose outcome was unknown and which nobody had read when garbage collection set it aside: the collected"
                      + " past was checked without it, so whether that write may be read cannot be judged"
                    : read + ", which garbage collection found superseded by " + s.entry().supersededBy() + ", a transaction it read nothing"
                      + " from" + (old.earlierReadsOnly() ? " before" : "") + ": at " + mayReadOld + " it may read an older version than one"
                      + " another transaction wrote, and whether this one may depends on an order of the versions the collected past does not keep");
        }
        return out;
    }

    /** The transactions left unchecked in this round, for its result (and none from then on). */
    List<Unchecked> takeRound() {
        List<Unchecked> out = List.copyOf(round);
        round = new ArrayList<>();
        return out;
    }

    /** Of this round's transactions, those that arrived unfenced (no longer among the round's transactions). */
    int arrivedUnfenced() { return arrivedUnfenced; }

    /** How many transactions were left unchecked so far. */
    long total() { return total; }

    /** Resumes the count from a snapshot or checkpoint. */
    void restoreTotal(long n) { total = n; }

    /** The verdict's words for the transactions a round left unchecked (the first few by name, with why). */
    String note(List<Unchecked> unchecked) {
        StringBuilder b = new StringBuilder().append(unchecked.size()).append(unchecked.size() == 1 ? " transaction" : " transactions")
                .append(" not checked (").append(total).append(" so far): ");
        for (int i = 0; i < Math.min(3, unchecked.size()); i++)
            b.append(i == 0 ? "" : "; ").append(unchecked.get(i).id()).append(": ").append(unchecked.get(i).reason());
        if (unchecked.size() > 3) b.append("; ...");
        return b.toString();
    }
}
