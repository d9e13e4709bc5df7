package org.cobraverify.service;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
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
 *
 * <p>docs/DESIGN.md §8.1–8.3; its input is assumption A8 (§7.1).
 *
 * <p>This class is the service's public face (its settings, {@link #run}, {@link #stop} and the figures of its last
 * start); the work is done by package-private parts: {@link RoundsLoop} (consume, decide, produce), {@link Ownership}
 * (owner or standby), {@link StateStore} (the collected-writes store and its lock), {@link Checkpointing} (resuming
 * from checkpoints and writing them), {@link DeadLetters} and {@link CrashPoints}; {@link ServiceClients} sets up its
 * Kafka clients. They all log as this class.
 */
public final class VerifierService implements AutoCloseable {
    /** Where to run: the servers, topics, the consumer group and the transactional id (one verifier per id). */
    public record Settings(KafkaConnection kafka, String roundsTopic, String verdictsTopic, String deadLettersTopic, String group,
                           String transactionalId, String checkpointsTopic, Path stateDir, int checkpointEvery, double rememberHours) {
        public Settings(KafkaConnection kafka, String roundsTopic, String verdictsTopic, String deadLettersTopic, String group, String transactionalId) {
            this(kafka, roundsTopic, verdictsTopic, deadLettersTopic, group, transactionalId, "cobra.gc-frontiers", null, DEFAULT_CHECKPOINT_EVERY,
                    RocksDbCollectedWrites.DEFAULT_HORIZON_MILLIS / 3_600_000.0);
        }

        public static Settings defaults(String bootstrap) { return defaults(KafkaConnection.plain(bootstrap)); }

        public static Settings defaults(KafkaConnection kafka) {
            return new Settings(kafka, "cobra.rounds", "cobra.verdicts", "cobra.dead-letters", "cobra-verifier", "cobra-verifier-0");
        }

        /** The bootstrap servers. */
        public String bootstrap() { return kafka.bootstrap(); }

        /** Where collected writes live on disk (null: a temporary directory, lost with the process) and how often to checkpoint (0: never). */
        public Settings withState(Path dir, int every) {
            return new Settings(kafka, roundsTopic, verdictsTopic, deadLettersTopic, group, transactionalId, checkpointsTopic, dir, every, rememberHours);
        }

        /**
         * How long collected writes are remembered (hours; default a week, the history topics' default retention):
         * a read of a write collected longer ago makes the verdict unknown, not a stale-read reject.
         */
        public Settings withRememberHours(double hours) {
            return new Settings(kafka, roundsTopic, verdictsTopic, deadLettersTopic, group, transactionalId, checkpointsTopic, stateDir, checkpointEvery, hours);
        }
    }

    /**
     * Rounds between checkpoints by default. Every round cost the one-JVM demo a third of its end-to-end rate
     * (200k transactions at 2,500/s: 2,582 txn/s and a median lag of 4.1 s without, 1,821 txn/s and 10.2 s with);
     * every 10th bounds what a restart or a replay reads again to 9 rounds.
     */
    public static final int DEFAULT_CHECKPOINT_EVERY = Integer.getInteger("cobra.checkpointEvery", 10);

    /** How long the collected-writes store remembers a write by default (its time horizon, docs/DESIGN.md §9.1). */
    public static final long DEFAULT_REMEMBER_MILLIS = org.cobraverify.gc.store.RocksDbCollectedWrites.DEFAULT_HORIZON_MILLIS;

    /** Largest record this service sends (its producer's limit; topic set-up gives cobra.gc-frontiers the same). */
    public static final int MAX_RECORD_BYTES = 16 << 20;

    private final Settings settings;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile KafkaConsumer<String, byte[]> consumer;
    private final CrashPoints crashPoints = new CrashPoints();
    private final Ownership ownership;
    private final Checkpointing checkpointing;
    private final RoundsLoop loop;

    /** Called after a round's verdict is sent and before its transaction commits: tests make the service die there. */
    public interface CrashPoint {
        void reached(long round);
    }

    /** Installs a crash point (tests: an exception thrown there ends {@link #run} with the transaction open). */
    public void crashPoint(CrashPoint p) { crashPoints.install(p); }

