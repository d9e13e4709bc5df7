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
 * session; fences that arrive before the fence they read wait in {@code fence-pending}; a second fence
 * that reads an already chained write (a lost update of the fence key, which the verifier will report)
 * gets the epoch after the fence it read, without moving the head; fences that wait longer than the gap
 * timeout with none reading the head (the fence they read was lost or never finished) have the oldest
 * root of the waiting fences chained anyway, so a lost fence never stalls the pipeline. State is bounded:
 * the head, the waiting fences, and the writes of the last {@link #KEEP_EPOCHS} epochs.
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
        Long readEpoch = r.isEmpty() ? null : byWrite.get(r);
        if (readEpoch != null && !r.equals(h.getHeadWrite())) {
            stamp(f, EpochRules.fenceEpoch(readEpoch), rec.timestamp()); // a fork: two fences read the same write
            return;
        }
        if (r.isEmpty() && h.getEpoch() > 0) {
            stamp(f, EpochRules.fenceEpoch(0), rec.timestamp()); // a second genesis: it read the initial state after a fence had written
            return;
        }
        pendingCount = pendingCount() + 1;
        pending.put(pendingKey(r, f.getId()), rec.value());
        drain(h, rec.timestamp());
    }

    /** Chains every waiting fence that reads the head, then notes whether fences still wait. */
    private void drain(FenceChainHead h, long timestamp) {
        while (true) {
            String hw = h.getHeadWrite() == null ? "" : h.getHeadWrite();
            List<KeyValue<String, byte[]>> readers = readersOf(hw);
            if (readers.isEmpty()) break;
            pendingCount = pendingCount() - readers.size();
            for (KeyValue<String, byte[]> kv : readers) pending.delete(kv.key);
            Transaction next = wire.decode(readers.get(0).value, Transaction.class);
            long epoch = EpochRules.fenceEpoch(h.getEpoch());
            stamp(next, epoch, timestamp);
            for (int i = 1; i < readers.size(); i++) stamp(wire.decode(readers.get(i).value, Transaction.class), epoch, timestamp);
            h.setEpoch(epoch);
            h.setHeadWrite(written(next));
        }
        h.setStalledSince(pendingCount() > 0 ? (h.getStalledSince() == 0 ? ctx.currentSystemTimeMs() : h.getStalledSince()) : 0L);
        head.put(KEY, h);
    }

    /** Punctuation: fences stalled past the gap timeout: chain the root of the waiting fences. */
    private void closeGap(long now) {
        FenceChainHead h = head();
        if (h.getStalledSince() == 0 || now - h.getStalledSince() < settings.fenceGapTimeoutMs()) return;
        Set<String> writes = new HashSet<>();
        List<KeyValue<String, byte[]>> all = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                all.add(kv);
                writes.add(written(wire.decode(kv.value, Transaction.class)));
            }
        }
        for (KeyValue<String, byte[]> kv : all) {
            String r = kv.key.substring(0, kv.key.indexOf(SEP));
            if (writes.contains(r)) continue;
            // nobody waiting wrote what this one read: it is a root; pretend the chain reached what it read
            h.setHeadWrite(r.isEmpty() ? null : r);
            h.setGaps(h.getGaps() + 1);
            h.setStalledSince(0L);
            drain(h, now);
            return;
        }
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
