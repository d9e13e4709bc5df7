package org.cobraverify.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.cobraverify.rounds.EpochRules;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Chains fence transactions into epochs by {@link EpochRules} (paper §4.2). All fences come here under one key. A fence reads
 * the fence key's latest value (a write id) and writes a new one; the fence that reads the chain head's
 * write becomes the next link, and its position in the chain is its epoch (the first fence has epoch 1).
 *
 * <p>Invariants: every chained fence is emitted once, on {@link Topics#FENCE_EPOCHS} keyed by its
 * session, with the epoch after that of the fence whose write it read (the initial state: 0), as soon as
 * that one is chained: fences that arrive before the fence they read wait in {@code fence-pending} and are
 * chained, transitively, the moment it is. A second fence that reads an already chained write (a lost
 * update of the fence key, which the verifier will report) is chained off it all the same, and so are the
 * fences that read it: a branch never waits. The head is the highest epoch chained. Fences that wait past
 * the gap timeout (in stream time; see {@link #closeGap}) for a fence that never comes (lost, or never
 * finished) have the oldest root of the waiting fences chained after the head, so a lost fence never
 * stalls the pipeline. State is bounded: the head, the waiting fences, and the writes of the last
 * {@link #KEEP_EPOCHS} epochs.
 */
final class FenceChain implements Processor<String, byte[], String, byte[]> {
    static final String KEY = "fence-chain";
    static final String HEAD = "fence-chain", PENDING = "fence-pending", BY_WRITE = "fence-epochs-by-write";
    private static final char SEP = '\u0000';

    private final WireFormat wire;
    private final TopologySettings settings;
    private ProcessorContext<String, byte[]> ctx;
    private KeyValueStore<String, FenceChainHead> head;
    private KeyValueStore<String, byte[]> pending;
    private KeyValueStore<String, Long> byWrite;
    private long pendingCount = -1; // -1: not counted yet in this instance; see pendingCount()
    private long stalledAtStream = -1; // stream time when the current stall began (-1: none, or not known since a restart)
    private int stampsSincePrune;

    /**
     * {@code fence-epochs-by-write} keeps the writes of the last {@code KEEP_EPOCHS} epochs (to recognise a
     * duplicate or a fork off a recent write), pruned every {@code PRUNE_EVERY} fences: its size is bounded,
     * not the history's. A fence that reads a write older than that waits like one whose predecessor is
     * missing, and the gap timeout chains it (a store that old is broken anyway; the verifier says so).
     */
    static final int KEEP_EPOCHS = 4096, PRUNE_EVERY = 1024;

    FenceChain(WireFormat wire, TopologySettings settings) {
        this.wire = wire;
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        ctx = context;
        head = context.getStateStore(HEAD);
        pending = context.getStateStore(PENDING);
        byWrite = context.getStateStore(BY_WRITE);
        context.schedule(Duration.ofMillis(settings.punctuateMs()), PunctuationType.WALL_CLOCK_TIME, this::closeGap);
    }

    @Override
    public void process(Record<String, byte[]> rec) {
        Transaction f;
        try {
            f = wire.decode(rec.value(), Transaction.class);
        } catch (MalformedRecordException e) {
            ctx.forward(DeadLetters.of(ctx, wire, rec, "undecodable fence: " + e.getMessage()), PipelineTopology.TO_DEAD_LETTERS + "-chain");
            return;
        }
        String w = written(f);
        if (w == null) {
            ctx.forward(DeadLetters.of(ctx, wire, rec, "fence " + f.getId() + " is not a committed read-modify-write of " + settings.fenceKey()), PipelineTopology.TO_DEAD_LETTERS + "-chain");
            return;
        }
        String r = read(f);
        if (byWrite.get(w) != null || pending.get(pendingKey(r, f.getId())) != null) {
            ctx.forward(DeadLetters.of(ctx, wire, rec, "duplicate fence " + f.getId()), PipelineTopology.TO_DEAD_LETTERS + "-chain");
            return;
        }
        FenceChainHead h = head();
        Long readEpoch = r.isEmpty() ? Long.valueOf(0) : byWrite.get(r);
        if (readEpoch != null) {
            // what it read is chained (the initial state: epoch 0): its epoch follows, and so do the fences
            // waiting on its write. A second fence that read one write (a fork: a lost update of the fence key,
            // which the verifier reports) or a second genesis is chained off what it read in the same way.
            chain(h, f, EpochRules.fenceEpoch(readEpoch), rec.timestamp());
            return;
        }
        pendingCount = pendingCount() + 1;
        pending.put(pendingKey(r, f.getId()), rec.value());
        noteStall(h);
        head.put(KEY, h);
    }

    /**
     * Stamps {@code f} with {@code epoch}, then every waiting fence that read its write (and so on, iteratively);
     * the head follows the highest epoch stamped. Then notes whether fences still wait.
     */
    private void chain(FenceChainHead h, Transaction f, long epoch, long timestamp) {
        java.util.ArrayDeque<Link> work = new java.util.ArrayDeque<>();
        work.add(new Link(f, epoch));
        while (!work.isEmpty()) {
            Link x = work.poll();
            Transaction t = x.fence();
            long e = x.epoch();
            stamp(t, e, timestamp);
            String w = written(t);
            if (e > h.getEpoch()) { h.setEpoch(e); h.setHeadWrite(w); }
            if (pendingCount() == 0) continue;
            List<KeyValue<String, byte[]>> readers = readersOf(w);
            pendingCount = pendingCount() - readers.size();
            for (KeyValue<String, byte[]> kv : readers) {
                pending.delete(kv.key);
                work.add(new Link(wire.decode(kv.value, Transaction.class), EpochRules.fenceEpoch(e)));
            }
        }
        noteStall(h);
        head.put(KEY, h);
    }

    /** A fence and the epoch it is to be stamped with. */
    private record Link(Transaction fence, long epoch) {}

    /** Fences wait: the stall began now (wall clock and stream time) unless it had begun already; none wait: no stall. */
    private void noteStall(FenceChainHead h) {
        if (pendingCount() == 0) { h.setStalledSince(0L); stalledAtStream = -1; return; }
        if (h.getStalledSince() == 0) { h.setStalledSince(ctx.currentSystemTimeMs()); stalledAtStream = ctx.currentStreamTimeMs(); }
        if (stalledAtStream < 0) stalledAtStream = ctx.currentStreamTimeMs(); // restarted during a stall
    }

    /**
     * Punctuation: fences stalled past the gap timeout: the oldest waiting root (a fence whose read no waiting
     * fence wrote) is chained after the head, as if the chain had reached what it read. The timeout runs in
     * stream time (fences recorded that long after the stall began have arrived, and its predecessor has not:
     * lost, not merely behind in a lagging partition), or in wall-clock time six times as long (no fences
     * arrive at all). Under overload the whole topology lags; a wall-clock timeout alone then bridged fences
     * that were only late, moving the head to a branch, and the chain stalled for good (seen in the demo).
     */
    private void closeGap(long now) {
        FenceChainHead h = head();
        if (h.getStalledSince() == 0) return;
        long streamGap = stalledAtStream < 0 ? 0 : ctx.currentStreamTimeMs() - stalledAtStream;
        boolean due = (now - h.getStalledSince() >= settings.fenceGapTimeoutMs() && streamGap >= settings.fenceGapTimeoutMs())
                || now - h.getStalledSince() >= 6 * settings.fenceGapTimeoutMs();
        if (!due) return;
        Set<String> writes = new HashSet<>();
        List<Transaction> all = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                Transaction t = wire.decode(it.next().value, Transaction.class);
                all.add(t);
                writes.add(written(t));
            }
        }
        Transaction root = null;
        for (Transaction t : all) {
            if (writes.contains(read(t))) continue;
            if (root == null || t.getEnd() < root.getEnd()) root = t;
        }
        if (root == null) return; // every waiting fence waits on another: a cycle of reads, which no order explains
        pending.delete(pendingKey(read(root), root.getId()));
        pendingCount = pendingCount() - 1;
        h.setGaps(h.getGaps() + 1);
        h.setStalledSince(0L);
        stalledAtStream = -1;
        chain(h, root, EpochRules.fenceEpoch(h.getEpoch()), now);
    }

    private List<KeyValue<String, byte[]>> readersOf(String write) {
        List<KeyValue<String, byte[]>> out = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = pending.prefixScan(write + SEP, new StringSerializer())) {
            while (it.hasNext()) out.add(it.next());
        }
        return out;
    }

    /**
     * How many fences wait, counted in memory: a scan of the store each time would step over every deleted
     * fence. Counted from the store once per processor instance (after a restart).
     */
    private long pendingCount() {
        if (pendingCount < 0) {
            pendingCount = 0;
            try (KeyValueIterator<String, byte[]> it = pending.all()) {
                while (it.hasNext()) { it.next(); pendingCount++; }
            }
        }
        return pendingCount;
    }

    private void stamp(Transaction f, long epoch, long timestamp) {
        f.setEpoch(epoch);
        byWrite.put(written(f), epoch);
        if (++stampsSincePrune >= PRUNE_EVERY) {
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
        ctx.forward(new Record<>(f.getSession(), wire.encode(f), timestamp), PipelineTopology.TO_FENCE_EPOCHS);
    }

    private FenceChainHead head() {
        FenceChainHead h = head.get(KEY);
        return h != null ? h : new FenceChainHead(0L, null, 0L, 0L);
    }

    private static String pendingKey(String read, String id) { return read + SEP + id; }

    /** The write id the fence read from the fence key ("" for the initial state). */
    private String read(Transaction f) { return EpochRules.fenceRead(f, settings.fenceKey()); }

    /** The write id the fence installed last on the fence key; null if it is not a fence. */
    private String written(Transaction f) { return EpochRules.isFence(f, settings.fenceKey()) ? EpochRules.fenceWrite(f, settings.fenceKey()) : null; }
}
