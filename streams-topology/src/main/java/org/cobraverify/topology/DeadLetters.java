package org.cobraverify.topology;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.serde.Quarantine;
import org.cobraverify.schemas.serde.WireFormat;

/** The dead letter of the record being processed, addressed where it came from. */
final class DeadLetters {
    private DeadLetters() {}

    static Record<String, byte[]> of(ProcessorContext<String, byte[]> ctx, WireFormat wire, Record<String, byte[]> rec, String reason) {
        // during a punctuation there is no input record (the metadata is there, its topic null): no place but the key
        RecordMetadata m = ctx.recordMetadata().filter(x -> x.topic() != null).orElse(null);
        DeadLetter d = Quarantine.of(reason, m == null ? "?" : m.topic(), m == null ? -1 : m.partition(), m == null ? -1 : m.offset(),
                rec.key(), rec.value());
        return new Record<>(Quarantine.key(d), wire.encode(Topics.DEAD_LETTERS, d), rec.timestamp());
    }
}
