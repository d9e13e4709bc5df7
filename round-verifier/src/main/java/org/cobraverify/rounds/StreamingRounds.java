package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.cobraverify.checker.Verdict;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * {@link HistoryRounds} for a file read one transaction at a time ({@code cobra verify --rounds} on {@code cobra-jsonl}):
 * the same epochs (EpochRules), the same round boundaries (after at least {@code roundSize} transactions, where the
 * epoch changes, epochs in order and each epoch in file order) and the same closed epochs, without the whole history
 * in memory. What it holds: per session, the transactions since its last fence (their epoch waits for the next
 * one), the transactions whose epoch is known but not yet complete or not yet cut, and the last
 * {@link #FENCE_WRITES} fence writes. So memory is bounded by how far apart fences are and how late a session is,
 * not by the file.
 *
 * <p>Differences from {@link HistoryRounds}, each on the safe side: an epoch is cut once every session seen so far has
 * fenced past it (a session not seen yet is not waited for, as the pipeline does not wait for it: should it bring
 * transactions of an epoch already cut, they go to the next round, and the verifier's checks of A3 say whether they
 * can be checked); a fence whose predecessor was written more than {@link #FENCE_WRITES} fences before it is an
 * ordinary transaction (a whole-file pass would find it). A fence whose predecessor comes later in the file (files are
 * not in commit order) blocks its session until it does; one whose predecessor never comes is ordinary, as in
 * {@link EpochAssigner}.
 *
 * <p>Contract: {@code txnsPerSession} (from a first pass over the file) gives every session's transaction count, so
 * that a session is known to have ended when its last transaction is read. docs/DESIGN.md §8.5.
 */
public final class StreamingRounds {
    /** Fence writes remembered to resolve the chain (a fence reads its predecessor's write). */
    static final int FENCE_WRITES = 65_536;

    private record Item(long fileIndex, Transaction t, long followed) {}

    private static final class Session {
        long prevFence;         // the epoch of its last fence (0: none yet)
        long index;             // transactions read so far (the next one's session index is index + 1)
        final int total;        // transactions in the file
        int delivered;          // given to the verifier
        boolean unfenced;       // it never fences (the first pass says so): its transactions go as they come, stamped UNFENCED
        final List<Item> open = new ArrayList<>(); // since its last fence: the epoch waits for the next fence
        /** From a fence whose predecessor has not been read yet on: waiting for it, in session order. */
        List<Item> blocked = new ArrayList<>();
        Session(int total) { this.total = total; }
        boolean allRead() { return index >= total; }
    }

    private final int roundSize;
    private final String fenceKey;
    private final IncrementalVerifier v;
    private final HistoryRounds.Progress progress;
    private final boolean fences;
    private final Map<String, Integer> totals;
    /** Sessions with a fence in the file (from the first pass); the others' transactions are unfenced (EpochRules rule 5). */
    private final Set<String> fencedSessions;
    /** Transactions in the file: the last one's rounds are cut by {@link #finish} (so that the last round is the last). */
    private final long fileTotal;
    private final Map<String, Session> sessions = new HashMap<>();
    private final Map<String, Long> fenceEpochByWrite = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> e) { return size() > FENCE_WRITES; }
    };
    /** Sessions blocked behind a fence, by the fence write that fence read. */
    private final Map<String, List<Session>> waitingOn = new HashMap<>();
    /** Transactions whose epoch is known, by epoch. */
    private final TreeMap<Long, List<Item>> ready = new TreeMap<>();
    /** Without fences: transactions in file order. */
    private final List<Item> plain = new ArrayList<>();
    private long readyCount, fileIndex, lastCutEpoch = Long.MIN_VALUE;
    private int fenceCount;
    private final List<RoundResult> results = new ArrayList<>();
    /** Sessions read to their end and wholly delivered, while the verifier holds some of their transactions. */
    private final Set<String> ended = new HashSet<>();
    private boolean stopped, lastDone;

    /**
     * {@code fencedSessions}: the sessions with a fence in the file (from the first pass). Without any, rounds are cut every
     * {@code roundSize} transactions in file order and nothing is collected, as {@link HistoryRounds} does; with some, the
     * transactions of a session that has none are given to the verifier as they come, stamped {@link EpochRules#UNFENCED}
     * (they hold nothing open, and the verifier does not check them in rounds).
     */
    public StreamingRounds(int roundSize, String fenceKey, IncrementalVerifier v, Map<String, Integer> txnsPerSession, Set<String> fencedSessions,
                           HistoryRounds.Progress progress) {
        this.roundSize = roundSize;
        this.fenceKey = fenceKey;
        this.v = v;
        this.totals = txnsPerSession;
        long sum = 0;
        for (int c : txnsPerSession.values()) sum += c;
        this.fileTotal = sum;
        this.fences = !fencedSessions.isEmpty();
        this.fencedSessions = fencedSessions;
        this.progress = progress;
        v.endedIsExact(true);
    }

    /**
     * The next transaction of the file (this driver stamps it with its session index, fence flag and epoch); false once a
     * round rejected (every later round contains the violation).
     */
    public boolean offer(Transaction t) {
        if (stopped) return false;
        Session s = sessions.computeIfAbsent(t.getSession(), x -> new Session(totals.getOrDefault(x, Integer.MAX_VALUE)));
        s.index++;
        long at = fileIndex++;
        boolean lastOfFile = fileIndex == fileTotal;
        if (!fences) {
            plain.add(new Item(at, stamp(t, s.index, false, -1), 0));
            if (plain.size() >= roundSize && !lastOfFile) cut(plain.size(), false);
            return !stopped;
        }
        if (s.unfenced || !fencedSessions.contains(t.getSession())) {
            s.unfenced = true;
            v.add(stamp(t, s.index, false, EpochRules.UNFENCED));
            s.delivered++;
            if (lastOfFile) cutWhatIsComplete(true);
            return !stopped;
        }
        int fencesBefore = fenceCount;
        Item item = new Item(at, stamp(t, s.index, false, -1), 0);
        if (!s.blocked.isEmpty()) s.blocked.add(item);
        else process(s, item, false);
        if (s.allRead() && s.blocked.isEmpty()) close(s);
        // what is complete changes only when a session fences or ends (or a late transaction lands below it: the next fence takes it)
        if (readyCount >= roundSize && !lastOfFile && (fenceCount != fencesBefore || s.allRead())) cutWhatIsComplete(false);
        return !stopped;
    }

    /**
     * Gives {@code i} of session {@code s} its place: an ordinary transaction waits for its session's next fence; a fence
     * whose predecessor is known gets its epoch (and releases the sessions waiting for it); one whose predecessor has not
     * been read yet blocks its session (a file need not be in commit order). With {@code ordinary}, a fence counts as an
     * ordinary transaction (its chain never resolved).
     */
    private void process(Session s, Item i, boolean ordinary) {
        Transaction t = i.t();
        long fenceEpoch = -1;
        String wrote = null;
        if (!ordinary && EpochRules.isFence(t, fenceKey)) {
            String read = EpochRules.fenceRead(t, fenceKey);
            Long base = read.isEmpty() ? Long.valueOf(0) : fenceEpochByWrite.get(read);
            if (base == null) {
                s.blocked.add(i);
                waitingOn.computeIfAbsent(read, x -> new ArrayList<>()).add(s);
                return;
            }
            fenceEpoch = EpochRules.fenceEpoch(base);
            wrote = EpochRules.fenceWrite(t, fenceKey);
        }
        if (fenceEpoch < 0) {
            s.open.add(new Item(i.fileIndex(), t, s.prevFence));
            return;
        }
        fenceCount++;
        for (Item o : s.open) put(new Item(o.fileIndex(), withEpoch(o.t(), EpochRules.ordinaryEpoch(s.prevFence, fenceEpoch)), o.followed()));
        s.open.clear();
        t.setFence(true);
        t.setEpoch(fenceEpoch);
        put(new Item(i.fileIndex(), t, EpochRules.followedFence(s.prevFence, true, fenceEpoch)));
        s.prevFence = fenceEpoch;
        fenceEpochByWrite.put(wrote, fenceEpoch);
        List<Session> released = waitingOn.remove(wrote);
        if (released != null) for (Session w : released) drain(w);
    }

    /** Processes a blocked session's transactions in order until one blocks it again. */
    private void drain(Session s) {
        List<Item> queue = s.blocked;
        s.blocked = new ArrayList<>();
        for (Item i : queue) {
            if (!s.blocked.isEmpty()) s.blocked.add(i);
            else process(s, i, false);
        }
        if (s.allRead() && s.blocked.isEmpty()) close(s);
    }

    /** Ends the file: every session is over; what is left is cut into rounds, the last of them the last round. */
    public RoundsRun finish() {
        if (!stopped) {
            if (!fences) cut(plain.size(), true);
            else {
                // fences whose predecessor never came count as ordinary transactions (their chain is broken), one at a time
                for (boolean any = true; any; ) {
                    any = false;
                    for (Session s : new ArrayList<>(sessions.values())) {
                        if (s.blocked.isEmpty()) continue;
                        any = true;
                        List<Item> queue = s.blocked;
                        s.blocked = new ArrayList<>();
                        waitingOn.values().forEach(l -> l.remove(s));
                        process(s, queue.get(0), true);
                        for (Item i : queue.subList(1, queue.size())) {
                            if (!s.blocked.isEmpty()) s.blocked.add(i);
                            else process(s, i, false);
                        }
                    }
                }
                for (Session s : sessions.values()) close(s);
                cutWhatIsComplete(true);
                if (!lastDone && !stopped) endRound(List.of(), Long.MAX_VALUE - 1, true); // everything went in full rounds
            }
        }
        return new RoundsRun(results, fenceCount);
    }

    /** A session read to its end: its transactions after its last fence stay open (epoch {@link EpochRules#OPEN}). */
    private void close(Session s) {
        for (Item i : s.open) put(new Item(i.fileIndex(), withEpoch(i.t(), EpochRules.OPEN), i.followed()));
        s.open.clear();
    }

    private void put(Item i) {
        ready.computeIfAbsent(i.t().getEpoch() < 0 ? EpochRules.OPEN : i.t().getEpoch(), x -> new ArrayList<>()).add(i);
        readyCount++;
    }

    /**
     * Cuts rounds of complete epochs: those below every unfinished session's last fence (its later transactions have
     * that epoch or a later one). At the end ({@code atEnd}) every epoch is complete.
     */
    private void cutWhatIsComplete(boolean atEnd) {
        while (!stopped && !ready.isEmpty()) {
            long agree = atEnd ? Long.MAX_VALUE : agree();
            long count = 0, endEpoch = Long.MIN_VALUE;
            boolean enough = false;
            for (Map.Entry<Long, List<Item>> e : ready.entrySet()) {
                if (!atEnd && e.getKey() >= agree) break;
                count += e.getValue().size();
                endEpoch = e.getKey();
                if (count >= roundSize) { enough = true; break; }
            }
            if (!enough && !(atEnd && count > 0)) return;
            deliverThrough(endEpoch, atEnd && count == readyCount);
        }
    }

    /** The smallest last-fence epoch of a session not read to its end (Long.MAX_VALUE: none). */
    private long agree() {
        long a = Long.MAX_VALUE;
        for (Session s : sessions.values()) if (!s.unfenced && (!s.allRead() || !s.blocked.isEmpty())) a = Math.min(a, s.prevFence);
        return a;
    }

    /** Delivers every ready epoch up to {@code endEpoch} as one round. */
    private void deliverThrough(long endEpoch, boolean last) {
        List<Item> round = new ArrayList<>();
        for (Iterator<Map.Entry<Long, List<Item>>> it = ready.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, List<Item>> e = it.next();
            if (e.getKey() > endEpoch) break;
            List<Item> l = e.getValue();
            l.sort(Comparator.comparingLong(Item::fileIndex));
            round.addAll(l);
            it.remove();
        }
        readyCount -= round.size();
        lastCutEpoch = Math.max(lastCutEpoch, endEpoch);
        for (Item i : round) v.add(i.t());
        // what is still to come: ready transactions, open ones, and whatever a session not read to its end sends next
        long minFollowed = Long.MAX_VALUE;
        for (List<Item> l : ready.values()) for (Item i : l) minFollowed = Math.min(minFollowed, i.followed());
        for (Session s : sessions.values()) {
            for (Item i : s.open) minFollowed = Math.min(minFollowed, i.followed());
            if (!s.unfenced && (!s.allRead() || !s.blocked.isEmpty())) minFollowed = Math.min(minFollowed, s.prevFence);
        }
        long oldEpochMax = last || minFollowed == Long.MAX_VALUE ? Long.MAX_VALUE - 1 : EpochRules.lastClosedEpochBefore(minFollowed);
        endRound(round, oldEpochMax, last);
    }

    /** Without fences: the first {@code n} transactions in file order as one round; nothing is collected. */
    private void cut(int n, boolean last) {
        if (n == 0 && !last) return;
        List<Item> round = new ArrayList<>(plain.subList(0, n));
        plain.subList(0, n).clear();
        for (Item i : round) v.add(i.t());
        endRound(round, -1, last);
    }

    private void endRound(List<Item> round, long oldEpochMax, boolean last) {
        for (Item i : round) sessions.get(i.t().getSession()).delivered++;
        for (Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Session> e = it.next();
            Session s = e.getValue();
            if (s.allRead() && s.delivered >= s.index && s.open.isEmpty() && s.blocked.isEmpty()) { ended.add(e.getKey()); it.remove(); }
        }
        RoundResult r = v.endRound(oldEpochMax, ended::contains, last);
        results.add(r);
        lastDone |= last;
        if (progress != null) progress.round(r);
        if (v.stopped()) stopped = true;
        if (results.size() % 16 == 0) ended.retainAll(v.sessionsHeld()); // an ended session nobody holds needs no name
    }

    /** Stamps {@code t} (the driver owns it: it is changed, not copied). */
    private static Transaction stamp(Transaction t, long sessionIndex, boolean fence, long epoch) {
        t.setSessionIndex(sessionIndex);
        t.setFence(fence);
        t.setEpoch(epoch);
        return t;
    }

    private static Transaction withEpoch(Transaction t, long epoch) {
        t.setEpoch(epoch == EpochRules.OPEN ? -1 : epoch);
        return t;
    }
}
