package org.cobraverify.ops.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The embedded KRaft broker really runs: topics, an idempotent transactional producer, a read-committed consumer. */
class EmbeddedKafkaTest {
    @Test
    void transactionalRoundTrip() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0, null)) {
            String bs = kafka.bootstrapServers();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bs))) {
                admin.createTopics(List.of(new NewTopic("cobra.test", 2, (short) 1))).all().get();
            }
            try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", bs, "acks", "all",
                    "enable.idempotence", "true", "transactional.id", "cobra-test"), new StringSerializer(), new StringSerializer())) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("cobra.test", "s1", "committed"));
                p.commitTransaction();
                p.beginTransaction();
                p.send(new ProducerRecord<>("cobra.test", "s1", "aborted"));
                p.abortTransaction();
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bs, "group.id", "g",
                    "auto.offset.reset", "earliest", "isolation.level", "read_committed"), new StringDeserializer(), new StringDeserializer())) {
                c.subscribe(List.of("cobra.test"));
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (seen.isEmpty() && System.nanoTime() < deadline)
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.add(r.value());
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) seen.add(r.value());
            }
            assertEquals(List.of("committed"), seen, "a read-committed consumer sees the committed record only");
        }
    }
}
