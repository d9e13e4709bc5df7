package org.cobraverify.ops.pipeline;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.cli.CobraCommand;
import org.cobraverify.collector.HistorySink;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.TxnRecord;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.FaultyStore;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pipeline on a real broker, fed in an adversarial order: a workload is recorded on embedded RocksDB, then its
 * sessions are published to {@code cobra.ops} one whole session after another, the last session first, so that
 * readers' operations reach the topology before their writers' and fences before the fences they read. The
 * verdicts must agree with a one-shot check of the exported history.
 */
class AdversarialOrderPipelineTest extends BrokerPerTest {
    /** Keeps every session's records, in session order, to publish later in another order. */
    static final class CapturingSink implements HistorySink {
        final Map<String, List<TxnRecord>> bySession = new LinkedHashMap<>();

        @Override
        public synchronized void record(TxnRecord t) { bySession.computeIfAbsent(t.session(), s -> new ArrayList<>()).add(t); }

        @Override
        public void close() {}
    }

    /** Records {@code txns} transactions of BlindW-RW, then publishes them session by session, last session first; returns how many. */
    long recordThenPublishBackwards(FaultyStore.Fault fault) throws Exception {
        CapturingSink captured = new CapturingSink();
        try (KvStore rocks = new RocksDbStore(dir.resolve("db").toString(), false)) {
            KvStore store = fault == null ? rocks : new FaultyStore(rocks, fault, 0.05, 3);
            try (Recorder rec = new Recorder(store, captured, Recorder.Options.defaults())) {
                WorkloadRunner.run(Workload.byName("blindw-rw", 1.0), store, rec, 4, 2000, 1, new WorkloadRunner.Progress());
            }
        }
        List<String> sessions = new ArrayList<>(captured.bySession.keySet());
        assertTrue(sessions.size() >= 4, "sessions: " + sessions);
        // the order is adversarial: reads published before the writes they observed
        Map<String, Integer> writtenIn = new HashMap<>();
        for (int i = 0; i < sessions.size(); i++)
            for (TxnRecord t : captured.bySession.get(sessions.get(i)))
                for (TxnRecord.Op o : t.ops()) if (o.write()) writtenIn.put(o.key() + "=" + o.value(), i);
        long early = 0;
        for (int i = 0; i < sessions.size(); i++)
            for (TxnRecord t : captured.bySession.get(sessions.get(i)))
                for (TxnRecord.Op o : t.ops()) if (!o.write() && o.value() != null && writtenIn.getOrDefault(o.key() + "=" + o.value(), -1) < i) early++;
        assertTrue(early > 100, "reads that reach the topology before their writes: " + early);
        long n = 0;
        try (KafkaSink sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, false, new Properties())) {
            for (int i = sessions.size() - 1; i >= 0; i--) {
                for (TxnRecord t : captured.bySession.get(sessions.get(i))) { sink.record(t); n++; }
                sink.endSession(sessions.get(i));
            }
        }
        return n;
    }

    /** The verdicts, and the one-shot exit code of the exported history (0 accept, 1 reject). */
    Object[] verdictsAndOneShot(Pipeline p, long published) throws Exception {
        assertTrue(PipelineTest.waitFor(p, published, v -> v.getOutcome() == Outcome.REJECT), "verdicts: " + p.verdicts());
        Path file = dir.resolve("export.jsonl");
        assertEquals(0, CobraCommand.execute("export", "--bootstrap", kafka.bootstrapServers(), "--out", file.toString()));
        return new Object[] {p.verdicts(), CobraCommand.execute("verify", file.toString())};
    }

    Pipeline start() {
        TopologySettings ts = TopologySettings.defaults().withRoundSize(300).withIdleCutMs(500);
        return Pipeline.start(kafka.bootstrapServers(), dir.resolve("streams"), 2, ts, RoundSettings.defaults().withCheck(CheckOptions.defaults()), v -> {});
    }

    @Test
    void aSerializableHistoryPublishedBackwardsIsAcceptedAsOneShotAcceptsIt() throws Exception {
        try (Pipeline p = start()) {
            long published = recordThenPublishBackwards(null);
            Object[] r = verdictsAndOneShot(p, published);
            @SuppressWarnings("unchecked") List<Verdict> vs = (List<Verdict>) r[0];
            assertEquals(0, r[1], "one-shot accepts the exported history");
            for (Verdict v : vs) assertNotEquals(Outcome.REJECT, v.getOutcome(), v.getReason());
            Verdict last = vs.get(vs.size() - 1);
            assertEquals(Outcome.ACCEPT, last.getOutcome(), last.getReason());
            assertEquals(published, last.getCheckedTxns(), "every transaction checked, none left waiting: " + last.getReason());
        }
    }

    @Test
    void aHistoryWithStaleReadsPublishedBackwardsIsRejectedAsOneShotRejectsIt() throws Exception {
        try (Pipeline p = start()) {
            long published = recordThenPublishBackwards(FaultyStore.Fault.STALE_READ);
            Object[] r = verdictsAndOneShot(p, published);
            @SuppressWarnings("unchecked") List<Verdict> vs = (List<Verdict>) r[0];
            assertEquals(1, r[1], "one-shot rejects the exported history");
            Verdict last = vs.get(vs.size() - 1);
            assertEquals(Outcome.REJECT, last.getOutcome(), last.getReason());
        }
    }
}
