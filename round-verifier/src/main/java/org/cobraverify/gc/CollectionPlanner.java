package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * Step 1 of a collection: what garbage collection is asked to do in a round, before the check (docs/DESIGN.md
 * §7.2, §7.6). It caps the epochs treated as closed so that every transaction that may still join the checked
 * history follows an entry fence of the new past: a transaction waiting for a write, an unknown-outcome one
 * nobody has read yet (until it is set aside, A7), and every transaction a live session will still send.
 * It also pins the writers those may still read, so that no read of a joining transaction loses its writer.
 * A transaction or live session with no fence in the round's history holds collection back for at most
 * {@code pendingRoundsLimit} rounds (its fence may be late); then it caps nothing: what of it joins later without following
 * the new past in the facts is set aside, unchecked, by the verifier (A3). It never holds back the rest for good.
 *
 * <p>State: when each session was first seen ended, and when each live session was first seen without a fence in the
 * round's history (all it keeps between rounds). Invariant: it holds only sessions present in the last planned round, so
 * it is bounded by the retained history.
 */
public final class CollectionPlanner {
    /** Looks up the held writer of a (key, value), or null. */
    public interface Writers { Transaction of(String key, String value); }

    /**
     * What GC is asked to do: per transaction of the round's history, whether it is old and whether it is pinned;
     * the entry fences of the next past (indexes), the newest epoch it may close; or, in {@code skip}, why it cannot run;
     * and the reads with no held writer of the transactions that may still join ({@link #pastRead}).
     */
    public record Plan(boolean[] old, boolean[] pinned, int[] entries, long closedEpoch, Collection<Transaction> entryFences, String skip,
                       Set<String> pastReads) {
        static Plan skipped(String why) { return new Plan(null, null, null, -1, List.of(), why, Set.of()); }

        /**
         * Whether a transaction that may still join reads {@code value} of {@code key} with no held writer (a read of a
         * collected frontier write: the synthetic writer that stands for it is pinned like a held one).
         */
        public boolean pastRead(String key, String value) { return pastReads.contains(key + '\0' + value); }

        /** Whether {@link #pastRead} holds for any pair (when not, a round need not ask it for each synthetic writer). */
        public boolean anyPastRead() { return !pastReads.isEmpty(); }

        /** How many transactions of the round are old (0 when skipped). */
        public int oldCount() {
            int k = 0;
            if (old != null) for (boolean o : old) if (o) k++;
            return k;
        }
    }

    /** {@link #endedSince}'s mark for a session that has delivered everything: long over from the start. */
    private static final long DRAINED = Long.MIN_VALUE / 4;

    private final int pendingRoundsLimit;
    private boolean endedExact;
    /** Sessions seen ended, with the round first seen so (only those still in the retained history). */
    private final Map<String, Long> endedSince = new HashMap<>();
    /** Live sessions with no fence in the round's history, with the round first seen so (only those still in it). */
    private final Map<String, Long> withoutFenceSince = new HashMap<>();

    public CollectionPlanner(int pendingRoundsLimit) { this.pendingRoundsLimit = pendingRoundsLimit; }

    /**
     * Whether {@code ended} is exact: the session has delivered everything (a file). Otherwise (a pipeline,
     * where a session's last transactions may reach the rounds after its end was seen) an ended session keeps
     * its entry fence for {@code pendingRoundsLimit} rounds after its end is first seen.
     */
    public void endedIsExact(boolean exact) { this.endedExact = exact; }

    /**
     * Sessions whose clients closed them and whose every transaction has been added: from the next plan on, GC waits
     * for nothing more from them. Requires: each is also among the {@code ended} sessions of that round.
     */
    public void sessionsClosed(Collection<String> sessions) { for (String s : sessions) endedSince.put(s, DRAINED); }

    public Map<String, Long> endedSince() { return endedSince; }

    public void restoreEndedSince(Map<String, Long> m) { endedSince.clear(); endedSince.putAll(m); }

    /** Live sessions seen without a fence in the round's history, with the round first seen so. */
    public Map<String, Long> withoutFenceSince() { return withoutFenceSince; }

    public void restoreWithoutFenceSince(Map<String, Long> m) { withoutFenceSince.clear(); withoutFenceSince.putAll(m); }

