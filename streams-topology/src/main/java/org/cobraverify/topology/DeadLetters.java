package org.cobraverify.topology;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.serde.WireFormat;

/** Builds the dead letter of a record being processed: the reason, where it came from, and its bytes unchanged. */
final class DeadLetters {
    private DeadLetters() {}

    static Record<String, byte[]> of(ProcessorContext<String, byte[]> ctx, WireFormat wire, Record<String, byte[]> rec, String reason) {
        RecordMetadata m = ctx.recordMetadata().orElse(null);
        DeadLetter d = DeadLetter.newBuilder()
                .setReason(reason)
                .setTopic(m == null ? "?" : m.topic())
                .setPartition(m == null ? -1 : m.partition())
                .setOffset(m == null ? -1 : m.offset())
                .setKey(rec.key() == null ? null : ByteBuffer.wrap(rec.key().getBytes(StandardCharsets.UTF_8)))
                .setValue(rec.value() == null ? null : ByteBuffer.wrap(rec.value()))
                .setAt(System.currentTimeMillis())
                .build();
        String where = d.getTopic() + "/" + d.getPartition() + "@" + d.getOffset();
        return new Record<>(where, wire.encode(d), rec.timestamp());
    }
}
