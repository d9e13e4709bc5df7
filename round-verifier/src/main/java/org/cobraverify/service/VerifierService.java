package org.cobraverify.service;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.Quarantine;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The round-verifier service: a thin Kafka shell over {@link RoundVerifier}. It reads the rounds topic
 * (one partition, read-committed) and, at each round end, publishes the round's verdict and commits the
 * input offset past that round end in one Kafka transaction.
 *
 * <p>Exactly once: the verifier's state is a function of the rounds topic's prefix, so on start it
 * replays the records before its committed offset without publishing anything, then goes on from there.
 * A crash before a commit aborts that round's verdict (its transactional id fences the old producer)
 * and the round is verified again; a crash after it finds the round already behind the committed offset.
 * So every round gets exactly one visible verdict.
 */
public final class VerifierService implements AutoCloseable {
    /** Where to run: the servers, topics, the consumer group and the transactional id (one verifier per id). */
    public record Settings(String bootstrap, String roundsTopic, String verdictsTopic, String deadLettersTopic, String group,
                           String transactionalId) {
        public static Settings defaults(String bootstrap) {
            return new Settings(bootstrap, "cobra.rounds", "cobra.verdicts", "cobra.dead-letters", "cobra-verifier", "cobra-verifier-0");
        }
    }

    private final Settings settings;
    private final RoundVerifier.Settings verifierSettings;
    private final Consumer<Verdict> listener;
    private final WireFormat wire;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile KafkaConsumer<String, byte[]> consumer;
    private volatile CrashPoint crashPoint = round -> {};

    /** Called after a round's verdict is sent and before its transaction commits: tests make the service die there. */
    public interface CrashPoint {
        void reached(long round);
    }

    /** Installs a crash point (tests: an exception thrown there ends {@link #run} with the transaction open). */
    public void crashPoint(CrashPoint p) { this.crashPoint = p; }

    public VerifierService(Settings settings, RoundVerifier.Settings verifierSettings, Consumer<Verdict> listener) {
        this.settings = settings;
        this.verifierSettings = verifierSettings;
        this.listener = listener;
        this.wire = new WireFormat(KafkaSchemaCatalog.attach(new SchemaCatalog(), settings.bootstrap()));
    }


