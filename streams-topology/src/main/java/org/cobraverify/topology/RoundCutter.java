package org.cobraverify.topology;

import java.time.Duration;
import java.util.ArrayDeque;
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
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
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
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Stamps the finished transactions ({@link Topics#TXNS}, one partition, each session's in session order) with
 * epochs from the {@link FenceChain} it owns, and cuts them into rounds on {@link Topics#ROUNDS}: each round
 * is its transactions (keyed by the round number), then a {@link RoundEnd}.
 *
 * <p><b>Epochs</b> ({@link EpochRules}): a session's transactions wait, in session order, until one of its
 * fences is chained with epoch {@code e}: that fence gets {@code e} and the transactions before it
 * {@code max(e − 1, previous fence epoch)}. A session that has run no fence does not hold {@code epoch_agree}, and what it sent
 * waits for its first fence at most {@link TopologySettings#unfencedAfterMs}: then it is released stamped
 * {@link EpochRules#UNFENCED}, as is what it sends next until it fences (a client that is not ours, or one that died before its
 * opening fence, must not stop the rounds). A session silent past the timeout ({@link SessionEnd}
 * "timeout"), or one holding more than {@code maxBufferedTxns}, has what waits released with its last fence
 * epoch; one its client closed ("closed"), once none of its fences still waits for the chain.
 *
 * <p><b>Rounds</b>: {@code epoch_agree} is the smallest epoch reached by a live session (one neither ended
 * nor retired); a session's later transactions all have epochs at least what it reached, so the epochs
 * below {@code epoch_agree} are closed. Only transactions of closed epochs are cut, whole epochs at a time,
 * in epoch order; a round is cut once at least {@code roundSize} such transactions wait, or, after
 * {@code idleCutMs} without input, with whatever closed epochs wait; every transaction is in exactly one round.
 *
 * <p><b>State</b>: each transaction is written once to {@code cutter-buffer} (keyed by arrival) and deleted
 * when cut; epochs are kept as ranges of session indexes in {@code cutter-stamps} (a key or two per fence,
 * deleted once cut), so stamping rewrites nothing per transaction; a session's record is written when it
 * changes in substance (a fence, a release, its end), the round counter when a round is cut. State does not grow with the sessions that ever
 * existed: a retired session is announced in the next {@link RoundEnd} ({@code retiredNow}); one its client
 * closed leaves once every transaction it sent is cut (then also in {@code closedNow}); one that timed out
 * stays as "gone", only its last fence epoch, for {@link TopologySettings#forgetSilentMs} (if it speaks
 * again, announced as live in {@code revivedNow}, its epochs go on from there).
 *
 * <p>docs/DESIGN.md §3.2 (hop 3), §6.4 (stamping, agreement, cutting), §9.2 (what bounds its stores).
 */
final class RoundCutter implements Processor<String, byte[], String, byte[]> {
    static final String SESSIONS = "cutter-sessions", BUFFER = "cutter-buffer", META = "cutter-meta", STAMPS = "cutter-stamps";
    private static final String META_KEY = "meta";
    /** A projection of {@link Transaction}: what the cutter reads of each (fences are decoded whole). */
    static final Schema HEAD = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Transaction\",\"namespace\":\"org.cobraverify.schemas\",\"fields\":["
            + "{\"name\":\"session\",\"type\":\"string\"},{\"name\":\"sessionIndex\",\"type\":\"long\",\"default\":-1},"
            + "{\"name\":\"fence\",\"type\":\"boolean\",\"default\":false}]}");

    /** A transaction in the buffer: its store key (arrival order), its bytes as they came, and what the cutter needs. */
    private static final class Entry {
        final String key, session;
        final byte[] value;
        final long index;
        final Transaction fence; // decoded, when it is a fence the chain took; else null
        long epoch = -1;

        Entry(String key, byte[] value, String session, long index, Transaction fence) {
            this.key = key;
            this.value = value;
            this.session = session;
            this.index = index;
            this.fence = fence;
        }
    }

    /** A live session in memory: its record and its transactions still waiting for a fence, in session order. */
    private static final class Live {
        final CutterSession st;
        final ArrayDeque<Entry> unstamped = new ArrayDeque<>();
        int unstampedFences;
        /**
         * For a session that has run no fence: when the first of its waiting transactions came (wall clock), and whether it
         * was found unfenced (no fence within {@link TopologySettings#unfencedAfterMs}): then what it sends is released at
         * once, stamped unfenced, until it fences. Memory only: after a restart a session waits out the delay once more.
         */
        long firstWaitingAt;
        boolean unfenced;

        Live(CutterSession st) { this.st = st; }
    }

    private static final Comparator<Entry> BY_ARRIVAL = Comparator.comparing(e -> e.key);

    private final WireFormat wire;
    private final TopologySettings settings;
    private ProcessorContext<String, byte[]> ctx;
    private KeyValueStore<String, CutterSession> sessions;
    private KeyValueStore<String, byte[]> buffer;
    private KeyValueStore<String, CutterMeta> meta;
    private KeyValueStore<String, Long> stampStore; // session \0 last index of a range -> the range's epoch
    private FenceChain chain;
    // memory, rebuilt from the stores on first use (the stores are the truth; restored after a restart)
    private Map<String, Live> live;
    private LinkedHashMap<String, CutterSession> gone; // in the order they went
    private TreeMap<Long, List<Entry>> stamped; // by epoch, then arrival
    private Set<String> dirty; // sessions whose record changed since the last write-back
    private Map<String, ArrayDeque<long[]>> stamps; // per session, {last index, epoch} of its stamped ranges not yet cut, ascending
    private long nextSeq, lastArrival, nextRound;
    private long checkedAgree = Long.MIN_VALUE; // epoch_agree when the cut was last checked
    private boolean placedBelowAgree; // since then, a transaction was stamped into an epoch already closed

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
        stampStore = context.getStateStore(STAMPS);
        chain = new FenceChain(settings.fenceKey(), settings.fenceGapTimeoutMs(), context.getStateStore(FenceChain.HEAD),
                context.getStateStore(FenceChain.BY_WRITE));
        context.schedule(Duration.ofMillis(settings.punctuateMs()), PunctuationType.WALL_CLOCK_TIME, this::onPunctuate);
    }

    @Override
    public void process(Record<String, byte[]> rec) {
        load();
        String type;
        try {
            type = wire.typeOf(rec.value());
        } catch (MalformedRecordException e) {
            dead(rec, "undecodable transaction: " + e.getMessage());
            return;
        }
        long now = ctx.currentSystemTimeMs();
        if (type.equals(Transaction.getClassSchema().getFullName())) {
            if (!onTransaction(rec, now)) return;
        } else if (type.equals(SessionStart.getClassSchema().getFullName())) {
            String id = wire.decode(rec.value(), SessionStart.class).getSession();
            if (!live.containsKey(id)) join(id, now);
        } else if (type.equals(SessionEnd.getClassSchema().getFullName())) {
            SessionEnd end = wire.decode(rec.value(), SessionEnd.class);
            Live s = live.get(end.getSession());
            if (s != null) {
                if (end.getReason().equals("closed")) {
                    s.st.setEnded(true);
                    settleIfEnded(end.getSession(), s);
                } else {
                    release(end.getSession(), s);
                    s.st.setRetired(true);
                }
                dirty.add(end.getSession());
            }
        } else {
            dead(rec, "a " + type + " on " + Topics.TXNS + ", expected a Transaction, a SessionStart or a SessionEnd");
            return;
        }
        lastArrival = now;
        cut(false, now);
        writeBack();
    }

    /** Buffers a transaction and, when it is a fence, chains it. False: dead-lettered. */
    private boolean onTransaction(Record<String, byte[]> rec, long now) {
        GenericRecord head;
        Transaction fence = null;
        try {
            head = wire.decodeProjected(rec.value(), HEAD);
            if ((Boolean) head.get("fence")) fence = wire.decode(rec.value(), Transaction.class);
        } catch (MalformedRecordException e) {
            dead(rec, "undecodable transaction: " + e.getMessage());
            return false;
        }
        String session = head.get("session").toString();
        long index = (Long) head.get("sessionIndex");
        Live s = live.get(session);
        if (s == null) s = revive(session, now);
        if (s.st.getRetired() && !s.st.getEnded()) { s.st.setRetired(false); dirty.add(session); } // silent, then spoke again before it went
        s.st.setLastSeen(now); // in memory; stored with the record's next write
        String key = OrderedKeys.appendPadded(new StringBuilder(19), nextSeq++).toString();
        buffer.put(key, rec.value());
        if (fence != null && !chain.isFence(fence)) fence = null; // flagged, but not a read-modify-write of this topology's fence key
        List<FenceChain.Link> links = fence == null ? List.of() : chain.offer(fence, now, ctx.currentStreamTimeMs());
        if (links == null) {
            dead(rec, "duplicate fence " + fence.getId() + ": its write of " + settings.fenceKey()
                    + " is chained already; it stays in its round as an ordinary transaction");
            fence = null;
            links = List.of();
        }
        Entry e = new Entry(key, rec.value(), session, index, fence);
        if (fence == null && s.unfenced && s.unstamped.isEmpty()) {
            // a session found unfenced (no fence in unfencedAfterMs): what it sends follows none (EpochRules rule 5), released at once
            place(s.st, e, EpochRules.UNFENCED);
            addStamp(session, index, EpochRules.UNFENCED);
            return true;
        }
        if (neverFenced(s) && s.unstamped.isEmpty()) s.firstWaitingAt = now;
        s.unstamped.add(e);
        if (fence != null) { s.unstampedFences++; s.unfenced = false; }
        for (FenceChain.Link l : links) stamp(l);
        if (s.unstamped.size() > settings.maxBufferedTxns()) release(session, s);
        return true;
    }

    /** A fence got its epoch: it and the transactions of its session waiting before it are stamped. */
    private void stamp(FenceChain.Link l) {
        String session = l.fence().getSession();
        long index = l.fence().getSessionIndex();
        Live s = live.get(session);
        if (s == null) { // its session was released and went meanwhile: only remember the epoch
            CutterSession g = gone.get(session);
            if (g != null && l.epoch() > g.getLastEpoch()) { g.setLastEpoch(l.epoch()); sessions.put(session, g); }
            return;
        }
        CutterSession st = s.st;
        dirty.add(session);
        s.unfenced = false;
        if (s.unstamped.isEmpty() || s.unstamped.peekFirst().index > index) { // released earlier with the last epoch known then
            st.setLastEpoch(Math.max(st.getLastEpoch(), l.epoch()));
            return;
        }
        long before = EpochRules.ordinaryEpoch(st.getLastEpoch(), l.epoch()), at = Math.max(l.epoch(), st.getLastEpoch());
        long lastBefore = -1;
        while (!s.unstamped.isEmpty() && s.unstamped.peekFirst().index <= index) {
            Entry e = s.unstamped.poll();
            if (e.fence != null) s.unstampedFences--;
            boolean last = e.index == index;
            place(st, e, last ? at : before);
            if (!last) lastBefore = e.index;
        }
        if (lastBefore >= 0) addStamp(session, lastBefore, before);
        addStamp(session, index, at);
        st.setLastEpoch(at);
        settleIfEnded(session, s);
    }

    /** A closed session whose fences are all chained: what follows its last fence takes that fence's epoch; it retires. */
    private void settleIfEnded(String session, Live s) {
        if (!s.st.getEnded() || s.unstampedFences > 0) return;
        release(session, s);
        s.st.setRetired(true);
    }

    /** Stamps every waiting transaction of the session with its last fence epoch (unfenced, for one that never fenced). */
    private void release(String session, Live s) {
        if (s.unstamped.isEmpty()) return;
        long epoch = neverFenced(s) ? EpochRules.UNFENCED : s.st.getLastEpoch(), last = s.unstamped.peekLast().index;
        for (Entry e; (e = s.unstamped.poll()) != null; ) place(s.st, e, epoch);
        s.unstampedFences = 0; // still waiting in the chain: when chained, they only move the session's last epoch
        addStamp(session, last, epoch);
        dirty.add(session);
    }

    private void place(CutterSession st, Entry e, long epoch) {
        e.epoch = epoch;
        st.setReached(Math.max(st.getReached(), epoch));
        stamped.computeIfAbsent(epoch, x -> new ArrayList<>()).add(e);
        if (epoch < checkedAgree) placedBelowAgree = true;
    }

    /** The session's transactions up to index {@code upTo} (after its previous range) have {@code epoch}. */
    private void addStamp(String session, long upTo, long epoch) {
        stamps.computeIfAbsent(session, x -> new ArrayDeque<>()).add(new long[] {upTo, epoch});
        stampStore.put(stampKey(session, upTo), epoch);
    }

    private static String stampKey(String session, long upTo) {
        return OrderedKeys.appendPadded(new StringBuilder(session.length() + 20).append(session).append('\0'), upTo).toString();
    }

    /** A session's first record here: it joins at today's agreement (its epochs will be at least the chain's head then). */
    private Live join(String id, long now) {
        long agree = epochAgree();
        CutterSession g = gone.remove(id);
        long lastEpoch = g == null ? 0 : g.getLastEpoch();
        Live s = new Live(new CutterSession(agree == Long.MAX_VALUE ? highestReached() : agree, now, false, false, true, lastEpoch, false));
        live.put(id, s);
        dirty.add(id);
        return s;
    }

    /** A transaction of a session with no live state: back after its retirement went out (or never announced). */
    private Live revive(String id, long now) {
        CutterSession g = gone.get(id);
        if (g == null) return join(id, now);
        gone.remove(id);
        // its new transactions go on from its last fence epoch (those not yet cut keep theirs, in cutter-stamps)
        Live s = new Live(new CutterSession(g.getLastEpoch(), now, false, false, true, g.getLastEpoch(), false));
        live.put(id, s);
        dirty.add(id);
        return s;
    }

    /**
     * The smallest epoch a live session has reached; {@code Long.MAX_VALUE} when no session is live. A session that has run
     * no fence (and has none waiting in the chain) does not count: its first fence will be chained at the head, above every
     * epoch reached, and what it sends before waits for that fence (its epoch, less one, may be one already cut: it goes
     * into a later round) or, past {@link TopologySettings#unfencedAfterMs}, goes unfenced.
     */
    long epochAgree() {
        long agree = Long.MAX_VALUE;
        for (Live s : live.values()) if (!s.st.getRetired() && !neverFenced(s)) agree = Math.min(agree, s.st.getReached());
        return agree;
    }

    /** Whether a live session has run no fence so far and has none waiting in the chain (EpochRules rule 5). */
    private static boolean neverFenced(Live s) { return s.st.getLastEpoch() == 0 && s.unstampedFences == 0; }

    /** Cuts what is due; checks only when it can have become due (the agreement moved, or something was stamped below it). */
    private void cut(boolean idle, long now) {
        while (true) {
            long agree = epochAgree();
            if (!idle && agree == checkedAgree && !placedBelowAgree) return;
            checkedAgree = agree;
            placedBelowAgree = false;
            int closed = 0;
            long cutEpoch = -1;
            for (Map.Entry<Long, List<Entry>> e : stamped.headMap(agree, false).entrySet()) {
                closed += e.getValue().size();
                if (closed >= settings.roundSize()) { cutEpoch = e.getKey(); break; }
            }
            if (cutEpoch >= 0) {
                emitRound(cutEpoch, agree, "size", now);
                placedBelowAgree = true; // more may be due at the same agreement
            } else if (idle && closed > 0) {
                emitRound(stamped.headMap(agree, false).lastKey(), agree, "idle", now);
                return;
            } else {
                return;
            }
        }
    }

    private void emitRound(long lastEpoch, long agree, String reason, long now) {
        long round = nextRound;
        long firstEpoch = stamped.firstKey();
        String roundKey = Long.toString(round);
        int n = 0;
        var cut = stamped.headMap(lastEpoch, true);
        Map<String, Long> cutUpTo = new HashMap<>();
        for (List<Entry> l : cut.values()) {
            l.sort(BY_ARRIVAL); // within an epoch, in arrival order: the order a restart restores, whatever the order of stamping
            for (Entry e : l) {
                ctx.forward(new Record<>(roundKey, EpochStamp.withEpoch(wire, e.value, e.epoch), now), PipelineTopology.TO_ROUNDS);
                buffer.delete(e.key);
                cutUpTo.merge(e.session, e.index, Math::max);
                n++;
            }
        }
        cut.clear();
        // the epochs of what was cut are no longer needed
        cutUpTo.forEach((session, upTo) -> {
            ArrayDeque<long[]> l = stamps.get(session);
            if (l == null) return;
            while (!l.isEmpty() && l.peekFirst()[0] <= upTo) stampStore.delete(stampKey(session, l.poll()[0]));
            if (l.isEmpty()) stamps.remove(session);
        });
        // retirements since the last RoundEnd go out once; then those sessions leave (a timed-out one stays as gone,
        // its last epoch only). A session its client closed waits until every transaction it sent is cut (its epochs
        // reach no further than this round's last): then it goes out in closedNow too, and the verifier need not wait
        // for anything more from it.
        List<String> retired = new ArrayList<>(), revived = new ArrayList<>(), closed = new ArrayList<>();
        live.forEach((id, s) -> {
            CutterSession st = s.st;
            if (st.getRevived()) revived.add(id);
            if (!st.getRetired() || !s.unstamped.isEmpty()) return;
            // (a session that never fenced sent only unfenced transactions, cut before any epoch: all of them are in this round or before)
            boolean drained = st.getEnded() && (neverFenced(s) || st.getReached() <= lastEpoch);
            if (!st.getEnded() || drained) retired.add(id);
            if (drained) closed.add(id);
        });
        retired.sort(null);
        revived.sort(null);
        closed.sort(null);
        Set<String> leaving = new HashSet<>(retired);
        for (String id : revived) {
            if (leaving.contains(id)) continue; // leaves below
            live.get(id).st.setRevived(false);
            dirty.add(id);
        }
        Set<String> closedSet = new HashSet<>(closed);
        for (String id : retired) {
            CutterSession st = live.remove(id).st;
            dirty.remove(id);
            if (closedSet.contains(id)) {
                sessions.delete(id);
            } else {
                st.setGone(true);
                st.setRevived(false);
                gone.put(id, st);

                sessions.put(id, st);
            }
        }
        RoundEnd end = RoundEnd.newBuilder().setRound(round).setTxns(n).setFirstEpoch(firstEpoch).setLastEpoch(lastEpoch)
                .setEpochAgree(agree == Long.MAX_VALUE ? -1 : agree).setRetiredNow(retired).setRevivedNow(revived).setClosedNow(closed)
                .setReason(reason).setCutAt(now).build();
        ctx.forward(new Record<>(roundKey, wire.encode(Topics.ROUNDS, end), now), PipelineTopology.TO_ROUNDS);
        nextRound = round + 1;
        meta.put(META_KEY, new CutterMeta(nextRound));
    }

    /**
     * Punctuation: bridges a fence gap that timed out; releases, unfenced, what sessions that ran no fence in time have sent;
     * after {@code idleCutMs} without input, cuts the closed epochs that wait; forgets long-gone sessions.
     */
    private void onPunctuate(long now) {
        load();
        for (FenceChain.Link l : chain.closeGap(now, ctx.currentStreamTimeMs())) stamp(l);
        live.forEach((id, s) -> {
            if (!neverFenced(s) || s.unstamped.isEmpty() || now - s.firstWaitingAt < settings.unfencedAfterMs()) return;
            s.unfenced = true;
            release(id, s);
        });
        cut(!stamped.isEmpty() && now - lastArrival >= settings.idleCutMs(), now);
        for (Iterator<Map.Entry<String, CutterSession>> it = gone.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, CutterSession> g = it.next();
            if (now - g.getValue().getLastSeen() < settings.forgetSilentMs()) break; // in the order they went
            sessions.delete(g.getKey());
            it.remove();
        }
        writeBack();
    }

    /** The highest epoch any session has reached (0 before any): where a session joining with none live starts. */
    private long highestReached() {
        long max = 0;
        for (Live s : live.values()) max = Math.max(max, s.st.getReached());
        return max;
    }

    /** Writes the records of the sessions touched (the store is cached: once per commit on the changelog). */
    private void writeBack() {
        for (String id : dirty) {
            Live s = live.get(id);
            if (s != null) sessions.put(id, s.st);
        }
        dirty.clear();
    }

    /** Rebuilds memory from the stores: sessions, then the buffer in arrival order (stamped, or waiting in its session). */
    private void load() {
        if (live != null) return;
        live = new HashMap<>();
        gone = new LinkedHashMap<>();
        stamped = new TreeMap<>();
        dirty = new HashSet<>();
        stamps = new HashMap<>();
        CutterMeta m = meta.get(META_KEY);
        nextRound = m == null ? 0 : m.getNextRound();
        lastArrival = ctx.currentSystemTimeMs();
        try (KeyValueIterator<String, Long> it = stampStore.all()) { // by session, then index: each session's ranges ascending
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                int sep = kv.key.lastIndexOf('\0');
                stamps.computeIfAbsent(kv.key.substring(0, sep), x -> new ArrayDeque<>())
                        .add(new long[] {Long.parseLong(kv.key.substring(sep + 1)), kv.value});
            }
        }
        List<KeyValue<String, CutterSession>> gones = new ArrayList<>();
        try (KeyValueIterator<String, CutterSession> it = sessions.all()) {
            while (it.hasNext()) {
                KeyValue<String, CutterSession> kv = it.next();
                if (kv.value.getGone()) gones.add(kv);
                else live.put(kv.key, new Live(kv.value));
            }
        }
        gones.sort(Comparator.comparingLong(kv -> kv.value.getLastSeen()));
        for (KeyValue<String, CutterSession> kv : gones) gone.put(kv.key, kv.value);
        try (KeyValueIterator<String, byte[]> it = buffer.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                nextSeq = Long.parseLong(kv.key) + 1; // keys ascend: new arrivals sort after what waits
                GenericRecord h = wire.decodeProjected(kv.value, HEAD);
                String session = h.get("session").toString();
                long index = (Long) h.get("sessionIndex");
                Live s = live.get(session);
                long epoch = -1;
                for (long[] r : stamps.getOrDefault(session, new ArrayDeque<>())) if (index <= r[0]) { epoch = r[1]; break; }
                if (epoch >= 0 || EpochRules.isUnfenced(epoch)) {
                    Entry e = new Entry(kv.key, kv.value, session, index, null);
                    e.epoch = epoch;
                    stamped.computeIfAbsent(epoch, x -> new ArrayList<>()).add(e);
                } else {
                    if (s == null) s = revive(session, ctx.currentSystemTimeMs()); // waits for a fence: it spoke again
                    Transaction f = (Boolean) h.get("fence") ? wire.decode(kv.value, Transaction.class) : null;
                    if (f != null && !(chain.isFence(f) && chain.restoreWaiting(f))) f = null;
                    Entry e = new Entry(kv.key, kv.value, session, index, f);
                    if (s.unstamped.isEmpty()) s.firstWaitingAt = ctx.currentSystemTimeMs(); // (a never-fenced one waits the delay again)
                    s.unstamped.add(e);
                    if (f != null) s.unstampedFences++;
                }
            }
        }
    }

    private void dead(Record<String, byte[]> rec, String reason) {
        ctx.forward(DeadLetters.of(ctx, wire, rec, reason), PipelineTopology.TO_DEAD_LETTERS + "-cut");
    }
}
