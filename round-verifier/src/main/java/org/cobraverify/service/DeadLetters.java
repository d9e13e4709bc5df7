package org.cobraverify.service;

import java.util.Map;
import java.util.function.LongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.serde.Quarantine;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The dead-letter topic of {@link VerifierService}: a record of the rounds topic that is not a Transaction or a RoundEnd
 * (or cannot be read at all) is quarantined there, with where it was, and the committed offset moves past it.
 *
 * <p>Contract: {@link #quarantine} runs one whole Kafka transaction of its own (begin, the dead letter, the offset past
 * the record, commit); no other transaction of the producer may be open when it is called.
 */
final class DeadLetters {
    private final String topic;
    private final WireFormat wire;
    /** The offset to commit to go on at a given offset of the rounds topic (with its metadata). */
    private final LongFunction<OffsetAndMetadata> offset;

    DeadLetters(String topic, WireFormat wire, LongFunction<OffsetAndMetadata> offset) {
        this.topic = topic;
        this.wire = wire;
        this.offset = offset;
    }

    /** Quarantines a record of the rounds topic (with where it was) and moves past it, in one transaction. */
    void quarantine(KafkaProducer<String, byte[]> prod, KafkaConsumer<String, byte[]> cons, TopicPartition tp,
                    ConsumerRecord<String, byte[]> r, String reason) {
        DeadLetter d = Quarantine.of(reason, r.topic(), r.partition(), r.offset(), r.key(), r.value());
        prod.beginTransaction();
        prod.send(new ProducerRecord<>(topic, Quarantine.key(d), wire.encode(topic, d)));
        prod.sendOffsetsToTransaction(Map.of(tp, offset.apply(r.offset() + 1)), cons.groupMetadata());
        prod.commitTransaction();
    }
}
