package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.cobraverify.history.History;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.protocol.WireNames;
import org.cobraverify.synth.SimulatedStore;

/**
 * A history delivered to a {@link RoundVerifier} as the topology may deliver it, for {@link RoundsDifferential}: rounds of
 * whole epochs in epoch order (a transaction after its session's last fence takes that fence's epoch and comes when its
 * session ends; one of a session that never fences comes at once, with the epoch of what came before it); then, per
 * session, a suffix of its transactions may come up to four rounds late, so readers arrive before their writers and
 * fences after the transactions that follow them. A late session either holds the epochs its transactions follow open (as
 * a live session holds {@code epoch_agree}) or is retired while it is late and revived when it comes back (as a session
 * silent past the topology's timeout is); a session whose every transaction has come is closed. Rounds are decided in
 * batches of one to four ({@link #batchSize}), as a verifier that is behind decides them. Two rounds with nothing new end
 * the delivery, so that collection catches up.
 */
final class TopologyDelivery {
    private final History h;
    private final Random rnd;
    private final EpochAssigner ep;
    /** Per transaction: the epoch it is stamped with, the fence it follows, and its place in its session (from 1). */
    private final long[] stamped, followed, sessionIndex;
    /** The transactions each round delivers, in delivery order. */
    private final List<List<Integer>> byRound = new ArrayList<>();
    private final int lastRound;
    /** Per session: whether it is retired while late, the first round it is late in, and the round its last transaction comes in. */
    private final boolean[] retiredWhileLate;
    private final int[] lateFrom, lastArrival;
    private final boolean[] delivered;
    private final Set<Integer> retired = new HashSet<>(), closed = new HashSet<>();

    /** Plans the delivery of {@code h} in rounds of about {@code roundSize} transactions; which sessions come late is drawn from {@code rnd}. */
    TopologyDelivery(History h, int roundSize, Random rnd) {
        this.h = h;
        this.rnd = rnd;
        int n = h.size();
        ep = new EpochAssigner(h, SimulatedStore.FENCE_KEY);
        stamped = new long[n];
        followed = new long[n];
        sessionIndex = new long[n];
        int[] counter = new int[h.sessionCount()];
        for (int t = 0; t < n; t++) {
            sessionIndex[t] = ++counter[h.session(t)];
            stamped[t] = ep.epoch(t) == EpochAssigner.OPEN ? ep.previousFence(t) : ep.epoch(t);
            followed[t] = ep.followedFence(t);
        }
        // planned rounds: whole epochs in epoch order, open transactions (after their session's last fence) last; an unfenced
        // one (its session never fences) as the topology releases it, at once: with the epoch of what came before it
        long[] sortKey = new long[n];
        long lastSeen = 0;
        for (int t = 0; t < n; t++) {
            if (ep.unfenced(t)) sortKey[t] = lastSeen;
            else sortKey[t] = ep.epoch(t) == EpochAssigner.OPEN ? Long.MAX_VALUE : ep.epoch(t);
            if (!ep.unfenced(t) && ep.epoch(t) != EpochAssigner.OPEN) lastSeen = Math.max(lastSeen, ep.epoch(t));
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> sortKey[a] != sortKey[b] ? Long.compare(sortKey[a], sortKey[b]) : Integer.compare(a, b));
        int[] planned = new int[n];
        int round = 0, since = 0;
        for (int i = 0; i < n; i++) {
            planned[order[i]] = round;
            since++;
            boolean boundary = i == n - 1 || ep.fenceCount() == 0 || sortKey[order[i]] != sortKey[order[i + 1]];
            if (since >= roundSize && boundary) { round++; since = 0; }
        }
        // late suffixes of sessions (each session's order is kept)
        int[] arrives = planned.clone();
        retiredWhileLate = new boolean[h.sessionCount()];
        lateFrom = new int[h.sessionCount()];
        Arrays.fill(lateFrom, Integer.MAX_VALUE);
        for (int s = 0; s < h.sessionCount(); s++) {
            if (rnd.nextInt(3) != 0) continue;
            int delay = 1 + rnd.nextInt(4), cut = 1 + rnd.nextInt(Math.max(1, counter[s]));
            retiredWhileLate[s] = rnd.nextBoolean();
            int latest = -1;
            for (int t = 0; t < n; t++) {
                if (h.session(t) != s) continue;
                if (sessionIndex[t] >= cut) {
                    arrives[t] = Math.max(planned[t] + delay, latest);
                    lateFrom[s] = Math.min(lateFrom[s], planned[t]);
                }
                latest = Math.max(latest, arrives[t]);
            }
        }
        int last = 0;
        for (int a : arrives) last = Math.max(last, a);
        lastRound = last + 2; // two more rounds with nothing new: collection catches up
        for (int r = 0; r <= lastRound; r++) byRound.add(new ArrayList<>());
        for (int i = 0; i < n; i++) byRound.get(arrives[order[i]]).add(order[i]);
        lastArrival = new int[h.sessionCount()];
        Arrays.fill(lastArrival, -1);
        for (int t = 0; t < n; t++) lastArrival[h.session(t)] = Math.max(lastArrival[h.session(t)], arrives[t]);
        delivered = new boolean[n];
    }

