package org.cobraverify.ops.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole pipeline on a real in-process KRaft broker: interceptor, topology, verifier. */
class PipelineTest {
    static EmbeddedKafka kafka;
    static Path dir;
    static final WireFormat WIRE = WireFormat.standalone();

    @BeforeAll
    static void broker() throws Exception {
        dir = Files.createTempDirectory("cobra-pipeline-test");
        kafka = EmbeddedKafka.start(0, dir.resolve("kafka"));
    }

    @AfterAll
    static void stop() {
        if (kafka != null) kafka.close();
    }

    @Test
    void aSerializableWorkloadGivesOnlyAccepts() throws Exception {
        String bs = kafka.bootstrapServers();
        TopologySettings ts = TopologySettings.defaults().withRoundSize(500).withIdleCutMs(500);
        try (Pipeline p = Pipeline.start(bs, dir.resolve("streams"), 2, ts, new RoundVerifier.Settings(CheckOptions.defaults(), 20), v -> {})) {
            long recorded;
            try (KvStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
                KafkaSink sink = new KafkaSink(bs, Topics.OPS, false, new Properties());
                Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
                WorkloadRunner.Result r = WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 3000, 1, new WorkloadRunner.Progress());
                rec.close();
                recorded = sink.recorded();
                assertTrue(recorded >= 3000 + r.fences());
            }
            boolean ok = waitFor(p, recorded);
            List<Transaction> txns = Topic.readAll(bs, Topics.TXNS).stream().filter(x -> WIRE.typeOf(x.value()).endsWith(".Transaction"))
                    .map(x -> WIRE.decode(x.value(), Transaction.class)).toList();
            System.out.println("epochs: " + txns.stream().mapToLong(Transaction::getEpoch).summaryStatistics());
            for (var d : Topic.readAll(bs, Topics.DEAD_LETTERS)) System.out.println("dead: " + WIRE.decode(d.value(), DeadLetter.class).getReason());
            for (Verdict v : p.verdicts()) System.out.println(v.getRound() + " " + v.getOutcome() + " " + v.getReason() + " " + v.getRoundTxns() + " epochs " + v.getFirstEpoch() + "-" + v.getLastEpoch());
            var all = Topic.readAll(bs, Topics.TXNS);
            System.out.println("txns topic: " + all.size() + " records; types " + all.stream().map(x -> WIRE.typeOf(x.value())).collect(java.util.stream.Collectors.groupingBy(x -> x, java.util.stream.Collectors.counting())));
            System.out.println("fences: " + Topic.readAll(bs, Topics.FENCES).size() + ", fence epochs: " + Topic.readAll(bs, Topics.FENCE_EPOCHS).size() + ", ops: " + Topic.readAll(bs, Topics.OPS).size() + ", rounds: " + Topic.readAll(bs, Topics.ROUNDS).size());
            assertTrue(ok, "verdicts did not cover " + recorded);
            assertTrue(p.verdicts().size() >= 3, "several rounds: " + p.verdicts().size());
            assertTrue(p.verdicts().stream().allMatch(v -> v.getOutcome() == Outcome.ACCEPT));
        }
    }

    static boolean waitFor(Pipeline p, long txns) throws InterruptedException {
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Verdict> vs = p.verdicts();
            if (!vs.isEmpty() && vs.get(vs.size() - 1).getCheckedTxns() + vs.get(vs.size() - 1).getPendingTxns() >= txns) return true;
            Thread.sleep(100);
        }
        return false;
    }
}
