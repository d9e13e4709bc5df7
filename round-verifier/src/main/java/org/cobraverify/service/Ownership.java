package org.cobraverify.service;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;

/**
 * Active and standby: which of the verifiers with one id works. They all join the consumer group; the member assigned
 * cobra.rounds' one partition owns it and works, the others stand by (doing nothing but heartbeats) until it is theirs.
 *
 * <p>Contract: one instance per {@link VerifierService}, its state ({@link #standingBy}, {@link #owning}) read from any
 * thread; each run makes an {@link Assignment} for its consumer, {@link #await}s ownership, and calls {@link #released}
 * when it ends. A former owner's publishing is found to be fenced by {@link #fencing}.
 */
final class Ownership {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VerifierService.class);

    private final VerifierService.Settings settings;
    private final BooleanSupplier running;
    private volatile boolean standingBy;
    private volatile boolean owning;

    Ownership(VerifierService.Settings settings, BooleanSupplier running) {
        this.settings = settings;
        this.running = running;
    }

    /**
     * Which verifier works: the member of the consumer group that owns cobra.rounds' one partition (sticky, so a
     * standby joining does not move it). Set by the consumer's rebalance callbacks, inside its polls.
     */
    static final class Assignment implements ConsumerRebalanceListener {
        private final TopicPartition tp;
        private final KafkaConsumer<String, byte[]> consumer;
        private volatile boolean owned, rebalanced;

        Assignment(TopicPartition tp, KafkaConsumer<String, byte[]> consumer) {
            this.tp = tp;
            this.consumer = consumer;
        }

        /** Whether this member is assigned the partition now. */
        boolean owned() { return owned; }

        /** Whether a rebalance has assigned this member its partitions (none, perhaps) yet. */
        boolean rebalanced() { return rebalanced; }

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

    /** Whether this verifier is waiting while another one with its id owns cobra.rounds. */
    boolean standingBy() { return standingBy; }

    /** Whether this verifier owns cobra.rounds and works (from its ownership until it stops or loses it). */
    boolean owning() { return owning; }

    /** Polls (throwing away anything polled) until this member owns the partition; false when stopped first. */
    boolean await(KafkaConsumer<String, byte[]> cons, Assignment own) {
        boolean said = false;
        while (running.getAsBoolean()) {
            cons.poll(Duration.ofMillis(200));
            if (own.owned()) {
                if (said) LOG.info("cobra verifier: " + settings.transactionalId() + " now owns " + settings.roundsTopic() + ": taking over");
                standingBy = false;
                owning = true;
                return true;
            }
            if (own.rebalanced() && !said) {
                said = true;
                standingBy = true;
                LOG.info("cobra verifier: standing by: another verifier with id " + settings.transactionalId() + " (group " + settings.group()
                        + ") owns " + settings.roundsTopic() + "; this one takes over when it goes");
            }
        }
        return false;
    }

    /** The run ended: this verifier neither owns cobra.rounds nor stands by. */
    void released() {
        standingBy = false;
        owning = false;
    }

    /** The fencing of a former owner in {@code e}'s cause chain (wherever a send, checkpoint or commit met it); null if none. */
    static Throwable fencing(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause())
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException || t instanceof CommitFailedException
                    || t instanceof FencedInstanceIdException) return t;
        return null;
    }
}
