package org.cobraverify.schemas.serde;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.cobraverify.schemas.DeadLetter;

/** What the dead-letter topic holds for a record that could not be used: why, where it was, and its bytes unchanged. */
public final class Quarantine {
    private Quarantine() {}

    public static DeadLetter of(String reason, String topic, int partition, long offset, String key, byte[] value) {
        return DeadLetter.newBuilder()
                .setReason(reason)
                .setTopic(topic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(key == null ? null : ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)))
                .setValue(value == null ? null : ByteBuffer.wrap(value))
                .setAt(System.currentTimeMillis())
                .build();
    }

    /** The dead letter's record key: {@code topic/partition@offset}. */
    public static String key(DeadLetter d) { return d.getTopic() + "/" + d.getPartition() + "@" + d.getOffset(); }
}
