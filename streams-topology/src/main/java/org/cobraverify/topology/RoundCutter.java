package org.cobraverify.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.cobraverify.schemas.CutterMeta;
import org.cobraverify.schemas.CutterSession;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Cuts the epoch-stamped transactions ({@link Topics#TXNS}, one partition) into rounds on
 * {@link Topics#ROUNDS}: each round is its transactions (as they came, keyed by the round number), then a
 * {@link RoundEnd}.
 *
 * <p>{@code epoch_agree} is the smallest epoch reached by a live session (one neither ended nor retired);
 * a session's later transactions all have epochs at least what it reached, so the epochs below
 * {@code epoch_agree} are closed. Invariants: only transactions of closed epochs are cut, whole epochs
 * at a time, in epoch order; a round is cut once at least {@code roundSize} such transactions wait, or,
 * after {@code idleCutMs} without input, with whatever closed epochs wait; every transaction is in
 * exactly one round. State does not grow with the sessions that ever existed: a retired session is announced
 * in the next {@link RoundEnd} ({@code retiredNow}) and leaves the state (one its client closed, once every
 * transaction it sent has been cut: then also in {@code closedNow}); one that sends transactions again
 * (with no state here, and no SessionStart) is announced as live ({@code revivedNow}), as is every session when it first appears.
 */
final class RoundCutter implements Processor<String, byte[], String, byte[]> {
    static final String SESSIONS = "cutter-sessions", BUFFER = "cutter-buffer", META = "cutter-meta";
    private static final String META_KEY = "meta";
    /** A projection of {@link Transaction}: what the cutter reads of each. */
    static final org.apache.avro.Schema HEAD = new org.apache.avro.Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Transaction\",\"namespace\":\"org.cobraverify.schemas\",\"fields\":["
            + "{\"name\":\"session\",\"type\":\"string\"},{\"name\":\"epoch\",\"type\":\"long\",\"default\":-1}]}");

    private final WireFormat wire;
    private final TopologySettings settings;
    private ProcessorContext<String, byte[]> ctx;
    private KeyValueStore<String, CutterSession> sessions;
    private KeyValueStore<String, byte[]> buffer;
    private KeyValueStore<String, CutterMeta> meta;
    // caches of the stores, rebuilt from them on first use (stores are the truth; restored after a restart)
    private Map<String, CutterSession> sessionCache;
    // the buffer in memory, by epoch then arrival (scanning the store would step over every cut transaction's tombstone)
    private TreeMap<Long, List<KeyValue<String, byte[]>>> waiting;

    RoundCutter(WireFormat wire, TopologySettings settings) {
        this.wire = wire;
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        ctx = context;
        sessions = context.getStateStore(SESSIONS);
        buffer = context.getStateStore(BUFFER);
        meta = context.getStateStore(META);
        context.schedule(Duration.ofMillis(settings.punctuateMs()), PunctuationType.WALL_CLOCK_TIME, this::onIdle);
    }

    @Override
    public void process(Record<String, byte[]> rec) {
        loadCaches();
        String type;
        try {
            type = wire.typeOf(rec.value());
        } catch (MalformedRecordException e) {
            ctx.forward(DeadLetters.of(ctx, wire, rec, "undecodable transaction: " + e.getMessage()), PipelineTopology.TO_DEAD_LETTERS + "-cut");
            return;
        }
        long now = ctx.currentSystemTimeMs();
        CutterMeta m = meta();
        if (type.equals(SessionStart.getClassSchema().getFullName())) {
            String id = wire.decode(rec.value(), SessionStart.class).getSession();
            if (!sessionCache.containsKey(id)) {
                // its transactions will have epochs at least the chain's head when it first fences: never below today's agreement
                long agree = epochAgree();
                // revived: announced once as live, in case it is a retired session that starts again
                putSession(id, new CutterSession(agree == Long.MAX_VALUE ? highestReached() : agree, now, false, false, true));
            }
        } else if (type.equals(SessionEnd.getClassSchema().getFullName())) {
            SessionEnd end = wire.decode(rec.value(), SessionEnd.class);
            CutterSession s = sessionCache.get(end.getSession());
            if (s != null) {
                s.setRetired(true);
                s.setEnded(end.getReason().equals("closed"));
                putSession(end.getSession(), s);
            }
        } else if (type.equals(Transaction.getClassSchema().getFullName())) {
            org.apache.avro.generic.GenericRecord t;
            try {
                t = wire.decodeProjected(rec.value(), HEAD); // the session and the epoch are all the cutter needs
            } catch (MalformedRecordException e) {
                ctx.forward(DeadLetters.of(ctx, wire, rec, "undecodable transaction: " + e.getMessage()), PipelineTopology.TO_DEAD_LETTERS + "-cut");
                return;
            }
            long epoch = Math.max(0, (Long) t.get("epoch"));
            String session = t.get("session").toString();
            CutterSession s = sessionCache.get(session);
            if (s == null) s = new CutterSession(epoch, now, false, false, true); // no state: back after its retirement went out
            s.setReached(Math.max(s.getReached(), epoch));
            s.setLastSeen(now);
            s.setRetired(false);
            putSession(session, s);
            long seq = m.getNextSeq();
            m.setNextSeq(seq + 1);
            String key = bufferKey(epoch, seq);
            buffer.put(key, rec.value());
            waiting.computeIfAbsent(epoch, x -> new ArrayList<>()).add(KeyValue.pair(key, rec.value()));
        } else {
            ctx.forward(DeadLetters.of(ctx, wire, rec, "a " + type + " on " + Topics.TXNS + ", expected a Transaction, a SessionStart or a SessionEnd"),
                    PipelineTopology.TO_DEAD_LETTERS + "-cut");
            return;
        }
        m.setLastArrival(now);
        cut(m, false, now);
        meta.put(META_KEY, m);
    }

    /** The smallest epoch a live session has reached; {@code Long.MAX_VALUE} when no session is live. */
    long epochAgree() {
        long agree = Long.MAX_VALUE;
        for (CutterSession s : sessionCache.values()) if (!s.getRetired()) agree = Math.min(agree, s.getReached());
        return agree;
    }

    private void cut(CutterMeta m, boolean idle, long now) {
        while (true) {
            long agree = epochAgree();
            int closed = 0, acc = 0;
            long cutEpoch = -1;
            for (Map.Entry<Long, List<KeyValue<String, byte[]>>> e : waiting.headMap(agree, false).entrySet()) {
                closed += e.getValue().size();
                if (cutEpoch < 0 && closed >= settings.roundSize()) { cutEpoch = e.getKey(); acc = closed; }
            }
            if (cutEpoch >= 0) {
                emitRound(m, cutEpoch, acc, agree, "size", now);
            } else if (idle && closed > 0) {
                emitRound(m, waiting.headMap(agree, false).lastKey(), closed, agree, "idle", now);
                return;
            } else {
                return;
            }
        }
    }

    private void emitRound(CutterMeta m, long lastEpoch, int count, long agree, String reason, long now) {
        long round = m.getNextRound();
        long firstEpoch = waiting.firstKey();
        String roundKey = Long.toString(round);
        int n = 0;
        var cut = waiting.headMap(lastEpoch, true);
        for (List<KeyValue<String, byte[]>> l : cut.values())
            for (KeyValue<String, byte[]> kv : l) {
                ctx.forward(new Record<>(roundKey, kv.value, now), PipelineTopology.TO_ROUNDS); // unchanged: the key says the round
                buffer.delete(kv.key);
                n++;
            }
        cut.clear();
        // retirements since the last RoundEnd go out once; then those sessions leave the state (a session that
        // comes back starts afresh, and the verifier sees it live again by its transactions). A session its client
        // closed waits until every transaction it sent is cut (its epochs reach no further than this round's last):
        // then it goes out in closedNow too, and the verifier need not wait for anything more from it.
        List<String> retired = new ArrayList<>(), revived = new ArrayList<>(), closed = new ArrayList<>();
        sessionCache.forEach((s, st) -> {
            if (st.getRevived()) revived.add(s);
            if (!st.getRetired()) return;
            boolean drained = st.getEnded() && st.getReached() <= lastEpoch;
            if (!st.getEnded() || drained) retired.add(s);
            if (drained) closed.add(s);
        });
        retired.sort(null);
        revived.sort(null);
        closed.sort(null);
        java.util.Set<String> leaving = new java.util.HashSet<>(retired);
        for (String s : revived) {
            if (leaving.contains(s)) continue; // leaves below
            CutterSession st = sessionCache.get(s);
            st.setRevived(false);
            putSession(s, st);
        }
        for (String s : retired) {
            sessionCache.remove(s);
            sessions.delete(s);
        }
        RoundEnd end = RoundEnd.newBuilder().setRound(round).setTxns(n).setFirstEpoch(firstEpoch).setLastEpoch(lastEpoch)
                .setEpochAgree(agree == Long.MAX_VALUE ? -1 : agree).setRetiredNow(retired).setRevivedNow(revived).setClosedNow(closed).setReason(reason).setCutAt(now).build();
        ctx.forward(new Record<>(roundKey, wire.encode(end), now), PipelineTopology.TO_ROUNDS);
        m.setNextRound(round + 1);
    }

    /** Punctuation: after {@code idleCutMs} without input, cut the closed epochs that wait, however few. */
    private void onIdle(long now) {
        loadCaches();
        CutterMeta m = meta();
        if (waiting.isEmpty() || now - m.getLastArrival() < settings.idleCutMs()) return;
        long before = m.getNextRound();
        cut(m, true, now);
        if (m.getNextRound() != before) meta.put(META_KEY, m);
    }

    /** The highest epoch any session has reached (0 before any): where a session joining with none live starts. */
    private long highestReached() {
        long max = 0;
        for (CutterSession s : sessionCache.values()) max = Math.max(max, s.getReached());
        return max;
    }

    private void putSession(String id, CutterSession s) {
        sessionCache.put(id, s);
        sessions.put(id, s);
    }

    private CutterMeta meta() {
        CutterMeta m = meta.get(META_KEY);
        return m != null ? m : new CutterMeta(0L, 0L, ctx.currentSystemTimeMs());
    }

    private void loadCaches() {
        if (sessionCache != null) return;
        sessionCache = new HashMap<>();
        waiting = new TreeMap<>();
        try (KeyValueIterator<String, CutterSession> it = sessions.all()) {
            while (it.hasNext()) {
                KeyValue<String, CutterSession> kv = it.next();
                sessionCache.put(kv.key, kv.value);
            }
        }
        try (KeyValueIterator<String, byte[]> it = buffer.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                waiting.computeIfAbsent(Long.parseLong(kv.key.substring(0, 19)), x -> new ArrayList<>()).add(kv);
            }
        }
    }

    /** Sorts by epoch, then arrival: fixed-width decimal, so byte order is numeric order. */
    static String bufferKey(long epoch, long seq) {
        StringBuilder sb = new StringBuilder(39);
        OrderedKeys.appendPadded(sb, epoch).append(':');
        return OrderedKeys.appendPadded(sb, seq).toString();
    }
}
