package org.cobraverify.topology;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.cobraverify.schemas.CutterMeta;
import org.cobraverify.schemas.CutterSession;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.serde.AvroSerde;
import org.cobraverify.schemas.serde.WireFormat;
import org.junit.jupiter.api.Test;

/**
 * The cutter keeps what it knows in memory and rebuilds it from its stores when a new instance starts (a restart,
 * or a task moved to another thread). Two runs over the same input: one instance throughout, and one replaced by a
 * fresh instance on the same stores at random points (as after a commit and a crash). They must cut the same
 * rounds, with the same epochs.
 */
class RoundCutterRestartTest {
    static final WireFormat WIRE = WireFormat.standalone();

    /** One cutter over in-memory stores (no changelog: the store is the truth after every record). */
    static final class Run {
        final MockProcessorContext<String, byte[]> ctx = new MockProcessorContext<>();
        final TopologySettings settings;
        RoundCutter cutter;
        int restarts;

        Run(TopologySettings settings) {
            this.settings = settings;
            var str = Serdes.String();
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(RoundCutter.SESSIONS), str, new AvroSerde<>(WIRE, CutterSession.class)).withLoggingDisabled().build());
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(RoundCutter.BUFFER), str, Serdes.ByteArray()).withLoggingDisabled().build());
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(RoundCutter.META), str, new AvroSerde<>(WIRE, CutterMeta.class)).withLoggingDisabled().build());
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(RoundCutter.STAMPS), str, Serdes.Long()).withLoggingDisabled().build());
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(FenceChain.HEAD), str, new AvroSerde<>(WIRE, FenceChainHead.class)).withLoggingDisabled().build());
            add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(FenceChain.BY_WRITE), str, Serdes.Long()).withLoggingDisabled().build());
            ctx.setRecordMetadata(Topics.TXNS, 0, 0);
            restart();
            restarts = 0;
        }

        private void add(KeyValueStore<String, ?> s) { s.init(ctx.getStateStoreContext(), s); }

        void restart() {
            ctx.resetForwards();
            cutter = new RoundCutter(WIRE, settings);
            cutter.init(ctx);
            restarts++;
        }

        void process(byte[] v, long t) {
            ctx.setCurrentSystemTimeMs(t);
            ctx.setCurrentStreamTimeMs(t);
            cutter.process(new Record<>("k", v, t));
        }

        /** Lets the idle cut run: everything closed is cut. */
        void idle(long t) {
            ctx.setCurrentSystemTimeMs(t);
            ctx.scheduledPunctuators().get(ctx.scheduledPunctuators().size() - 1).getPunctuator().punctuate(t);
        }

        /** What went to cobra.rounds since the last call: one line per transaction (id and epoch) and per RoundEnd. */
        List<String> take() {
            List<String> out = new ArrayList<>();
            for (var f : ctx.forwarded()) {
                byte[] v = f.record().value();
                if (WIRE.typeOf(v).endsWith(".RoundEnd")) {
                    RoundEnd e = WIRE.decode(v, RoundEnd.class);
                    out.add("end " + e.getRound() + " " + e.getTxns() + " " + e.getFirstEpoch() + ".." + e.getLastEpoch() + " agree " + e.getEpochAgree()
                            + " retired " + e.getRetiredNow() + " revived " + e.getRevivedNow() + " closed " + e.getClosedNow());
                } else if (WIRE.typeOf(v).endsWith(".Transaction")) {
                    Transaction t = WIRE.decode(v, Transaction.class);
                    out.add(f.record().key() + " " + t.getId() + " @" + t.getEpoch());
                } else {
                    out.add("other " + WIRE.typeOf(v));
                }
            }
            ctx.resetForwards();
            return out;
        }
    }

    @Test
    void aCutterRestartedAnywhereCutsTheSameRoundsAsOneThatNeverStopped() {
        int totalRestarts = 0;
        for (long seed = 1; seed <= 6; seed++) {
            List<byte[]> input = history(new Random(seed));
            TopologySettings settings = TopologySettings.defaults().withRoundSize(25).withFenceGapTimeoutMs(3_600_000).withIdleCutMs(1_000);
            Run steady = new Run(settings), restarted = new Run(settings);
            Random r = new Random(seed * 31);
            List<String> a = new ArrayList<>(), b = new ArrayList<>();
            long t = 1_000;
            for (byte[] v : input) {
                t++;
                steady.process(v, t);
                a.addAll(steady.take());
                if (r.nextInt(20) == 0) { b.addAll(restarted.take()); restarted.restart(); }
                restarted.process(v, t);
                b.addAll(restarted.take());
            }
            steady.idle(t + 60_000);
            restarted.idle(t + 60_000);
            a.addAll(steady.take());
            b.addAll(restarted.take());
            int differ = 0;
            while (differ < Math.min(a.size(), b.size()) && a.get(differ).equals(b.get(differ))) differ++;
            if (differ < Math.max(a.size(), b.size()))
                fail("seed " + seed + ", " + restarted.restarts + " restarts: output " + differ + " differs: "
                        + a.subList(differ, Math.min(a.size(), differ + 5)) + " vs " + b.subList(differ, Math.min(b.size(), differ + 5)));
            long cut = a.stream().filter(l -> !l.startsWith("end ")).count();
            long sent = input.stream().filter(v -> WIRE.typeOf(v).endsWith(".Transaction")).count();
            assertEquals(sent, cut, "seed " + seed + ": every transaction cut once");
            assertTrue(a.stream().filter(l -> l.startsWith("end ")).count() > 10, "many rounds");
            totalRestarts += restarted.restarts;
        }
        assertTrue(totalRestarts > 50, "restarts: " + totalRestarts);
    }

    /**
     * The cutter's input for a random history: sessions that start, run transactions and fences (each reading the
     * fence key's latest write), and close; delivered with sessions interleaved in random chunks, so fences often
     * arrive before the fence they read. Each session's records stay in session order, as the assembler sends them.
     */
    static List<byte[]> history(Random rnd) {
        int sessions = 4 + rnd.nextInt(4);
        List<List<byte[]>> per = new ArrayList<>();
        Map<Integer, Long> index = new HashMap<>();
        for (int s = 0; s < sessions; s++) {
            per.add(new ArrayList<>());
            per.get(s).add(WIRE.encode(new SessionStart("s" + s)));
        }
        String head = null;
        int fence = 0;
        for (int step = 0; step < 600; step++) {
            int s = rnd.nextInt(sessions);
            long i = index.merge(s, 1L, Long::sum);
            List<TxnOp> ops = new ArrayList<>();
            boolean isFence = rnd.nextInt(6) == 0;
            if (isFence) {
                ops.add(new TxnOp(false, "EPOCH", head));
                head = "f" + (++fence);
                ops.add(new TxnOp(true, "EPOCH", head));
            } else {
                ops.add(new TxnOp(true, "x" + rnd.nextInt(5), "s" + s + "-" + i));
            }
            Transaction t = Transaction.newBuilder().setId("s" + s + "-t" + i).setSession("s" + s).setStatus(TxnStatus.COMMITTED)
                    .setStart(step).setEnd(step).setOps(ops).setSessionIndex(i).build();
            t.setFence(EpochRules.isFence(t, "EPOCH"));
            per.get(s).add(WIRE.encode(t));
        }
        for (int s = 0; s < sessions; s++)
            per.get(s).add(WIRE.encode(new SessionEnd("s" + s, index.getOrDefault(s, 0L), "closed")));
        List<byte[]> out = new ArrayList<>();
        while (per.stream().anyMatch(l -> !l.isEmpty())) {
            List<byte[]> l = per.get(rnd.nextInt(sessions));
            for (int k = 0, n = 1 + rnd.nextInt(15); k < n && !l.isEmpty(); k++) out.add(l.remove(0));
        }
        return out;
    }
}
