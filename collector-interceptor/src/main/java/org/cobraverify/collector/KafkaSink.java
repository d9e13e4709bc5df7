package org.cobraverify.collector;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.protocol.WireNames;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.OperationBatch;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.RegistryFraming;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.TopicRecords;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Publishes every operation of every transaction (BEGIN, each READ and WRITE, then COMMIT, ABORT or
 * UNKNOWN) to the operations topic, keyed by session, numbered by {@code seq} from 1 per session, and
 * an END when a session closes: by default a transaction's operations in one {@link OperationBatch}
 * record (a tenth of the records for the topology to handle), or one record each. Idempotent producer,
 * {@code acks=all}.
 *
 * <p>Failure contract: a send the broker refuses (or that times out) is remembered; the next
 * {@link #record} of any session and {@link #close} throw, naming the transaction whose operation was
 * lost, so the application's transaction fails loudly. With {@code waitForAck}, {@link #record} returns
 * only once every operation of the transaction is acknowledged, so the failure is that transaction's own.
 */
public final class KafkaSink implements HistorySink {
    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final boolean waitForAck, batched;
    private final WireFormat wire;
    private final Map<String, long[]> seqs = new ConcurrentHashMap<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    /** The cluster and the settings this sink's producer was given (for messages: its principal). */
    private final KafkaConnection kafka;
    private volatile boolean closed;
    private final LongAdder recorded = new LongAdder();

    /**
     * @param bootstrap the Kafka servers
     * @param overrides producer settings that replace the defaults (for example {@code delivery.timeout.ms})
     */
    public KafkaSink(String bootstrap, String topic, boolean waitForAck, Properties overrides) { this(bootstrap, topic, waitForAck, true, overrides); }

    /**
     * @param batched true: each transaction's operations (BEGIN to its outcome) travel in one {@link OperationBatch}
     *     record; false: one {@link Operation} record per operation
     */
    public KafkaSink(String bootstrap, String topic, boolean waitForAck, boolean batched, Properties overrides) {
        this(KafkaConnection.plain(bootstrap), topic, waitForAck, batched, overrides);
    }

    /**
     * @param kafka the cluster and its client settings (security.protocol, sasl.*, ssl.*: a {@code --kafka-config} file)
     * @param overrides producer settings that replace the defaults and the connection's settings
     */
    public KafkaSink(KafkaConnection kafka, String topic, boolean waitForAck, boolean batched, Properties overrides) {
        this.topic = topic;
        this.batched = batched;
        this.waitForAck = waitForAck;
        this.kafka = kafka.with(overrides);
        Properties p = kafka.properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "cobra-interceptor");
        p.putAll(overrides);
        // with a schema registry, the Confluent wire format: the topic's record types registered now (a registry that is
        // down or refuses is found before anything is recorded); without, the catalog topic
        RegistryFraming registry = RegistryFraming.of(this.kafka.registrySettings());
        wire = new WireFormat(new SchemaCatalog(), registry);
        if (registry == null) KafkaSchemaCatalog.publish(this.kafka, wire.catalog());
        else registry.registerAll(java.util.Map.of(topic, TopicRecords.PIPELINE.getOrDefault(topic, TopicRecords.PIPELINE.get("cobra.ops"))));
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    public KafkaSink(String bootstrap, String topic) { this(bootstrap, topic, false, new Properties()); }

    @Override
    public void record(TxnRecord t) throws IOException {
        check();
        long[] seq = seqs.computeIfAbsent(t.session(), s -> new long[1]);
        List<Future<RecordMetadata>> sent = waitForAck ? new ArrayList<>(t.ops().size() + 2) : null;
        List<Operation> ops = new ArrayList<>(t.ops().size() + 2);
        ops.add(op(t, ++seq[0], OpKind.BEGIN, null, null, t.start()));
        for (TxnRecord.Op o : t.ops())
            ops.add(op(t, ++seq[0], o.write() ? OpKind.WRITE : OpKind.READ, o.key(), o.value(), t.start()));
        OpKind outcome = switch (t.status()) {
            case COMMITTED -> OpKind.COMMIT;
            case ABORTED -> OpKind.ABORT;
            case UNKNOWN -> OpKind.UNKNOWN;
        };
        ops.add(op(t, ++seq[0], outcome, null, null, t.end()));
        if (batched) send(sent, t, wire.encode(topic, new OperationBatch(t.session(), ops)), ops.get(0).getSeq() + ".." + ops.get(ops.size() - 1).getSeq());
        else for (Operation o : ops) send(sent, t, wire.encode(topic, o), o.getSeq() + " (" + o.getKind() + ")");
        if (sent != null) await(sent, t.id());
        recorded.increment();
    }

    /** Transactions handed to the producer so far. */
    public long recorded() { return recorded.sum(); }

    @Override
    public void endSession(String session) throws IOException {
        check();
        long[] seq = seqs.remove(session); // the session is over: its counter goes (sessions come and go)
        if (seq == null) seq = new long[1];
        String text = WireNames.of(session);
        Operation end = new Operation(text, ++seq[0], "", OpKind.END, null, null, System.currentTimeMillis() * 1_000_000L);
        producer.send(new ProducerRecord<>(topic, text, wire.encode(topic, end)), (m, e) -> {
            if (e != null) failure.compareAndSet(null, "the end of session " + session + ": " + why(e));
        });
    }

    /** An operation as the wire carries it: its session, key and value as their texts ({@link WireNames}: a key {@code "42"} stays a string). */
    private static Operation op(TxnRecord t, long seq, OpKind kind, String key, String value, long time) {
        return new Operation(WireNames.of(t.session()), seq, t.id(), kind, key == null ? null : WireNames.of(key), value == null ? null : WireNames.of(value), time);
    }

    private void send(List<Future<RecordMetadata>> sent, TxnRecord t, byte[] value, String what) {
        Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, WireNames.of(t.session()), value), (m, e) -> {
            if (e != null) failure.compareAndSet(null, "operation " + what + " of transaction " + t.id()
                    + " in session " + t.session() + " was not published to " + topic + ": " + why(e));
        });
        if (sent != null) sent.add(f);
    }

    private void await(List<Future<RecordMetadata>> sent, String txn) throws IOException {
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while publishing transaction " + txn, e);
            } catch (ExecutionException e) {
                throw new IOException("transaction " + txn + " was not published to " + topic + ": " + why(e.getCause()), e.getCause());
            }
        }
    }

    /** Why a send failed: a refusal names the principal and the topic ({@link KafkaRefusal}); anything else, its message. */
    private String why(Throwable e) {
        String refused = KafkaRefusal.explain(e, kafka);
        return refused != null ? refused : e.getMessage();
    }

    private void check() throws IOException {
        if (closed) throw new IOException("the Kafka sink is closed");
        String f = failure.get();
        if (f != null) throw new IOException("an earlier send failed, so the history on " + topic + " is incomplete: " + f);
    }

    /** Flushes every pending send; throws if any send failed. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        try {
            producer.flush();
        } finally {
            producer.close();
        }
        String f = failure.get();
        if (f != null) throw new IOException("the history on " + topic + " is incomplete: " + f);
    }
}
