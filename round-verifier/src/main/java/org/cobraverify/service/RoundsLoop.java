package org.cobraverify.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The owner's work in {@link VerifierService}: consume, decide, produce. It resumes from the committed offset and the
 * checkpoint it names (replaying the records before that offset without publishing anything), then reads cobra.rounds
 * and, for the rounds each poll closes, publishes their verdicts (and a checkpoint when one is due) with the offset past
 * the last round end, in one Kafka transaction; a record that is neither a Transaction nor a RoundEnd goes to the dead
 * letters in a transaction of its own, after the rounds before it.
 *
 * <p>Contract: {@link #work} is called by the thread that runs the service, once it owns the partition, with the
 * service's consumer and transactional producer; it returns when the service is stopped, and throws
 * {@link VerifierService.OwnershipLost} when the partition goes to another member (any other failure of Kafka is thrown
 * as it came).
 */
final class RoundsLoop {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VerifierService.class);

    /**
     * A verifier behind decides the rounds it has with one check, but never more than about this many
     * transactions at once: one check of a long backlog (after a restart, say) would take long, hold the
     * whole backlog in memory, and publish nothing until it ends.
     */
    static final int MAX_BATCH_TXNS = 40_000;

    private final VerifierService.Settings settings;
    private final RoundSettings verifierSettings;
    private final Consumer<Verdict> listener;
    private final WireFormat wire;
    private final BooleanSupplier running;
    private final StateStore store;
    private final Checkpointing checkpointing;
    private final DeadLetters deadLetters;
    private final CrashPoints crashPoints;

    RoundsLoop(VerifierService.Settings settings, RoundSettings verifierSettings, Consumer<Verdict> listener, WireFormat wire,
               BooleanSupplier running, StateStore store, Checkpointing checkpointing, DeadLetters deadLetters, CrashPoints crashPoints) {
        this.settings = settings;
        this.verifierSettings = verifierSettings;
        this.listener = listener;
        this.wire = wire;
        this.running = running;
        this.store = store;
        this.checkpointing = checkpointing;
        this.deadLetters = deadLetters;
        this.crashPoints = crashPoints;
    }

    /** The owner's work: resume from the committed offset and checkpoint, then decide rounds as they come. */
    void work(KafkaConsumer<String, byte[]> cons, KafkaProducer<String, byte[]> prod, TopicPartition tp, Ownership.Assignment own) {
        prod.initTransactions(); // fences any earlier owner and aborts its open transaction
        OffsetAndMetadata committed = cons.committed(Set.of(tp)).get(tp);
        long resumeAt = committed == null ? 0 : committed.offset();
        checkpointing.start(committed);
        CollectedWrites collected = store.open(committed == null ? -1 : Checkpointing.field(committed.metadata(), "checkpoint"));
        try (RoundVerifier verifier = new RoundVerifier(verifierSettings, collected)) {
            verifier.incarnation(checkpointing.restarts());
            checkpointing.frontierLogs(cons, verifier);
            long startAt = committed == null ? 0 : checkpointing.resume(verifier, committed.metadata());
            long logStart = cons.beginningOffsets(List.of(tp)).get(tp);
            if (logStart > startAt) {
                // retention deleted input this state was to be rebuilt from: what is rebuilt is a suffix of the history
                inputLost(verifier, "records " + startAt + " to " + (logStart - 1) + " of " + settings.roundsTopic()
                        + " were deleted (retention) before this verifier read them, so its state is rebuilt from a suffix of the history");
                startAt = logStart;
            }
            cons.seek(tp, startAt);
            List<RoundVerifier.Closed> replayed = new ArrayList<>();
            while (running.getAsBoolean()) {
                // a poll may hold several whole rounds (the verifier catching up): they are decided together and
                // their verdicts committed in one transaction with the offset after the last round end
                List<RoundVerifier.Closed> ends = new ArrayList<>();
                long commitAt = -1;
                int batchTxns = 0;
                List<ConsumerRecord<String, byte[]>> polled;
                try {
                    polled = drain(cons);
                    if (!own.owned()) throw new VerifierService.OwnershipLost("cobra.rounds was assigned to another verifier with id "
                            + settings.transactionalId() + " (this one missed its heartbeats, or left the group); it publishes nothing more", null);
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
                    if (replay) checkpointing.replayed();
                    String type;
                    try {
                        type = wire.typeOf(r.value());
                    } catch (MalformedRecordException e) {
                        if (!replay) {
                            if (!ends.isEmpty()) { publish(prod, cons, tp, verifier, ends, commitAt); ends.clear(); batchTxns = 0; }
                            deadLetters.quarantine(prod, cons, tp, r, e.getMessage());
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
                        deadLetters.quarantine(prod, cons, tp, r, "a " + type + " on " + settings.roundsTopic() + ", expected a Transaction or a RoundEnd");
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
        for (Verdict v : vs) v.setVerifierRestarts(checkpointing.restarts());
        prod.beginTransaction();
        for (Verdict v : vs) prod.send(new ProducerRecord<>(settings.verdictsTopic(), Long.toString(v.getRound()), wire.encode(settings.verdictsTopic(), v)));
        RoundEnd lastEnd = ends.get(ends.size() - 1).end();
        if (checkpointing.checkpointDue(verifier.lastDecidedRound()))
            checkpointing.checkpoint(prod, verifier, commitAt, lastEnd == null ? -1 : lastEnd.getEpochAgree());
        prod.sendOffsetsToTransaction(Map.of(tp, checkpointing.offset(commitAt)), cons.groupMetadata());
        for (Verdict v : vs) crashPoints.reached(v.getRound());
        prod.commitTransaction();
        for (Verdict v : vs) listener.accept(v);
    }
}
