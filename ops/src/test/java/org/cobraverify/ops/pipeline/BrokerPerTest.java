package org.cobraverify.ops.pipeline;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.cobraverify.workloads.FaultyStore;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh in-process KRaft broker per test, in a temporary directory that is removed afterwards. */
abstract class BrokerPerTest {
    static final WireFormat WIRE = WireFormat.standalone();
    EmbeddedKafka kafka;
    Path dir;

    @BeforeEach
    void broker() throws Exception {
        dir = Files.createTempDirectory("cobra-pipeline-test");
        kafka = EmbeddedKafka.start(0, dir.resolve("kafka"));
    }

    /** Runs a workload through the interceptor; returns how many transactions were published. */
    long run(String workload, FaultyStore.Fault fault, int clients, int txns) throws Exception {
        try (KvStore rocks = new RocksDbStore(dir.resolve("db-" + System.nanoTime()).toString(), false)) {
            KvStore store = fault == null ? rocks : new FaultyStore(rocks, fault, 0.05, 3);
            KafkaSink sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, false, new Properties());
            Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
            try {
                WorkloadRunner.run(Workload.byName(workload, 1.0), store, rec, clients, txns, 1, new WorkloadRunner.Progress());
            } finally {
                rec.close();
            }
            return sink.recorded();
        }
    }

    List<Verdict> committedVerdicts() {
        return Topic.readAll(kafka.bootstrapServers(), Topics.VERDICTS).stream().map(r -> WIRE.decode(r.value(), Verdict.class)).toList();
    }

    /**
     * The committed verdicts, read again until {@code ready} holds of them (30 s at most; then as they are). The verifier
     * hands a verdict to its listener when its Kafka transaction is committed, but the commit markers reach the topic a
     * moment later, and a read-committed reader sees nothing of the transaction until they do (CI read 0 verdicts once).
     */
    List<Verdict> committedVerdicts(java.util.function.Predicate<List<Verdict>> ready) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        List<Verdict> vs = committedVerdicts();
        while (!ready.test(vs) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            vs = committedVerdicts();
        }
        return vs;
    }

    @AfterEach
    void stop() throws Exception {
        if (kafka != null) kafka.close();
        if (dir != null) try (var w = Files.walk(dir)) {
            w.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }
}
