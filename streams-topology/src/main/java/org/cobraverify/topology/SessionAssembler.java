package org.cobraverify.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.OpenSession;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.OperationBatch;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Turns each session's operations ({@link Topics#OPS}) into finished transactions on {@link Topics#TXNS},
 * in session order, each the moment its outcome arrives (no epoch yet: the round cutter stamps them).
 *
 * <p>Invariants, per session: operations are applied in {@code seq} order with no gaps (early ones wait,
 * duplicates are dead-lettered); at most one transaction is open; a {@link SessionStart} precedes the
 * session's transactions on {@link Topics#TXNS} (so the round cutter waits for a session from its first
 * operation on) and a {@link SessionEnd} follows them when the client closes it ("closed") or it falls
 * silent past the timeout ("timeout"). A session ended (or silent) long enough leaves the state
 * ({@link TopologySettings#forgetEndedMs}, {@link TopologySettings#forgetSilentMs}).
 *
 * <p>docs/DESIGN.md §3.2 (hop 2), §9.2 (what bounds its store), §10.2 (dead letters); it enforces assumption A2.
 */
final class SessionAssembler implements Processor<String, byte[], String, byte[]> {
    static final String OPEN = "open-sessions";

    private final WireFormat wire;
    private final TopologySettings settings;
    private ProcessorContext<String, byte[]> ctx;
    private KeyValueStore<String, OpenSession> open;
    // write-through cache of open-sessions (the store is the truth; a new task instance starts empty)
    private final Map<String, OpenSession> cache = new HashMap<>();

    SessionAssembler(WireFormat wire, TopologySettings settings) {
        this.wire = wire;
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        ctx = context;
        open = context.getStateStore(OPEN);
        context.schedule(Duration.ofMillis(settings.punctuateMs()), PunctuationType.WALL_CLOCK_TIME, this::retireSilent);
    }

    @Override
    public void process(Record<String, byte[]> rec) {
        List<Operation> ops;
        try {
            String type = wire.typeOf(rec.value());
            if (type.equals(OperationBatch.getClassSchema().getFullName())) {
                OperationBatch b = wire.decode(rec.value(), OperationBatch.class);
                for (Operation o : b.getOps())
                    if (!o.getSession().equals(b.getSession())) {
                        dead(rec, "a batch of session " + b.getSession() + " holds an operation of session " + o.getSession());
                        return;
                    }
                ops = b.getOps();
            } else {
                ops = List.of(wire.decode(rec.value(), Operation.class));
            }
        } catch (MalformedRecordException e) {
            dead(rec, "undecodable operation: " + e.getMessage());
            return;
        }
        if (ops.isEmpty()) return;
        String s = ops.get(0).getSession();
        if (rec.key() == null || !rec.key().equals(s)) {
            dead(rec, "record key " + rec.key() + " is not the operation's session " + s);
            return;
        }
        OpenSession st = session(s);
        if (st == null) {
            st = OpenSession.newBuilder().setLastSeq(0L).setTxnCount(0L).setLastActivity(now()).setEarly(new ArrayList<>()).build();
            ctx.forward(new Record<>(s, wire.encode(Topics.TXNS, new SessionStart(s)), rec.timestamp()), PipelineTopology.TO_TXNS);
        }
        boolean batch = ops.size() > 1;
        for (Operation op : ops) onOperation(rec, st, op, batch);
        save(s, st);
    }

    /** One operation, in or out of order; {@code inBatch}: dead letters say which operation of the record. */
    private void onOperation(Record<String, byte[]> rec, OpenSession st, Operation op, boolean inBatch) {
        String s = op.getSession();
        String which = inBatch ? " (in a batch)" : "";
        if (st.getEnded()) {
            dead(rec, "operation seq " + op.getSeq() + " of session " + s + " after the session ended" + which);
            return;
        }
        long q = op.getSeq();
        if (q <= st.getLastSeq() || isEarly(st, q)) {
            dead(rec, "duplicate operation: seq " + q + " of session " + s + " (applied up to " + st.getLastSeq() + ")" + which);
            return;
        }
        st.setLastActivity(now());
        if (st.getRetired()) st.setRetired(false);
        if (q > st.getLastSeq() + 1) {
            List<Operation> early = new ArrayList<>(st.getEarly());
            early.add(op);
            early.sort(Comparator.comparingLong(Operation::getSeq));
            st.setEarly(early);
            if (early.size() > settings.maxEarlyOps()) skipGap(rec, st);
        } else {
            apply(rec, st, op);
        }
        drainEarly(rec, st);
    }

    /** Whether an operation with this seq already waits behind a gap (almost always none waits). */
    private static boolean isEarly(OpenSession st, long q) {
        for (Operation e : st.getEarly()) if (e.getSeq() == q) return true;
        return false;
    }

    private OpenSession session(String s) {
        OpenSession st = cache.get(s);
        if (st == null) {
            st = open.get(s);
            if (st != null) cache.put(s, st);
        }
        return st;
    }

    private void save(String s, OpenSession st) {
        cache.put(s, st);
        open.put(s, st);
    }

    /** Applies the operations waiting ahead of a gap that has just been filled. */
    private void drainEarly(Record<String, byte[]> rec, OpenSession st) {
        while (!st.getEarly().isEmpty() && st.getEarly().get(0).getSeq() == st.getLastSeq() + 1) {
            List<Operation> early = new ArrayList<>(st.getEarly());
            Operation next = early.remove(0);
            st.setEarly(early);
            apply(rec, st, next);
        }
    }

    /**
     * Too many operations wait behind a gap: the missing ones are declared lost. The transaction they
     * belonged to cannot be trusted (a lost read could hide a violation), so it is dead-lettered whole.
     */
    private void skipGap(Record<String, byte[]> rec, OpenSession st) {
        long first = st.getEarly().get(0).getSeq();
        String lost = "operations " + (st.getLastSeq() + 1) + ".." + (first - 1) + " of session " + rec.key() + " never arrived";
        if (st.getOpen() != null) {
            dead(new Record<>(rec.key(), wire.encode(st.getOpen()), rec.timestamp()),
                    "transaction " + st.getOpen().getId() + " is incomplete: " + lost);
            st.setOpen(null);
        }
        st.setLastSeq(first - 1);
    }

    private void apply(Record<String, byte[]> rec, OpenSession st, Operation op) {
        st.setLastSeq(op.getSeq());
        Transaction t = st.getOpen();
        OpKind kind = op.getKind();
        if (kind == OpKind.BEGIN) {
            if (t != null) finish(rec, st, TxnStatus.UNKNOWN, op.getTime()); // began again without an outcome: it may have committed
            st.setOpen(Transaction.newBuilder().setId(op.getTxn()).setSession(op.getSession()).setStatus(TxnStatus.UNKNOWN)
                    .setStart(op.getTime()).setEnd(op.getTime()).setOps(new ArrayList<>()).build());
            return;
        }
        if (kind == OpKind.END) {
            if (t != null) finish(rec, st, TxnStatus.UNKNOWN, op.getTime());
            st.setEnded(true);
            ctx.forward(new Record<>(op.getSession(), wire.encode(Topics.TXNS, new SessionEnd(op.getSession(), st.getTxnCount(), "closed")), rec.timestamp()),
                    PipelineTopology.TO_TXNS);
            return;
        }
        if (t == null || !t.getId().equals(op.getTxn())) {
            String why = op.getTxn().equals(st.getLastFinishedTxn()) ? "after its transaction " + op.getTxn() + " ended"
                    : "of transaction " + op.getTxn() + ", which was never begun" + (t == null ? "" : " (open: " + t.getId() + ")");
            dead(rec, kind + " seq " + op.getSeq() + " of session " + op.getSession() + " " + why);
            return;
        }
        switch (kind) {
            case READ, WRITE -> {
                if (op.getKey() == null) {
                    dead(rec, kind + " seq " + op.getSeq() + " of session " + op.getSession() + " has no key");
                    return;
                }
                if (kind == OpKind.WRITE && op.getValue() == null) {
                    dead(rec, "WRITE seq " + op.getSeq() + " of session " + op.getSession() + " has no write id");
                    return;
                }
                t.getOps().add(new TxnOp(kind == OpKind.WRITE, op.getKey(), op.getValue()));
            }
            case COMMIT -> finish(rec, st, TxnStatus.COMMITTED, op.getTime());
            case ABORT -> finish(rec, st, TxnStatus.ABORTED, op.getTime());
            case UNKNOWN -> finish(rec, st, TxnStatus.UNKNOWN, op.getTime());
            default -> throw new IllegalStateException("unhandled " + kind);
        }
    }

    private void finish(Record<String, byte[]> rec, OpenSession st, TxnStatus status, long end) {
        Transaction t = st.getOpen();
        st.setOpen(null);
        t.setStatus(status);
        t.setEnd(end);
        st.setTxnCount(st.getTxnCount() + 1);
        t.setSessionIndex(st.getTxnCount());
        t.setFence(EpochRules.isFence(t, settings.fenceKey()));
        st.setLastFinishedTxn(t.getId());
        ctx.forward(new Record<>(t.getSession(), wire.encode(Topics.TXNS, t), rec.timestamp()), PipelineTopology.TO_TXNS);
    }

    /** Punctuation: sessions silent past the timeout are announced (the cutter releases what they hold), and long-gone ones forgotten. */
    private void retireSilent(long now) {
        List<KeyValue<String, OpenSession>> due = new ArrayList<>();
        List<String> forget = new ArrayList<>();
        try (KeyValueIterator<String, OpenSession> it = open.all()) {
            while (it.hasNext()) {
                KeyValue<String, OpenSession> kv = it.next();
                OpenSession st = kv.value;
                long silent = now - st.getLastActivity();
                if (!st.getEnded() && !st.getRetired() && silent >= settings.sessionTimeoutMs()) due.add(kv);
                else if ((st.getEnded() && silent >= settings.forgetEndedMs()) || (st.getRetired() && silent >= settings.forgetSilentMs()))
                    forget.add(kv.key);
            }
        }
        // the state holds the sessions of the last while, not every session that ever was: a client that died inside a
        // transaction leaves it open for good, so a session silent that long goes with its open transaction, which is
        // quarantined whole (its outcome, and whether operations of it were lost, cannot be known; a read of its
        // writes then finds no writer and waits, never accepted)
        for (String s : forget) {
            OpenSession st = session(s);
            if (st != null && st.getOpen() != null) {
                Transaction t = st.getOpen();
                dead(new Record<>(s, wire.encode(t), now), "transaction " + t.getId() + " of session " + s + " was still open after "
                        + (now - st.getLastActivity()) + " ms of silence, when the session was forgotten; its outcome is unknown and it may lack operations");
            }
            open.delete(s);
            cache.remove(s);
        }
        for (KeyValue<String, OpenSession> kv : due) {
            OpenSession st = kv.value;
            st.setRetired(true);
            ctx.forward(new Record<>(kv.key, wire.encode(Topics.TXNS, new SessionEnd(kv.key, st.getTxnCount(), "timeout")), now), PipelineTopology.TO_TXNS);
            save(kv.key, st);
        }
    }

    private void dead(Record<String, byte[]> rec, String reason) {
        ctx.forward(DeadLetters.of(ctx, wire, rec, reason), PipelineTopology.TO_DEAD_LETTERS);
    }

    private long now() { return ctx.currentSystemTimeMs(); }
}