    public VerifierService(Settings settings, RoundSettings verifierSettings, Consumer<Verdict> listener) {
        this.settings = settings;
        WireFormat wire = KafkaSchemaCatalog.wireFormat(settings.kafka());
        // with a schema registry, the topics this service writes get their subjects now (one down or refusing: found here)
        if (wire.registry() != null) {
            Map<String, List<org.apache.avro.Schema>> mine = new java.util.LinkedHashMap<>();
            mine.put(settings.verdictsTopic(), List.of(Verdict.getClassSchema()));
            mine.put(settings.deadLettersTopic(), List.of(DeadLetter.getClassSchema()));
            mine.put(settings.checkpointsTopic(), List.of(VerifierCheckpoint.getClassSchema()));
            mine.put(FrontierLogs.TOPIC, List.of(org.cobraverify.schemas.FrontierLogRecord.getClassSchema()));
            wire.registry().registerAll(mine);
        }
        this.ownership = new Ownership(settings, running::get);
        this.checkpointing = new Checkpointing(settings, wire);
        this.loop = new RoundsLoop(settings, verifierSettings, listener, wire, running::get, new StateStore(settings, running::get), checkpointing,
                new DeadLetters(settings.deadLettersTopic(), wire, checkpointing::offset), crashPoints);
    }

    /**
     * This verifier lost cobra.rounds to another one with the same id (it was fenced, or left the group while
     * paused): it must publish nothing more. A new service started afterwards stands by until it owns the
     * partition again.
     */
    public static final class OwnershipLost extends RuntimeException {
        OwnershipLost(String message, Throwable cause) { super(message, cause); }
    }

    /** Whether this verifier is waiting while another one with its id owns cobra.rounds. */
    public boolean standingBy() { return ownership.standingBy(); }

    /** Whether this verifier owns cobra.rounds and works (from its ownership until it stops or loses it). */
    public boolean owning() { return ownership.owning(); }

    /**
     * Runs until {@link #stop}; throws if Kafka fails in a way a restart must handle, and {@link OwnershipLost} when
     * another verifier with this id took over. Active and standby: verifiers with the same id and group all join the
     * group; the one assigned cobra.rounds' partition works, the others stand by (doing nothing but heartbeats) and
     * one of them takes over, from the committed offset and checkpoint, when the owner dies or leaves. Only the owner
     * calls {@code initTransactions}, which fences the producer of any earlier owner.
     */
    public void run() {
        TopicPartition tp = new TopicPartition(settings.roundsTopic(), 0);
        Properties c = ServiceClients.consumer(settings);
        Properties p = ServiceClients.producer(settings);
        try (KafkaConsumer<String, byte[]> cons = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<String, byte[]> prod = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            consumer = cons;
            if (!running.get()) return;
            Ownership.Assignment own = new Ownership.Assignment(tp, cons);
            cons.subscribe(List.of(settings.roundsTopic()), own);
            if (!ownership.await(cons, own)) return;
            try {
                loop.work(cons, prod, tp, own);
            } catch (OwnershipLost e) {
                throw e;
            } catch (RuntimeException e) {
                Throwable fenced = Ownership.fencing(e);
                if (fenced == null) throw e;
                throw new OwnershipLost("another verifier with id " + settings.transactionalId() + " took over cobra.rounds; this one was fenced ("
                        + fenced.getClass().getSimpleName() + ") and published nothing more", e);
            }
        } catch (WakeupException e) {
            if (running.get()) throw e;
        } finally {
            consumer = null;
            ownership.released();
        }
    }

    /** Restarts so far (0 until {@link #run} has read the committed offset, and for a first start). */
    public long restarts() { return checkpointing.restarts(); }

    /** Records of cobra.rounds read again after the last start (0 when it resumed from a checkpoint of its last round). */
    public long replayedRecords() { return checkpointing.replayedRecords(); }

    /** The round of the checkpoint the last start resumed from; -1 if it started from the beginning. */
    public long resumedFromRound() { return checkpointing.resumedFromRound(); }

    /** How long the last start took to load its checkpoint, in seconds. */
    public double resumeSeconds() { return checkpointing.resumeSeconds(); }

    /** The key of a checkpoint record: verifier, round and chunk (so compaction keeps every retained round's checkpoint). */
    public static String checkpointKey(String verifier, long round, int chunk) { return verifier + "/" + round + "/" + chunk; }

    /** Asks {@link #run} to return (from any thread). */
    public void stop() {
        running.set(false);
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) c.wakeup();
    }

    @Override
    public void close() { stop(); }
}
