package org.cobraverify.service;

import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The settings of {@link VerifierService}'s two Kafka clients: its consumer of the rounds topic (a member of the
 * verifiers' group, read-committed, never committing by itself, never resetting silently) and its transactional
 * producer (one transactional id per verifier). The settings the service depends on are put after the connection's
 * own, so a {@code --kafka-config} cannot override them.
 */
final class ServiceClients {
    private ServiceClients() {}

    /** The consumer's properties (a fresh copy each call). */
    static Properties consumer(VerifierService.Settings settings) {
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
        return c;
    }

    /** The transactional producer's properties (a fresh copy each call). */
    static Properties producer(VerifierService.Settings settings) {
        Properties p = settings.kafka().properties();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(VerifierService.MAX_RECORD_BYTES));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(4L * VerifierService.MAX_RECORD_BYTES));
        return p;
    }
}
