package org.cobraverify.schemas.serde;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.cobraverify.schemas.kafka.KafkaConnection;

/**
 * Reads a whole topic as it stands now: every committed record of every partition, from the beginning
 * up to the end offsets taken at the start (records written meanwhile are not waited for). No consumer
 * group, nothing committed.
 */
public final class TopicScan {
    private TopicScan() {}

    /** The topic does not exist (or has no partitions). */
    public static final class NoSuchTopic extends IllegalStateException {
        NoSuchTopic(String topic, String bootstrap) { super("no topic " + topic + " on " + bootstrap); }
    }

    public static <V> List<ConsumerRecord<String, V>> readAll(String bootstrap, String topic, Deserializer<V> values, Duration timeout) {
        return readAll(KafkaConnection.plain(bootstrap), topic, values, timeout);
    }

    public static <V> List<ConsumerRecord<String, V>> readAll(KafkaConnection kafka, String topic, Deserializer<V> values, Duration timeout) {
        List<ConsumerRecord<String, V>> out = new ArrayList<>();
        forEach(kafka, topic, values, timeout, out::add);
        return out;
    }

    /**
     * Hands every committed record of {@code topic} up to its end now to {@code each}, one at a time, without holding
     * them (a topic with a record per key, read into a store). Throws {@link NoSuchTopic} when there is no such topic.
     */
    public static <V> void forEach(KafkaConnection kafka, String topic, Deserializer<V> values, Duration timeout,
                                   java.util.function.Consumer<ConsumerRecord<String, V>> each) {
        String bootstrap = kafka.bootstrap();
        Properties p = kafka.properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, V> c = new KafkaConsumer<>(p, new StringDeserializer(), values)) {
            var infos = c.partitionsFor(topic, Duration.ofSeconds(15));
            if (infos == null || infos.isEmpty()) throw new NoSuchTopic(topic, bootstrap);
            List<TopicPartition> parts = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("timed out reading " + topic + " on " + bootstrap);
                for (ConsumerRecord<String, V> r : c.poll(Duration.ofMillis(200)))
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) each.accept(r);
            }
        }
    }
}
