package org.cobraverify.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/** A record that cannot be decoded; the message says why (the caller adds where: topic, partition, offset). */
public final class MalformedRecordException extends SerializationException {
    public MalformedRecordException(String message) { super(message); }

    public MalformedRecordException(String message, Throwable cause) { super(message, cause); }
}