    /** The last round (rounds are numbered from 0). */
    int lastRound() { return lastRound; }

    /** How many rounds the verifier decides at once next: one to four. */
    int batchSize() { return 1 + rnd.nextInt(4); }

    /** The transactions delivered so far, by index in the history (kept up to date: copy it to keep a moment's). */
    boolean[] delivered() { return delivered; }

    /**
     * Delivers round {@code r} to {@code v} and closes it, as the topology would: the round's transactions, then its end with
     * the sessions retired (late past the timeout, or done), revived and closed now, and the epochs agreed closed (those
     * nothing still to come from a session not retired follows).
     */
    RoundVerifier.Closed deliver(int r, RoundVerifier v) {
        int n = h.size();
        for (int t : byRound.get(r)) { delivered[t] = true; v.add(toTransaction(t)); }
        // sessions retired while late (the topology's timeout) or done; revived when they send again
        List<String> retiredNow = new ArrayList<>(), revivedNow = new ArrayList<>(), closedNow = new ArrayList<>();
        for (int s = 0; s < h.sessionCount(); s++) {
            String name = WireNames.of(h.sessionName(s));
            boolean done = lastArrival[s] <= r, late = retiredWhileLate[s] && r >= lateFrom[s] && !done && !arrivesIn(byRound.get(r), s);
            if ((done || late) && retired.add(s)) retiredNow.add(name);
            else if (!done && !late && retired.remove(s)) revivedNow.add(name);
            if (done && closed.add(s)) closedNow.add(name);
        }
        // what is still to come, from sessions not retired, holds the epochs it follows open
        long minFollowed = Long.MAX_VALUE;
        for (int t = 0; t < n; t++) if (!delivered[t] && !retired.contains(h.session(t))) minFollowed = Math.min(minFollowed, followed[t]);
        long oldEpochMax = ep.fenceCount() == 0 ? -1 : minFollowed == Long.MAX_VALUE ? Long.MAX_VALUE - 3 : EpochRules.lastClosedEpochBefore(minFollowed);
        RoundEnd end = RoundEnd.newBuilder().setRound(r).setTxns(byRound.get(r).size()).setFirstEpoch(-1).setLastEpoch(-1)
                .setEpochAgree(oldEpochMax < 0 ? 0 : oldEpochMax + 2).setRetiredNow(new ArrayList<>(retiredNow)).setRevivedNow(new ArrayList<>(revivedNow))
                .setClosedNow(new ArrayList<>(closedNow)).setCutAt(0).build();
        if (oldEpochMax < 0) end.setEpochAgree(-1_000_000); // nothing closed
        if (RoundsDifferential.TRACE) {
            StringBuilder sb = new StringBuilder("round " + r + " delivers");
            for (int t : byRound.get(r)) sb.append(' ').append(h.name(t));
            System.err.println(sb + "; epoch_agree " + end.getEpochAgree() + "; retired " + retiredNow + ", revived " + revivedNow + ", closed " + closedNow);
        }
        return v.closeRound(end);
    }

    private boolean arrivesIn(List<Integer> round, int s) {
        for (int t : round) if (h.session(t) == s) return true;
        return false;
    }

    /** Transaction {@code t} as the topology delivers it, with its stamped epoch. */
    private Transaction toTransaction(int t) { return HistoryRounds.toTransaction(h, t, sessionIndex[t], ep.isFence(t), stamped[t]); }
}
