package org.cobraverify.ops.pipeline;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.service.VerifierService;
import org.cobraverify.topology.PipelineTopology;
import org.cobraverify.topology.TopologySettings;

/**
 * The topology and the verifier, started against a broker: what {@code cobra demo} and the integration
 * tests run in one JVM (in production they are two services: {@code cobra topology}, {@code cobra verifier}).
 */
public final class Pipeline implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Pipeline.class);

    private final KafkaStreams streams;
    private VerifierService verifier;
    private Thread verifierThread;
    private final List<Verdict> verdicts = new CopyOnWriteArrayList<>();
    private final KafkaConnection kafka;
    private final RoundSettings verifierSettings;
    private final Consumer<Verdict> listener;
    private volatile Throwable verifierFailure;
    /** Where the verifier keeps its collected writes (beside the topology's state), so a restart finds them. */
    private final Path verifierStateDir;

    private Pipeline(KafkaConnection kafka, KafkaStreams streams, RoundSettings verifierSettings, Consumer<Verdict> listener, Path verifierStateDir) {
        this.kafka = kafka;
        this.verifierStateDir = verifierStateDir;
        this.streams = streams;
        this.verifierSettings = verifierSettings;
        this.listener = listener;
    }

    /** Creates missing topics, publishes the schemas, starts the topology and the verifier. */
    public static Pipeline start(String bootstrap, Path stateDir, int partitions, TopologySettings topology,
                                 RoundSettings verifier, Consumer<Verdict> listener) {
        return start(KafkaConnection.plain(bootstrap), (short) 1, stateDir, partitions, topology, verifier, listener);
    }

    /** As above, on any cluster: topics created with {@code replication} replicas, every client with {@code kafka}'s settings. */
    public static Pipeline start(KafkaConnection kafka, short replication, Path stateDir, int partitions, TopologySettings topology,
                                 RoundSettings verifier, Consumer<Verdict> listener) {
        return start(kafka, kafka, replication, stateDir, partitions, topology, verifier, listener);
    }

    /**
     * As above, with the topology and the verifier each under its own principal (a secured cluster with ACLs): the
     * topology's connection also creates the topics and publishes the schemas.
     */
    public static Pipeline start(KafkaConnection topologyKafka, KafkaConnection verifierKafka, short replication, Path stateDir, int partitions,
                                 TopologySettings topology, RoundSettings verifier, Consumer<Verdict> listener) {
        TopicSetup.ensure(topologyKafka, partitions, replication, TopicSetup.DEFAULT_RETENTION_HOURS);
        WireFormat wire = KafkaSchemaCatalog.wireFormat(topologyKafka);
        KafkaSchemaCatalog.prepare(topologyKafka, wire);
        Topology built = PipelineTopology.build(topology, wire);
        KafkaStreams streams = new KafkaStreams(built, PipelineTopology.config("cobra-topology", topologyKafka, stateDir.toString()));
        Pipeline p = new Pipeline(verifierKafka, streams, verifier, listener, stateDir.resolve("verifier"));
        for (var sub : built.describe().subtopologies())
            for (var node : sub.nodes())
                if (node instanceof TopologyDescription.Processor proc) p.storeNames.addAll(proc.stores());
        streams.setUncaughtExceptionHandler(e -> {
            String refused = KafkaRefusal.explain(e, topologyKafka);
            if (refused != null) { // a new thread would be refused again, forever
                LOG.warn("cobra: the topology stopped: " + refused);
                return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            LOG.warn("cobra: the topology failed: " + e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (streams.state() != KafkaStreams.State.RUNNING && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        p.startVerifier();
        return p;
    }

    /** Starts a verifier (again, after {@link #stopVerifier}: it resumes from its committed offset). */
    public synchronized void startVerifier() { startVerifier(null); }

    /** As {@link #startVerifier()}, with a crash point (tests). */
    public synchronized void startVerifier(VerifierService.CrashPoint crash) {
        verifierFailure = null;
        VerifierService v = new VerifierService(VerifierService.Settings.defaults(kafka).withState(verifierStateDir, checkpointEvery), verifierSettings, x -> {
            verdicts.add(x);
            listener.accept(x);
        });
        if (crash != null) v.crashPoint(crash);
        verifier = v;
        verifierThread = new Thread(() -> {
            try {
                v.run();
            } catch (Throwable e) {
                verifierFailure = e;
                LOG.warn("cobra: the verifier failed: " + e);
            }
        }, "cobra-verifier");
        verifierThread.start();
    }

    private volatile int checkpointEvery = VerifierService.DEFAULT_CHECKPOINT_EVERY;

    /** Rounds between the checkpoints of verifiers started from now on. */
    public void checkpointEvery(int rounds) { this.checkpointEvery = rounds; }

    /** The verifier's --state-dir (its collected-writes store lives under it); tests delete it to play another host. */
    public Path verifierStateDir() { return verifierStateDir; }

    /** The verifier of the latest {@link #startVerifier} (its restart figures). */
    public synchronized VerifierService verifier() { return verifier; }

    /** Whether the verifier's thread is still running. */
    public boolean verifierRunning() { return verifierThread != null && verifierThread.isAlive(); }

    /** Stops the verifier abruptly between rounds or mid-round (as a crash would, short of killing the JVM). */
    public synchronized void stopVerifier() throws InterruptedException {
        verifier.stop();
        verifierThread.join(TimeUnit.SECONDS.toMillis(30));
    }

    /** Verdicts this process's verifiers published, in order. */
    public List<Verdict> verdicts() { return verdicts; }

    public Throwable verifierFailure() { return verifierFailure; }

    /** Whether the pipeline's verifier owns cobra.rounds (another with its id may hold it; tests start standbys after this). */
    public synchronized boolean verifierOwning() {
        VerifierService v = verifier;
        return v != null && v.owning();
    }

    private final Set<String> storeNames = new TreeSet<>();

    /**
     * The keys in each of the topology's state stores, counted exactly (an interactive query over this
     * process's tasks; a store being restored is skipped). For {@link StateProbe}: it iterates every store.
     */
    public Map<String, Long> topologyStoreSizes() {
        Map<String, Long> out = new TreeMap<>();
        for (String name : storeNames) {
            try {
                ReadOnlyKeyValueStore<Object, Object> st = streams.store(
                        StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore()));
                long n = 0;
                try (var it = st.all()) {
                    while (it.hasNext()) { it.next(); n++; }
                }
                out.put(name, n);
            } catch (InvalidStateStoreException e) {
                // rebalancing or restoring: not counted this time
            }
        }
        return out;
    }

    /** Fence-chain gaps the topology bridged so far (fences chained without the fence they read: lost, or late past the gap timeout); -1: unknown. */
    public long fenceGapsBridged() {
        try {
            ReadOnlyKeyValueStore<Object, Object> st = streams.store(
                    StoreQueryParameters.fromNameAndType("fence-chain", QueryableStoreTypes.keyValueStore()));
            Object h = st.get("fence-chain");
            return h instanceof FenceChainHead f ? f.getGaps() : 0;
        } catch (InvalidStateStoreException e) {
            return -1;
        }
    }

    /** The topology's Kafka Streams metrics (threads, tasks, state stores), for {@link StateProbe}. */
    public Map<MetricName, ? extends Metric> topologyMetrics() { return streams.metrics(); }

    @Override
    public void close() throws InterruptedException {
        stopVerifier();
        streams.close(Duration.ofSeconds(30));
    }
}
