package org.cobraverify.ops.pipeline;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.cobraverify.schemas.serde.TopicScan;

/** Test helper: everything committed on a topic so far. */
final class Topic {
    private Topic() {}

    static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
        return TopicScan.readAll(bootstrap, topic, new ByteArrayDeserializer(), Duration.ofSeconds(30));
    }
}
