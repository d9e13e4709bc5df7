package org.cobraverify.schemas.serde;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The schema catalog topic: compacted, key = fingerprint (16 hex digits), value = the schema's JSON.
 * {@link #publish} puts every schema this build knows there; {@link #attach} makes a {@link SchemaCatalog}
 * read the topic to its end whenever it meets a fingerprint it does not know, so a consumer decodes
 * records written by producers with older or newer schemas.
 */
public final class KafkaSchemaCatalog {
    public static final String TOPIC = "cobra.schemas";

    private KafkaSchemaCatalog() {}

    public static String key(long fingerprint) { return String.format("%016x", fingerprint); }

    /** Publishes every known schema (idempotent: same key, same value) and waits for the broker's ack. */
    public static void publish(String bootstrap, SchemaCatalog catalog) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (Schema s : catalog.known())
                producer.send(new ProducerRecord<>(TOPIC, key(SchemaCatalog.fingerprint(s)), s.toString())).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing schemas", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot publish schemas to " + TOPIC + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Makes {@code catalog} consult the catalog topic on a miss. */
    public static SchemaCatalog attach(SchemaCatalog catalog, String bootstrap) {
        catalog.fallback(fp -> {
            for (Map.Entry<String, String> e : readAll(bootstrap).entrySet()) catalog.add(new Schema.Parser().parse(e.getValue()));
            return catalog.known().stream().filter(s -> SchemaCatalog.fingerprint(s) == fp).findFirst().orElse(null);
        });
        return catalog;
    }

    /** The whole catalog topic, fingerprint to schema JSON (later records win). */
    public static Map<String, String> readAll(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, String> out = new java.util.HashMap<>();
        try (var consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(TOPIC, Duration.ofSeconds(10)).stream()
                    .map(i -> new TopicPartition(TOPIC, i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("timed out reading " + TOPIC);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200)))
                    if (r.value() != null) out.put(r.key(), r.value());
            }
        }
        return out;
    }

}
