package org.cobraverify.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.cobraverify.ops.pipeline.TopicSetup;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.PipelineTopology;
import org.cobraverify.topology.TopologySettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cobra topology}: the Kafka Streams service (operations to transactions to rounds) against a cluster. */
@Command(name = "topology", mixinStandardHelpOptions = true, footer = "Exit codes: 0 stopped cleanly, 2 could not run (bad options, the cluster unreachable or refusing).",
        description = "Runs the Kafka Streams topology: assembles operations into transactions, assigns epochs, cuts rounds.")
public final class TopologyCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--application-id", description = "Kafka Streams application id (default: ${DEFAULT-VALUE}).")
    String applicationId = "cobra-topology";

    @Option(names = "--state-dir", description = "Where the RocksDB state stores live (default: ${DEFAULT-VALUE}).")
    Path stateDir = StateDirectory.of("streams");

    @Option(names = "--partitions", description = "Partitions of cobra.ops when creating it (default: ${DEFAULT-VALUE}).")
    int partitions = 4;

    @Option(names = "--replication", description = "Replication factor when creating topics (default: ${DEFAULT-VALUE}).")
    short replication = 1;

    @Option(names = "--round-size", description = "Transactions per round, at least (default: ${DEFAULT-VALUE}).")
    int roundSize = 5000;

    @Option(names = "--session-timeout-ms", description = "Retire a session silent this long (default: ${DEFAULT-VALUE}).")
    long sessionTimeoutMs = 30_000;

    @Option(names = "--idle-cut-ms", description = "Cut what is closed after this long without input (default: ${DEFAULT-VALUE}).")
    long idleCutMs = 2_000;

    @Option(names = "--fence-key", description = "The key fence transactions read and write (default: ${DEFAULT-VALUE}).")
    String fenceKey = "EPOCH";

    @Option(names = "--retention-hours", paramLabel = "H", description = {"How long the history topics (operations to rounds) keep records:",
            "the replay horizon (default: ${DEFAULT-VALUE}, a week). Set on creation, and on existing topics."})
    int retentionHours = TopicSetup.DEFAULT_RETENTION_HOURS;

    @Override
    public Integer call() throws Exception {
        if (retentionHours < 1) {
            System.err.println("cobra topology: --retention-hours takes at least 1");
            return 2;
        }
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        var created = TopicSetup.ensure(kafka, partitions, replication, retentionHours);
        if (!created.isEmpty()) System.err.println("cobra topology: created topics " + created);
        WireFormat wire = KafkaSchemaCatalog.wireFormat(kafka);
        List<String> subjects = KafkaSchemaCatalog.prepare(kafka, wire);
        if (!subjects.isEmpty()) System.err.println("cobra topology: schemas registered at " + wire.registry().url() + " under " + subjects.size() + " subjects");
        TopologySettings d = TopologySettings.defaults();
        TopologySettings ts = new TopologySettings(fenceKey, roundSize, sessionTimeoutMs, idleCutMs, d.fenceGapTimeoutMs(), d.punctuateMs(),
                d.maxEarlyOps(), d.maxBufferedTxns());
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicReference<String> refused = new AtomicReference<>();
        try (KafkaStreams streams = new KafkaStreams(PipelineTopology.build(ts, wire), PipelineTopology.config(applicationId, kafka, stateDir.toString()))) {
            streams.setStateListener((now, before) -> {
                System.err.println("cobra topology: " + before + " -> " + now);
                if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) stopped.countDown();
            });
            Runtime.getRuntime().addShutdownHook(new Thread(() -> { streams.close(); stopped.countDown(); }));
            // a stream thread that fails (a broker error on commit, say) is replaced: under exactly-once its tasks
            // restart from what was committed; stopping the whole topology would stop the verdicts
            streams.setUncaughtExceptionHandler(e -> {
                // refused by the cluster (credentials, ACLs): a new thread would be refused again, forever
                String why = KafkaRefusal.explain(e, kafka);
                if (why != null) {
                    refused.compareAndSet(null, why);
                    return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
                }
                System.err.println("cobra topology: a stream thread failed (" + e + "); replacing it");
                return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
            });
            streams.start();
            stopped.await();
        }
        if (refused.get() != null) {
            System.err.println("cobra topology: " + refused.get());
            return 2;
        }
        return 0;
    }
}
