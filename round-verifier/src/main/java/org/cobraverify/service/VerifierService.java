package org.cobraverify.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.Quarantine;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.rocksdb.RocksDBException;

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
 */
public final class VerifierService implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VerifierService.class);

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

    /**
     * A verifier behind decides the rounds it has with one check, but never more than about this many
     * transactions at once: one check of a long backlog (after a restart, say) would take long, hold the
     * whole backlog in memory, and publish nothing until it ends.
     */
    static final int MAX_BATCH_TXNS = 40_000;

    /** Largest share of held transactions in one checkpoint record (the topic allows {@link #MAX_RECORD_BYTES}). */
    static final int CHUNK_BYTES = 512 << 10;
    /** Largest record this service sends (its producer's limit; topic set-up gives cobra.gc-frontiers the same). */
    public static final int MAX_RECORD_BYTES = 16 << 20;

    private final Settings settings;
    private final IncrementalVerifier.Settings verifierSettings;
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

    public VerifierService(Settings settings, IncrementalVerifier.Settings verifierSettings, Consumer<Verdict> listener) {
        this.settings = settings;
        this.verifierSettings = verifierSettings;
        this.listener = listener;
        this.wire = KafkaSchemaCatalog.wireFormat(settings.kafka());
        // with a schema registry, the topics this service writes get their subjects now (one down or refusing: found here)
        if (wire.registry() != null) {
            Map<String, List<org.apache.avro.Schema>> mine = new java.util.LinkedHashMap<>();
            mine.put(settings.verdictsTopic(), List.of(Verdict.getClassSchema()));
            mine.put(settings.deadLettersTopic(), List.of(DeadLetter.getClassSchema()));
            mine.put(settings.checkpointsTopic(), List.of(VerifierCheckpoint.getClassSchema()));
            mine.put(FrontierLogs.TOPIC, List.of(org.cobraverify.schemas.FrontierLogRecord.getClassSchema()));
            wire.registry().registerAll(mine);
        }
    }


    /**
     * This verifier lost cobra.rounds to another one with the same id (it was fenced, or left the group while
     * paused): it must publish nothing more. A new service started afterwards stands by until it owns the
     * partition again.
     */
    public static final class OwnershipLost extends RuntimeException {
        OwnershipLost(String message, Throwable cause) { super(message, cause); }
    }

    /**
     * Which verifier works: the member of the consumer group that owns cobra.rounds' one partition (sticky, so a
     * standby joining does not move it). Set by the consumer's rebalance callbacks, inside its polls.
     */
    private static final class Ownership implements ConsumerRebalanceListener {
        private final TopicPartition tp;
        private final KafkaConsumer<String, byte[]> consumer;
        volatile boolean owned, rebalanced;

        Ownership(TopicPartition tp, KafkaConsumer<String, byte[]> consumer) {
            this.tp = tp;
            this.consumer = consumer;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            rebalanced = true;
            if (!partitions.contains(tp)) return;
            owned = true;
            // a position for the poll that brought the assignment (with no committed offset and no reset policy it would
            // throw); what that poll returns is thrown away, and work() seeks where resuming starts
            consumer.seek(tp, consumer.beginningOffsets(List.of(tp)).get(tp));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (partitions.contains(tp)) owned = false;
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (partitions.contains(tp)) owned = false;
        }
    }

    private volatile boolean standingBy;

    /** Whether this verifier is waiting while another one with its id owns cobra.rounds. */
    public boolean standingBy() { return standingBy; }

    private volatile boolean owning;

    /** Whether this verifier owns cobra.rounds and works (from its ownership until it stops or loses it). */
    public boolean owning() { return owning; }

    /**
     * Runs until {@link #stop}; throws if Kafka fails in a way a restart must handle, and {@link OwnershipLost} when
     * another verifier with this id took over. Active and standby: verifiers with the same id and group all join the
     * group; the one assigned cobra.rounds' partition works, the others stand by (doing nothing but heartbeats) and
     * one of them takes over, from the committed offset and checkpoint, when the owner dies or leaves. Only the owner
     * calls {@code initTransactions}, which fences the producer of any earlier owner.
     */
    public void run() {
        TopicPartition tp = new TopicPartition(settings.roundsTopic(), 0);
        Properties c = new Properties();
        // a dead owner is noticed after the session timeout; 6 s is the broker's default minimum (a --kafka-config may set more)
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1500");
        // a round's check may take minutes (its --timeout, a backlog decided in batches): the group must not move the
        // partition away from a live owner for that; a dead one is found by its session timeout
        c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "1800000");
        c.putAll(settings.kafka().properties());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, settings.group());
        c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // never jump silently: a position retention has deleted throws, and the loss is recorded (inputLost)
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(32 << 20)); // several rounds per fetch when behind
        c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100000");
        Properties p = settings.kafka().properties();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_RECORD_BYTES));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(4L * MAX_RECORD_BYTES));
        try (KafkaConsumer<String, byte[]> cons = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<String, byte[]> prod = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            consumer = cons;
            if (!running.get()) return;
            Ownership own = new Ownership(tp, cons);
            cons.subscribe(List.of(settings.roundsTopic()), own);
            if (!awaitOwnership(cons, own)) return;
            try {
                work(cons, prod, tp, own);
            } catch (OwnershipLost e) {
                throw e;
            } catch (RuntimeException e) {
                Throwable fenced = fencing(e);
                if (fenced == null) throw e;
                throw new OwnershipLost("another verifier with id " + settings.transactionalId() + " took over cobra.rounds; this one was fenced ("
                        + fenced.getClass().getSimpleName() + ") and published nothing more", e);
            }
        } catch (WakeupException e) {
            if (running.get()) throw e;
        } finally {
            consumer = null;
            standingBy = false;
            owning = false;
        }
    }

    /** The fencing of a former owner in {@code e}'s cause chain (wherever a send, checkpoint or commit met it); null if none. */
    static Throwable fencing(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause())
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException || t instanceof CommitFailedException
                    || t instanceof FencedInstanceIdException) return t;
        return null;
    }

    /**
     * How long a new owner waits for the collected-writes store's lock before it takes a store of its own: a former
     * owner that was paused finds itself fenced when it resumes and closes the store; one that never resumes would
     * otherwise hold verification up forever.
     */
    static final long STORE_LOCK_WAIT_MILLIS = Long.getLong("cobra.storeLockWaitMillis", 60_000);

    /**
     * The collected-writes store under {@code --state-dir}. A former owner on this host that stopped responding (paused,
     * say) may still hold its lock: the new owner waits a few seconds for it, then works with a fresh store of its own
     * (deleted when it stops). That loses only what the former owner collected: a later read of one of those writes waits
     * and ends unknown, never a false verdict (A5), as on another disk.
     */
    private CollectedWrites openStore() {
        Path dir = settings.stateDir().resolve(settings.transactionalId()).resolve("collected-writes");
        long horizon = (long) (settings.rememberHours() * 3_600_000L);
        long deadline = System.nanoTime() + STORE_LOCK_WAIT_MILLIS * 1_000_000L;
        boolean said = false;
        while (true) {
            try {
                return new RocksDbCollectedWrites(dir, false, horizon, System::currentTimeMillis);
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof RocksDBException r) || r.getMessage() == null || !r.getMessage().toLowerCase().contains("lock")) throw e;
                if (System.nanoTime() > deadline || !running.get()) break;
                if (!said) {
                    said = true;
                    LOG.warn("cobra verifier: the collected-writes store in " + dir + " is locked by another process (a former owner that"
                            + " stopped responding?); waiting up to " + STORE_LOCK_WAIT_MILLIS / 1000 + " s for it");
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        Path own = dir.resolveSibling("collected-writes-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis());
        LOG.warn("cobra verifier: the collected-writes store in " + dir + " is still locked by another process (a former owner that stopped"
                + " responding?); working with a store of its own in " + own + ": a read of a write the former owner collected will be unknown");
        return new RocksDbCollectedWrites(own, true, horizon, System::currentTimeMillis);
    }

    /** Polls (throwing away anything polled) until this member owns the partition; false when stopped first. */
    private boolean awaitOwnership(KafkaConsumer<String, byte[]> cons, Ownership own) {
        boolean said = false;
        while (running.get()) {
            cons.poll(Duration.ofMillis(200));
            if (own.owned) {
                if (said) LOG.info("cobra verifier: " + settings.transactionalId() + " now owns " + settings.roundsTopic() + ": taking over");
                standingBy = false;
                owning = true;
                return true;
            }
            if (own.rebalanced && !said) {
                said = true;
                standingBy = true;
                LOG.info("cobra verifier: standing by: another verifier with id " + settings.transactionalId() + " (group " + settings.group()
                        + ") owns " + settings.roundsTopic() + "; this one takes over when it goes");
            }
        }
        return false;
    }

    /** The owner's work: resume from the committed offset and checkpoint, then decide rounds as they come. */
    private void work(KafkaConsumer<String, byte[]> cons, KafkaProducer<String, byte[]> prod, TopicPartition tp, Ownership own) {
        prod.initTransactions(); // fences any earlier owner and aborts its open transaction
        OffsetAndMetadata committed = cons.committed(Set.of(tp)).get(tp);
        long resumeAt = committed == null ? 0 : committed.offset();
        restarts = committed == null ? 0 : restartsIn(committed.metadata()) + 1;
        replayedRecords = 0;
        resumedFromRound = -1;
        checkpointAt = -1;
        checkpointRound = -1;
        CollectedWrites store = settings.stateDir() == null ? null : openStore();
        // a store left at another checkpoint than the one resumed from (this host owned cobra.rounds before another one
        // did, or a copy of an old --state-dir) holds entries of an abandoned timeline at rounds the checkpoint's visibility
        // rule would accept: it is discarded (docs/DESIGN.md §8.2)
        long resumeFrom = committed == null ? -1 : field(committed.metadata(), "checkpoint");
        if (store instanceof RocksDbCollectedWrites r && !r.isEmpty() && r.checkpointMark() != resumeFrom) {
            Path d = r.dir();
            LOG.info("cobra verifier: the collected-writes store in " + d + " was left at the checkpoint at " + settings.checkpointsTopic() + "@"
                    + r.checkpointMark() + ", not the one resumed from (" + (resumeFrom < 0 ? "none" : "@" + resumeFrom) + "): it is discarded");
            r.close();
            deleteTree(d);
            store = openStore();
        }
        try (RoundVerifier verifier = new RoundVerifier(verifierSettings, store)) {
            verifier.incarnation(restarts);
            // frontier logs go out with checkpoints, where the topic for them exists (an older deployment may lack it)
            publishLogs = settings.checkpointEvery() > 0 && cons.listTopics(Duration.ofSeconds(30)).containsKey(FrontierLogs.TOPIC);
            if (publishLogs) verifier.engine().trackFrontierChanges();
            else if (settings.checkpointEvery() > 0)
                LOG.warn("cobra verifier: there is no topic " + FrontierLogs.TOPIC + ", so checkpoints go without frontier logs: a replay,"
                        + " or a verifier on another host, will say unknown once frontier writes are collected (cobra topology creates the missing topics when it starts)");
            logsComplete = publishLogs;
            long startAt = committed == null ? 0 : resume(verifier, committed.metadata());
            long logStart = cons.beginningOffsets(List.of(tp)).get(tp);
            if (logStart > startAt) {
                // retention deleted input this state was to be rebuilt from: what is rebuilt is a suffix of the history
                inputLost(verifier, "records " + startAt + " to " + (logStart - 1) + " of " + settings.roundsTopic()
                        + " were deleted (retention) before this verifier read them, so its state is rebuilt from a suffix of the history");
                startAt = logStart;
            }
            cons.seek(tp, startAt);
            List<RoundVerifier.Closed> replayed = new ArrayList<>();
            while (running.get()) {
                // a poll may hold several whole rounds (the verifier catching up): they are decided together and
                // their verdicts committed in one transaction with the offset after the last round end
                List<RoundVerifier.Closed> ends = new ArrayList<>();
                long commitAt = -1;
                int batchTxns = 0;
                List<ConsumerRecord<String, byte[]>> polled;
                try {
                    polled = drain(cons);
                    if (!own.owned) throw new OwnershipLost("cobra.rounds was assigned to another verifier with id " + settings.transactionalId()
                            + " (this one missed its heartbeats, or left the group); it publishes nothing more", null);
                } catch (OffsetOutOfRangeException e) {
                    // the verifier fell further behind than the retention: the records it was about to read are gone
                    long from = e.offsetOutOfRangePartitions().getOrDefault(tp, -1L), to = cons.beginningOffsets(List.of(tp)).get(tp);
                    inputLost(verifier, "records " + from + " to " + (to - 1) + " of " + settings.roundsTopic()
                            + " were deleted (retention) before this verifier read them: it fell further behind than the retention");
                    cons.seek(tp, to);
                    continue;
                }
                for (ConsumerRecord<String, byte[]> r : polled) {
                    boolean replay = r.offset() < resumeAt;
                    if (replay) replayedRecords++;
                    String type;
                    try {
                        type = wire.typeOf(r.value());
                    } catch (MalformedRecordException e) {
                        if (!replay) {
                            if (!ends.isEmpty()) { publish(prod, cons, tp, verifier, ends, commitAt); ends.clear(); batchTxns = 0; }
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
                        batchTxns += closed.txns().size();
                        if (batchTxns >= MAX_BATCH_TXNS) { // far behind: decide (and checkpoint) in bounded steps
                            publish(prod, cons, tp, verifier, ends, commitAt);
                            ends.clear();
                            batchTxns = 0;
                        }
                    } else if (!replay) {
                        if (!ends.isEmpty()) { publish(prod, cons, tp, verifier, ends, commitAt); ends.clear(); batchTxns = 0; }
                        deadLetter(prod, cons, tp, r, "a " + type + " on " + settings.roundsTopic() + ", expected a Transaction or a RoundEnd");
                    }
                }
                if (!replayed.isEmpty()) { verifier.replay(replayed); replayed.clear(); }
                if (!ends.isEmpty()) publish(prod, cons, tp, verifier, ends, commitAt);
            }
        }
    }

    /**
     * Records that input of the checked history is gone (A8): no later round may be accepted (rejects are still
     * found, from what remains), and the reason goes into every such verdict and into checkpoints.
     */
    private static void inputLost(RoundVerifier verifier, String why) {
        LOG.warn("cobra verifier: " + why + "; no round can be accepted from now on");
        verifier.inputLost(why);
    }

    /**
     * What is available now: one poll that may wait, then more without waiting while records keep coming
     * (up to a bound), so that a verifier behind decides many rounds with one check.
     */
    private static List<ConsumerRecord<String, byte[]>> drain(KafkaConsumer<String, byte[]> cons) {
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
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
        for (Verdict v : vs) prod.send(new ProducerRecord<>(settings.verdictsTopic(), Long.toString(v.getRound()), wire.encode(settings.verdictsTopic(), v)));
        RoundEnd lastEnd = ends.get(ends.size() - 1).end();
        if (checkpointDue(verifier.lastDecidedRound())) checkpoint(prod, verifier, commitAt, lastEnd == null ? -1 : lastEnd.getEpochAgree());
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
        prod.send(new ProducerRecord<>(settings.deadLettersTopic(), Quarantine.key(d), wire.encode(settings.deadLettersTopic(), d)));
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

    private OffsetAndMetadata offset(long at) {
        return new OffsetAndMetadata(at, "restarts=" + restarts + (checkpointAt < 0 ? "" : ";checkpoint=" + checkpointAt + ";round=" + checkpointRound));
    }

    static long restartsIn(String metadata) { return field(metadata, "restarts"); }

    /** A {@code name=value} field of the offset metadata ({@code restarts=2;checkpoint=1234;round=56}); -1 if absent. */
    static long field(String metadata, String name) {
        if (metadata == null) return -1;
        for (String f : metadata.split(";")) {
            if (!f.startsWith(name + "=")) continue;
            try {
                return Long.parseLong(f.substring(name.length() + 1));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    // ---- checkpoints on cobra.gc-frontiers

    /** Offset (on the checkpoints topic) of chunk 0 of the latest checkpoint committed or being committed, and its round; -1: none. */
    private long checkpointAt = -1, checkpointRound = -1;
    private volatile long replayedRecords, resumedFromRound = -1;
    private volatile double resumeSeconds;

    /** Records of cobra.rounds read again after the last start (0 when it resumed from a checkpoint of its last round). */
    public long replayedRecords() { return replayedRecords; }

    /** The round of the checkpoint the last start resumed from; -1 if it started from the beginning. */
    public long resumedFromRound() { return resumedFromRound; }

    /**
     * Whether this verifier publishes frontier logs with its checkpoints, and whether every entry of its timeline is
     * published (false when it resumed from a checkpoint taken without: then no later checkpoint says so either).
     */
    private volatile boolean publishLogs, logsComplete;

    /** How long the last start took to load its checkpoint, in seconds. */
    public double resumeSeconds() { return resumeSeconds; }

    /**
     * Publishes the verifier's state after the rounds just decided, in the open transaction, and records
     * where it went (the committed offset's metadata will point at it). A state too large for the topic is
     * not checkpointed (the previous checkpoint stays the one to resume from).
     */
    private void checkpoint(KafkaProducer<String, byte[]> prod, RoundVerifier verifier, long inputOffset, long epochAgree) {
        List<VerifierCheckpoint> chunks = verifier.checkpoint(settings.transactionalId(), inputOffset, epochAgree, CHUNK_BYTES);
        if (chunks.get(0).getCore() != null) chunks.get(0).getCore().setFrontierLogsPublished(publishLogs && logsComplete);
        List<byte[]> encoded = new ArrayList<>(chunks.size());
        for (VerifierCheckpoint c : chunks) {
            byte[] b = wire.encode(settings.checkpointsTopic(), c);
            if (b.length > MAX_RECORD_BYTES - 1024) {
                LOG.info("cobra verifier: the checkpoint of round " + c.getRound() + " has a record of " + b.length
                        + " bytes, over the limit; the previous checkpoint stays the one to resume from");
                return;
            }
            encoded.add(b);
        }
        // the frontier logs that changed since the last checkpoint, in the same transaction (docs/DESIGN.md §7.9)
        if (publishLogs)
            for (Map.Entry<String, List<CollectedWrites.FrontierEntry>> e : verifier.engine().takeFrontierLogsToPublish().entrySet())
                prod.send(new ProducerRecord<>(FrontierLogs.TOPIC, e.getKey(),
                        wire.encode(FrontierLogs.TOPIC, FrontierLogs.record(e.getKey(), chunks.get(0).getRound(), e.getValue()))));
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < chunks.size(); i++) {
            VerifierCheckpoint c = chunks.get(i);
            sent.add(prod.send(new ProducerRecord<>(settings.checkpointsTopic(), checkpointKey(c.getVerifier(), c.getRound(), c.getChunk()), encoded.get(i))));
        }
        prod.flush();
        try {
            checkpointAt = sent.get(0).get().offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing a checkpoint", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("publishing a checkpoint failed: " + e.getCause().getMessage(), e.getCause());
        }
        checkpointRound = chunks.get(0).getRound();
        verifier.engine().markCheckpoint(checkpointAt); // before the transaction commits: a crash in between leaves a mark no resume matches
    }

    private static void deleteTree(Path d) {
        if (d == null || !java.nio.file.Files.exists(d)) return;
        try (var w = java.nio.file.Files.walk(d)) {
            w.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot delete the discarded collected-writes store in " + d + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether the rounds just decided call for a checkpoint: none yet (a fresh start checkpoints at once), or
     * {@code checkpointEvery} rounds or more since the last one, counted in rounds (a batch of rounds counts as
     * all of them) and across restarts (the last one is known from the committed offset).
     */
    private boolean checkpointDue(long lastRound) {
        int every = settings.checkpointEvery();
        return every > 0 && (checkpointRound < 0 || lastRound - checkpointRound >= every);
    }

    /** The key of a checkpoint record: verifier, round and chunk (so compaction keeps every retained round's checkpoint). */
    public static String checkpointKey(String verifier, long round, int chunk) { return verifier + "/" + round + "/" + chunk; }

    /**
     * After a restart: loads the checkpoint the committed offset's metadata names into {@code verifier} and
     * returns the offset on the rounds topic to read from (the checkpoint's input offset); 0 when there is
     * none or it cannot be loaded (then everything is read again, as before checkpoints existed).
     */
    private long resume(RoundVerifier verifier, String metadata) {
        long at = field(metadata, "checkpoint"), round = field(metadata, "round");
        if (at < 0) return 0;
        long t0 = System.nanoTime();
        try {
            List<VerifierCheckpoint> chunks = Checkpoints.read(settings.kafka(), settings.checkpointsTopic(), wire,
                    settings.transactionalId(), at, round, Duration.ofSeconds(30));
            VerifierCore core = chunks.get(0).getCore();
            boolean published = core != null && core.getFrontierLogsPublished();
            logsComplete = core == null || core.getFrontierRecords() == 0 || published;
            // a store without the frontier logs (another host, no --state-dir): the published ones (docs/DESIGN.md §7.9)
            if (core != null && core.getFrontierRecords() > 0 && published && !verifier.engine().hasFrontierLogs()) {
                int n = FrontierLogs.importAll(settings.kafka(), wire, verifier.engine());
                LOG.warn("cobra verifier: this collected-writes store held no frontier logs; " + n + " read from " + FrontierLogs.TOPIC);
            }
            verifier.restore(chunks, restarts);
            checkpointAt = at;
            checkpointRound = round;
            resumedFromRound = round;
            resumeSeconds = (System.nanoTime() - t0) / 1e9;
            return chunks.get(0).getInputOffset();
        } catch (RuntimeException e) {
            LOG.warn("cobra verifier: cannot resume from the checkpoint of round " + round + " at " + settings.checkpointsTopic() + "@" + at
                    + " (" + e.getMessage() + "); reading " + settings.roundsTopic() + " from the beginning");
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
