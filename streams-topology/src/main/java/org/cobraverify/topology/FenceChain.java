package org.cobraverify.topology;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * Chains fence transactions into epochs by {@link EpochRules} (paper §4.2), for the round cutter that owns it.
 * A fence reads the fence key's latest value (a write id) and writes a new one; a fence gets the epoch after
 * that of the fence whose write it read (the initial state: 0, so the first fence has epoch 1).
 *
 * <p>Invariants: a fence is chained (returned as a {@link Link}) once, as soon as what it read is chained;
 * fences that arrive before the fence they read wait here and are chained, transitively, the moment it is.
 * A second fence that reads an already chained write (a lost update of the fence key, which the verifier
 * will report) is chained off it all the same, and so are the fences that read it: a branch never waits.
 * The head is the highest epoch chained. Fences that wait past the gap timeout (in stream time; see
 * {@link #closeGap}) for a fence that never comes (lost, or never finished) have the oldest root of the
 * waiting fences chained after the head, so a lost fence never stalls the pipeline. State is bounded: the
 * head, the waiting fences (in memory; the owner restores them from its own store after a restart), and the
 * writes of the last {@link #KEEP_EPOCHS} epochs.
 *
 * <p>docs/DESIGN.md §6.4 and §9.2.
 */
final class FenceChain {
    static final String HEAD = "fence-chain", BY_WRITE = "fence-epochs-by-write";
    private static final String KEY = "fence-chain"; // read by name through interactive queries (Pipeline.fenceGapsBridged)

    /**
     * {@code fence-epochs-by-write} keeps the writes of the last {@code KEEP_EPOCHS} epochs (to recognise a
     * duplicate or a fork off a recent write), pruned every {@code PRUNE_EVERY} fences: its size is bounded,
     * not the history's. A fence that reads a write older than that waits like one whose predecessor is
     * missing, and the gap timeout chains it (a store that old is broken anyway; the verifier says so).
     */
    static final int KEEP_EPOCHS = 4096, PRUNE_EVERY = 1024;

    /** A fence and the epoch it is stamped with. */
    record Link(Transaction fence, long epoch) {}

    private final String fenceKey;
    private final long gapTimeoutMs;
    private final KeyValueStore<String, FenceChainHead> head;
    private final KeyValueStore<String, Long> byWrite;
    // fences waiting for the write they read, by that write; and every waiting fence's own write
    private final Map<String, List<Transaction>> waitingOn = new HashMap<>();
    private final Set<String> waitingWrites = new HashSet<>();
    private long stalledAtStream = -1; // stream time when the current stall began (-1: none, or not known since a restart)
    private int stampsSincePrune;

    FenceChain(String fenceKey, long gapTimeoutMs, KeyValueStore<String, FenceChainHead> head, KeyValueStore<String, Long> byWrite) {
        this.fenceKey = fenceKey;
        this.gapTimeoutMs = gapTimeoutMs;
        this.head = head;
        this.byWrite = byWrite;
    }

    /** True when {@code t} is a committed read-modify-write of the fence key. */
    boolean isFence(Transaction t) { return EpochRules.isFence(t, fenceKey); }

    /**
     * Offers a fence. Returns null when it is a duplicate (its write is chained or waiting already: not chained
     * again); otherwise the fences chained by it, in chain order (empty: it waits for the fence it read).
     */
    List<Link> offer(Transaction f, long wallNow, long streamNow) {
        String w = written(f);
        if (byWrite.get(w) != null || waitingWrites.contains(w)) return null;
        FenceChainHead h = head();
        String r = read(f);
        Long readEpoch = r.isEmpty() ? Long.valueOf(0) : byWrite.get(r);
        if (readEpoch != null) return chain(h, f, EpochRules.fenceEpoch(readEpoch), wallNow, streamNow);
        waitingOn.computeIfAbsent(r, x -> new ArrayList<>()).add(f);
        waitingWrites.add(w);
        noteStall(h, wallNow, streamNow);
        head.put(KEY, h);
        return List.of();
    }

    /** After a restart: a fence that was waiting (it is not chained; the owner knows it is unstamped). False: a duplicate. */
    boolean restoreWaiting(Transaction f) {
        String w = written(f);
        if (byWrite.get(w) != null || waitingWrites.contains(w)) return false;
        waitingOn.computeIfAbsent(read(f), x -> new ArrayList<>()).add(f);
        waitingWrites.add(w);
        return true;
    }

    /**
     * Punctuation: fences stalled past the gap timeout: the oldest waiting root (a fence whose read no waiting
     * fence wrote) is chained after the head, as if the chain had reached what it read; returns what got chained.
     * The timeout runs in stream time (fences recorded that long after the stall began have arrived, and its
     * predecessor has not: lost, not merely behind in a lagging partition), or in wall-clock time six times as
     * long (no fences arrive at all). Under overload the whole topology lags; a wall-clock timeout alone then
     * bridged fences that were only late, moving the head to a branch (seen in the demo).
     */
    List<Link> closeGap(long wallNow, long streamNow) {
        FenceChainHead h = head();
        if (h.getStalledSince() == 0) return List.of();
        if (stalledAtStream < 0) stalledAtStream = streamNow; // restarted during a stall
        long streamGap = streamNow - stalledAtStream;
        boolean due = (wallNow - h.getStalledSince() >= gapTimeoutMs && streamGap >= gapTimeoutMs)
                || wallNow - h.getStalledSince() >= 6 * gapTimeoutMs;
        if (!due) return List.of();
        Transaction root = null;
        for (Map.Entry<String, List<Transaction>> e : waitingOn.entrySet()) {
            if (waitingWrites.contains(e.getKey())) continue; // waits on another waiting fence
            for (Transaction t : e.getValue()) if (root == null || t.getEnd() < root.getEnd()) root = t;
        }
        if (root == null) return List.of(); // every waiting fence waits on another: a cycle of reads, which no order explains
        unwait(root);
        h.setGaps(h.getGaps() + 1);
        h.setStalledSince(0L);
        stalledAtStream = -1;
        return chain(h, root, EpochRules.fenceEpoch(h.getEpoch()), wallNow, streamNow);
    }

    /**
     * Chains {@code f} with {@code epoch}, then every waiting fence that read its write (and so on, iteratively);
     * the head follows the highest epoch. Then notes whether fences still wait.
     */
    private List<Link> chain(FenceChainHead h, Transaction f, long epoch, long wallNow, long streamNow) {
        List<Link> out = new ArrayList<>();
        ArrayDeque<Link> work = new ArrayDeque<>();
        work.add(new Link(f, epoch));
        while (!work.isEmpty()) {
            Link x = work.poll();
            out.add(x);
            String w = written(x.fence());
            remember(w, x.epoch());
            if (x.epoch() > h.getEpoch()) { h.setEpoch(x.epoch()); h.setHeadWrite(w); }
            List<Transaction> readers = waitingOn.remove(w);
            if (readers == null) continue;
            for (Transaction t : readers) {
                waitingWrites.remove(written(t));
                work.add(new Link(t, EpochRules.fenceEpoch(x.epoch())));
            }
        }
        noteStall(h, wallNow, streamNow);
        head.put(KEY, h);
        return out;
    }

    private void unwait(Transaction f) {
        String r = read(f);
        List<Transaction> l = waitingOn.get(r);
        l.remove(f);
        if (l.isEmpty()) waitingOn.remove(r);
        waitingWrites.remove(written(f));
    }

    /** Fences wait: the stall began now (wall clock and stream time) unless it had begun already; none wait: no stall. */
    private void noteStall(FenceChainHead h, long wallNow, long streamNow) {
        if (waitingWrites.isEmpty()) { h.setStalledSince(0L); stalledAtStream = -1; return; }
        if (h.getStalledSince() == 0) { h.setStalledSince(wallNow); stalledAtStream = streamNow; }
        if (stalledAtStream < 0) stalledAtStream = streamNow;
    }

    private void remember(String write, long epoch) {
        byWrite.put(write, epoch);
        if (++stampsSincePrune < PRUNE_EVERY) return;
        stampsSincePrune = 0;
        List<String> old = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = byWrite.all()) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                if (kv.value < epoch - KEEP_EPOCHS) old.add(kv.key);
            }
        }
        for (String k : old) byWrite.delete(k);
    }

    private FenceChainHead head() {
        FenceChainHead h = head.get(KEY);
        return h != null ? h : new FenceChainHead(0L, null, 0L, 0L);
    }

    /** The write id the fence read from the fence key ("" for the initial state). */
    private String read(Transaction f) { return EpochRules.fenceRead(f, fenceKey); }

    /** The write id the fence installed last on the fence key. */
    private String written(Transaction f) { return EpochRules.fenceWrite(f, fenceKey); }
}