    /**
     * The plan for the round that makes {@code roundsSoFar} rounds ended: {@code order}/{@code index}, the round's history; {@code oldEpochMax}, the
     * newest epoch the topology lets GC close; {@code ended}, sessions that will send nothing more; {@code waiting},
     * the transactions waiting for a write, and {@code waitingSince} the round each arrived in; {@code unknownSince}, held
     * transactions of unknown outcome with the round each arrived in; {@code held}, the held transactions by id; {@code writers}, the writer index.
     */
    public Plan plan(List<Transaction> order, Map<String, Integer> index, long oldEpochMax, Predicate<String> ended, long roundsSoFar,
                     List<Transaction> waiting, Map<String, Long> waitingSince, Map<String, Long> unknownSince, java.util.function.Function<String, Transaction> held,
                     Writers writers) {
        int n = order.size();
        Map<String, Transaction> entryOf = new LinkedHashMap<>();
        Map<String, TreeMap<Long, Transaction>> fences = new HashMap<>();
        Set<String> sessions = new HashSet<>();
        for (Transaction t : order) {
            sessions.add(t.getSession());
            if (t.getFence() && t.getStatus() == TxnStatus.COMMITTED && t.getEpoch() >= 0)
                fences.computeIfAbsent(t.getSession(), x -> new TreeMap<>()).put(t.getSessionIndex(), t);
        }
        // a waiting transaction joins the graph later: like a future one it must follow an entry fence, the last
        // fence of its session before it; epochs from that fence's on stay open. So may a transaction of unknown
        // outcome that nobody has read, until it is set aside (A7): old, held pendingRoundsLimit rounds, read by no
        // transaction that may still join, and old under this round's cap, so that this collection takes it. One that
        // fails any of these keeps holding: set aside while a waiting reader pins it, or while it is not old enough
        // to be collected with the writers it read, it could lose a read to collection and then be included.
        long cap = oldEpochMax;
        List<Transaction> extra = new ArrayList<>();
        List<Transaction> joining = new ArrayList<>(waiting);
        List<Transaction> aside = new ArrayList<>();
        for (Map.Entry<String, Long> e : unknownSince.entrySet()) {
            Transaction u = held.apply(e.getKey());
            if (u == null || !index.containsKey(u.getId())) continue; // waiting: already among the joining
            boolean eligible = u.getEpoch() >= 0 && u.getEpoch() <= oldEpochMax && roundsSoFar - e.getValue() >= pendingRoundsLimit;
            (eligible ? aside : joining).add(u);
        }
        // one with no fence before it holds collection back while it is young (its fence may be on its way: the one it read,
        // or its session's); after pendingRoundsLimit rounds it caps nothing: should it join, nothing shows that it follows
        // the past, and it is set aside then, unchecked (docs/DESIGN.md §7.6); until then it pins the writers it reads, like any
        for (Transaction t : joining) {
            Transaction entry = entryFence(t, fences, index, writers);
            if (entry == null) {
                if (young(t, roundsSoFar, waitingSince, unknownSince)) return Plan.skipped(cannotJoin(t));
                continue;
            }
            cap = Math.min(cap, entry.getEpoch() - 1);
            extra.add(entry);
        }
        // every live session's latest fence here is an entry: epochs from its on stay open (a topology counts
        // fences it has not cut into rounds yet when it computes epoch_agree; the verifier can only use what it has)
        endedSince.keySet().retainAll(sessions);
        withoutFenceSince.keySet().retainAll(sessions);
        for (String s : sessions) {
            if (ended.test(s)) {
                if (endedExact) continue;
                long since = endedSince.computeIfAbsent(s, x -> roundsSoFar);
                if (roundsSoFar - since >= pendingRoundsLimit) continue; // long over: whatever it sends now is unknown
            }
            TreeMap<Long, Transaction> fs = fences.get(s);
            // a live session with no fence here (its next fence is late, or its fences were collected while it was away) holds
            // collection back for pendingRoundsLimit rounds; then it gets no entry fence: what it sends next follows the new past
            // only if the facts say so, and if not it is set aside, unchecked (§7.6). It never stops collection for good
            if (fs == null) {
                long since = withoutFenceSince.computeIfAbsent(s, x -> roundsSoFar);
                if (roundsSoFar - since < pendingRoundsLimit)
                    return Plan.skipped("session " + s + " has no fence in the checked history: nothing can be collected before it does (for "
                            + (pendingRoundsLimit - (roundsSoFar - since)) + " more rounds)");
                continue;
            }
            withoutFenceSince.remove(s);
            Transaction f = fs.lastEntry().getValue();
            cap = Math.min(cap, f.getEpoch() - 1);
            entryOf.put(s, f);
        }
        // to a fixed point: the cap only falls and the joining only grow
        Set<Transaction> readByJoining = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Transaction t : joining) readByJoining.addAll(writersRead(t, writers));
        Set<String> pastReads = new HashSet<>();
        for (Transaction t : joining) pastReads(t, writers, pastReads);
        for (boolean changed = !aside.isEmpty(); changed; ) {
            changed = false;
            for (Iterator<Transaction> it = aside.iterator(); it.hasNext(); ) {
                Transaction u = it.next();
                if (u.getEpoch() <= cap && !readByJoining.contains(u)) continue;
                it.remove();
                joining.add(u);
                Transaction entry = entryFence(u, fences, index, writers);
                if (entry == null && young(u, roundsSoFar, waitingSince, unknownSince)) return Plan.skipped(cannotJoin(u));
                if (entry != null) {
                    cap = Math.min(cap, entry.getEpoch() - 1);
                    extra.add(entry);
                }
                readByJoining.addAll(writersRead(u, writers));
                pastReads(u, writers, pastReads);
                changed = true;
            }
        }
        boolean[] old = new boolean[n], pinned = new boolean[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            Transaction t = order.get(i);
            old[i] = t.getEpoch() >= 0 && t.getEpoch() <= cap;
            any |= old[i];
        }
        if (!any)
            return Plan.skipped("no transaction of epoch " + cap + " or earlier" + (cap < oldEpochMax ? " (capped by sessions' latest fences and waiting transactions)" : ""));
        for (Transaction f : extra) entryOf.putIfAbsent(f.getSession() + '\0' + f.getId(), f);
        for (Transaction w : readByJoining) {
            Integer wi = index.get(w.getId());
            if (wi != null) pinned[wi] = true;
        }
        int[] entries = entryOf.values().stream().mapToInt(f -> index.get(f.getId())).distinct().toArray();
        return new Plan(old, pinned, entries, cap, entryOf.values(), null, pastReads);
    }

    /**
     * The fence that a transaction that may still join must follow: its session's last fence before it, or for a
     * fence that begins its session, the fence it read; null when there is none in the graph.
     */
    private static Transaction entryFence(Transaction t, Map<String, TreeMap<Long, Transaction>> fences, Map<String, Integer> index, Writers writers) {
        TreeMap<Long, Transaction> fs = fences.get(t.getSession());
        Map.Entry<Long, Transaction> e = fs == null || t.getSessionIndex() < 0 ? null : fs.lowerEntry(t.getSessionIndex());
        return e != null ? e.getValue() : t.getFence() ? fenceItRead(t, index, writers) : null;
    }

    /** Whether {@code t}, which may still join, arrived fewer than {@code pendingRoundsLimit} rounds ago. */
    private boolean young(Transaction t, long roundsSoFar, Map<String, Long> waitingSince, Map<String, Long> unknownSince) {
        Long since = waitingSince.get(t.getId());
        if (since == null) since = unknownSince.get(t.getId());
        return since == null || roundsSoFar - since < pendingRoundsLimit;
    }

    private static String cannotJoin(Transaction t) {
        return t.getId() + (t.getStatus() == TxnStatus.UNKNOWN ? " (of unknown outcome) may still join the history" : " waits for a write")
                + " and no fence of its session precedes it: collection waits for it (at most as many rounds as a transaction may wait)";
    }

    /** The held writers of what {@code t} read (itself excluded). */
    private static List<Transaction> writersRead(Transaction t, Writers writers) {
        List<Transaction> out = new ArrayList<>();
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writers.of(o.getKey(), o.getValue());
            if (w != null && w != t) out.add(w);
        }
        return out;
    }

    /** Adds to {@code out} {@code t}'s reads of a value no held transaction wrote, as key and value. */
    private static void pastReads(Transaction t, Writers writers, Set<String> out) {
        for (TxnOp o : t.getOps())
            if (!o.getWrite() && o.getValue() != null && writers.of(o.getKey(), o.getValue()) == null) out.add(o.getKey() + '\0' + o.getValue());
    }

    /**
     * For a waiting fence that begins its session (sessions start with one): a fence in the graph whose write
     * it read. When it joins, that read is an edge from that fence to it, so it follows whatever that fence
     * follows, as a transaction follows its session's previous fence. Null when there is none in the graph.
     */
    private static Transaction fenceItRead(Transaction t, Map<String, Integer> index, Writers writers) {
        for (TxnOp o : t.getOps()) {
            if (o.getWrite() || o.getValue() == null) continue;
            Transaction w = writers.of(o.getKey(), o.getValue());
            if (w != null && w.getFence() && w.getStatus() == TxnStatus.COMMITTED && w.getEpoch() >= 0 && index.containsKey(w.getId())) return w;
        }
        return null;
    }
}
