package org.cobraverify.schemas.serde;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.schemas.kafka.KafkaConnection;

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
    public static void publish(String bootstrap, SchemaCatalog catalog) { publish(KafkaConnection.plain(bootstrap), catalog); }

    /** Publishes every known schema through {@code kafka} (idempotent) and waits for the broker's ack. */
    public static void publish(KafkaConnection kafka, SchemaCatalog catalog) {
        Properties p = kafka.properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (Schema s : catalog.known())
                producer.send(new ProducerRecord<>(TOPIC, key(SchemaCatalog.fingerprint(s)), s.toString())).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing schemas", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot publish schemas to " + TOPIC + " on " + kafka.bootstrap() + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * The wire format of a command's topics on {@code kafka}: with a schema registry configured there
     * ({@code schema.registry.url}), the Confluent wire format through it ({@link RegistryFraming}); otherwise
     * single-object encoding with this build's schemas and the catalog topic on a miss. Either way, records of both
     * framings are read.
     */
    public static WireFormat wireFormat(KafkaConnection kafka) {
        RegistryFraming registry = RegistryFraming.of(kafka.registrySettings());
        return new WireFormat(attach(new SchemaCatalog(), kafka), registry);
    }

    /**
     * Makes {@code wire}'s schemas known before the pipeline writes a record: with a registry, every record type of every
     * pipeline topic registered under its subject ({@link RegistryFraming#registerAll}; a registry that is down or refuses
     * throws {@link org.cobraverify.schemas.registry.SchemaRegistryClient.RegistryException}); without, every schema published to the catalog topic. Returns the
     * subjects registered (empty without a registry).
     */
    public static java.util.List<String> prepare(KafkaConnection kafka, WireFormat wire) {
        if (wire.registry() != null) return wire.registry().registerAll(TopicRecords.PIPELINE);
        publish(kafka, wire.catalog());
        return java.util.List.of();
    }

    /** Makes {@code catalog} consult the catalog topic on a miss. */
    public static SchemaCatalog attach(SchemaCatalog catalog, String bootstrap) { return attach(catalog, KafkaConnection.plain(bootstrap)); }

    /** Makes {@code catalog} consult the catalog topic, read through {@code kafka}, on a miss. */
    public static SchemaCatalog attach(SchemaCatalog catalog, KafkaConnection kafka) {
        catalog.fallback(fp -> {
            for (Map.Entry<String, String> e : readAll(kafka).entrySet()) catalog.add(new Schema.Parser().parse(e.getValue()));
            return catalog.known().stream().filter(s -> SchemaCatalog.fingerprint(s) == fp).findFirst().orElse(null);
        });
        return catalog;
    }

    /** The whole catalog topic, fingerprint to schema JSON (later records win); empty when there is no catalog topic. */
    public static Map<String, String> readAll(KafkaConnection kafka) {
        Map<String, String> out = new HashMap<>();
        try {
            for (ConsumerRecord<String, String> r : TopicScan.readAll(kafka, TOPIC, new StringDeserializer(), Duration.ofSeconds(30)))
                if (r.value() != null) out.put(r.key(), r.value());
        } catch (TopicScan.NoSuchTopic e) {
            // nothing published yet: only this build's schemas are known
        }
        return out;
    }
}