    /** Runs until {@link #stop}; throws if Kafka fails in a way a restart must handle. */
    public void run() {
        TopicPartition tp = new TopicPartition(settings.roundsTopic(), 0);
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, settings.group());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(32 << 20)); // several rounds per fetch when behind
        c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100000");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaConsumer<String, byte[]> cons = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<String, byte[]> prod = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            consumer = cons;
            if (!running.get()) return;
            prod.initTransactions(); // fences any earlier incarnation and aborts its open transaction
            cons.assign(List.of(tp));
            OffsetAndMetadata committed = cons.committed(java.util.Set.of(tp)).get(tp);
            long resumeAt = committed == null ? 0 : committed.offset();
            restarts = committed == null ? 0 : restartsIn(committed.metadata()) + 1;
            cons.seekToBeginning(List.of(tp));
            try (RoundVerifier verifier = new RoundVerifier(verifierSettings)) {
            List<RoundVerifier.Closed> replayed = new java.util.ArrayList<>();
            while (running.get()) {
                // a poll may hold several whole rounds (the verifier catching up): they are decided together and
                // their verdicts committed in one transaction with the offset after the last round end
                List<RoundVerifier.Closed> ends = new java.util.ArrayList<>();
                long commitAt = -1;
                for (ConsumerRecord<String, byte[]> r : drain(cons)) {
                    boolean replay = r.offset() < resumeAt;
                    String type;
                    try {
                        type = wire.typeOf(r.value());
                    } catch (MalformedRecordException e) {
                        if (!replay) {
                            if (!ends.isEmpty()) { publish(prod, cons, tp, verifier, ends, commitAt); ends.clear(); }
                            deadLetter(prod, cons, tp, r, e.getMessage());
                        }
                        continue;
                    }
                    if (type.equals(Transaction.getClassSchema().getFullName())) {
                        verifier.add(wire.decode(r.value(), Transaction.class));
                    } else if (type.equals(RoundEnd.getClassSchema().getFullName())) {
                        RoundEnd end = wire.decode(r.value(), RoundEnd.class);
                        RoundVerifier.Closed closed = verifier.closeRound(end);
                        if (replay) { replayed.add(closed); continue; } // decided before the restart: its verdict is already committed
                        if (!replayed.isEmpty()) { verifier.replay(replayed); replayed.clear(); }
                        ends.add(closed);
                        commitAt = r.offset() + 1;
                    } else if (!replay) {
                        if (!ends.isEmpty()) { publish(prod, cons, tp, verifier, ends, commitAt); ends.clear(); }
                        deadLetter(prod, cons, tp, r, "a " + type + " on " + settings.roundsTopic() + ", expected a Transaction or a RoundEnd");
                    }
                }
                if (!replayed.isEmpty()) { verifier.replay(replayed); replayed.clear(); }
                if (!ends.isEmpty()) publish(prod, cons, tp, verifier, ends, commitAt);
            }
            }
        } catch (WakeupException e) {
            if (running.get()) throw e;
        } finally {
            consumer = null;
        }
    }

    /**
     * What is available now: one poll that may wait, then more without waiting while records keep coming
     * (up to a bound), so that a verifier behind decides many rounds with one check.
     */
    private static List<ConsumerRecord<String, byte[]>> drain(KafkaConsumer<String, byte[]> cons) {
        List<ConsumerRecord<String, byte[]>> out = new java.util.ArrayList<>();
        cons.poll(Duration.ofMillis(200)).forEach(out::add);
        int before;
        do {
            before = out.size();
            cons.poll(Duration.ofMillis(20)).forEach(out::add);
        } while (out.size() > before && out.size() < 200_000);
        return out;
    }

    /** Decides the rounds and publishes their verdicts with the offset {@code commitAt}, in one Kafka transaction. */
    private void publish(KafkaProducer<String, byte[]> prod, KafkaConsumer<String, byte[]> cons, TopicPartition tp, RoundVerifier verifier,
                         List<RoundVerifier.Closed> ends, long commitAt) {
        List<Verdict> vs = verifier.decide(ends);
        for (Verdict v : vs) v.setVerifierRestarts(restarts);
        prod.beginTransaction();
        for (Verdict v : vs) prod.send(new ProducerRecord<>(settings.verdictsTopic(), Long.toString(v.getRound()), wire.encode(v)));
        prod.sendOffsetsToTransaction(Map.of(tp, offset(commitAt)), cons.groupMetadata());
        for (Verdict v : vs) crashPoint.reached(v.getRound());
        prod.commitTransaction();
        for (Verdict v : vs) listener.accept(v);
    }

    /** Quarantines a record of the rounds topic (with where it was) and moves past it, in one transaction. */
    private void deadLetter(KafkaProducer<String, byte[]> prod, KafkaConsumer<String, byte[]> cons, TopicPartition tp,
                            ConsumerRecord<String, byte[]> r, String reason) {
        DeadLetter d = Quarantine.of(reason, r.topic(), r.partition(), r.offset(), r.key(), r.value());
        prod.beginTransaction();
        prod.send(new ProducerRecord<>(settings.deadLettersTopic(), Quarantine.key(d), wire.encode(d)));
        prod.sendOffsetsToTransaction(Map.of(tp, offset(r.offset() + 1)), cons.groupMetadata());
        prod.commitTransaction();
    }

    /**
     * How many times this verifier has resumed from a committed offset: kept in the committed offset's
     * metadata ({@code restarts=N}), so it is exact under exactly-once and survives any crash.
     */
    private volatile long restarts;

    /** Restarts so far (0 until {@link #run} has read the committed offset, and for a first start). */
    public long restarts() { return restarts; }

    private OffsetAndMetadata offset(long at) { return new OffsetAndMetadata(at, "restarts=" + restarts); }

    static long restartsIn(String metadata) {
        if (metadata == null || !metadata.startsWith("restarts=")) return 0;
        try {
            return Long.parseLong(metadata.substring("restarts=".length()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Asks {@link #run} to return (from any thread). */
    public void stop() {
        running.set(false);
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) c.wakeup();
    }

    @Override
    public void close() { stop(); }
}
