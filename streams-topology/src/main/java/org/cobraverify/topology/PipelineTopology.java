package org.cobraverify.topology;

import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;
import org.cobraverify.schemas.CutterMeta;
import org.cobraverify.schemas.CutterSession;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.OpenSession;
import org.cobraverify.schemas.serde.AvroSerde;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The Kafka Streams topology, built by a pure function of its settings (no broker, no configuration):
 *
 * <pre>
 * cobra.ops ─▶ assemble ─▶ cobra.txns ─▶ cut-rounds ─▶ cobra.rounds
 *  (keyed by    (open-sessions)  (one       (fence chain, epochs, rounds:
 *   session)                     partition)  cutter-*, fence-* stores)
 * every processor ─▶ cobra.dead-letters
 * </pre>
 *
 * Two hops: the assembler, partitioned by session, turns operations into transactions; the cutter, one
 * task because the fence chain and the rounds each need one total order, chains the fences, stamps epochs
 * and cuts rounds. (Before, the fence chain was a task of its own between two more topics, and each
 * session's transactions waited for their epochs in the assembler's store: two more hops and four more
 * changelog records per transaction.)
 *
 * <p>docs/DESIGN.md §3.
 */
public final class PipelineTopology {
    static final String TO_TXNS = "to-txns", TO_ROUNDS = "to-rounds", TO_DEAD_LETTERS = "to-dead-letters";

    private PipelineTopology() {}

    public static Topology build(TopologySettings settings, WireFormat wire) {
        var str = Serdes.String();
        var bytes = Serdes.ByteArray();
        Topology t = new Topology();
        t.addSource("ops", str.deserializer(), bytes.deserializer(), Topics.OPS);
        t.addProcessor("assemble", () -> new SessionAssembler(wire, settings), "ops");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SessionAssembler.OPEN), str,
                new AvroSerde<>(wire, OpenSession.class)).withCachingEnabled(), "assemble");

        t.addSource("txns", str.deserializer(), bytes.deserializer(), Topics.TXNS);
        t.addProcessor("cut-rounds", () -> new RoundCutter(wire, settings), "txns");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(RoundCutter.SESSIONS), str,
                new AvroSerde<>(wire, CutterSession.class)).withCachingEnabled(), "cut-rounds");
        // cached: a transaction cut within the commit interval it arrived in never reaches the changelog
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(RoundCutter.BUFFER), str, bytes)
                .withCachingEnabled(), "cut-rounds");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(RoundCutter.META), str,
                new AvroSerde<>(wire, CutterMeta.class)).withCachingEnabled(), "cut-rounds");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(RoundCutter.STAMPS), str, Serdes.Long())
                .withCachingEnabled(), "cut-rounds");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(FenceChain.HEAD), str,
                new AvroSerde<>(wire, FenceChainHead.class)).withCachingEnabled(), "cut-rounds");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(FenceChain.BY_WRITE), str, Serdes.Long())
                .withCachingEnabled(), "cut-rounds");

        t.addSink(TO_TXNS, Topics.TXNS, str.serializer(), bytes.serializer(), "assemble");
        t.addSink(TO_ROUNDS, Topics.ROUNDS, str.serializer(), bytes.serializer(), "cut-rounds");
        // one dead-letter sink per sub-topology: a shared sink node would fuse them into one (and one task count)
        t.addSink(TO_DEAD_LETTERS, Topics.DEAD_LETTERS, str.serializer(), bytes.serializer(), "assemble");
        t.addSink(TO_DEAD_LETTERS + "-cut", Topics.DEAD_LETTERS, str.serializer(), bytes.serializer(), "cut-rounds");
        return t;
    }

    /** Streams configuration: exactly-once v2, the application id, and the given bootstrap servers (PLAINTEXT). */
    public static Properties config(String applicationId, String bootstrap, String stateDir) {
        return config(applicationId, KafkaConnection.plain(bootstrap), stateDir);
    }

    /**
     * Streams configuration: the connection's client settings (security, any client setting; they reach Streams' own
     * producers, consumers and admin), then exactly-once v2, the application id and this topology's tuning.
     */
    public static Properties config(String applicationId, KafkaConnection kafka, String stateDir) {
        Properties p = kafka.properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Integer.getInteger("cobra.streams.commitMs", 100));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.getInteger("cobra.streams.threads", 2));
        // each hop (assembler, cutter, verifier) sees the previous one only once it commits: commit often, but not so
        // often that exactly-once commits (a few broker round trips and markers each) eat the two cores: from a cold
        // JVM at 5,000 txn/s (ops/cobra demo --txns 300000 --rate 5000), median verdict lag 22.3 and 19.3 s at 50 ms,
        // 3.6 and 2.6 s at 100, 4.8 s at 200, 5.4 s at 500; warm, 100 ms lags as 50 did. And do not let an empty
        // fetch park for 500 ms
        p.put(StreamsConfig.consumerPrefix("fetch.max.wait.ms"), Integer.getInteger("cobra.streams.fetchWaitMs", 20));
        p.put(StreamsConfig.consumerPrefix("fetch.min.bytes"), Integer.getInteger("cobra.streams.fetchMinBytes", 1));
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1);
        p.put(StreamsConfig.producerPrefix("linger.ms"), Integer.getInteger("cobra.streams.lingerMs", 5));
        // a topology killed and restarted: its old group member is declared dead after this long, not the
        // 45 s default, so the restarted one gets its tasks back quickly (measured with ops/chaos.sh)
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 2_000);
        // an overloaded machine can stall a stream thread for seconds: Streams' 10 s transaction timeout then had
        // the broker abort a transaction while it was being committed (Kafka 4.4.0 answered the commit with an
        // internal error, seen with ops/chaos.sh at 7,000 txn/s on two cores), which stopped the topology
        p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), 60_000);
        return p;
    }
}
