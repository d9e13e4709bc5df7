package org.cobraverify.schemas.serde;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** The Kafka serde of one record type, over {@link WireFormat}: how every producer and consumer puts records on topics. */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T>, Serializer<T>, Deserializer<T> {
    private final WireFormat wire;
    private final Class<T> type;

    public AvroSerde(WireFormat wire, Class<T> type) {
        this.wire = wire;
        this.type = type;
    }

    @Override
    public byte[] serialize(String topic, T data) { return data == null ? null : wire.encode(topic, data); }

    @Override
    public T deserialize(String topic, byte[] data) { return data == null ? null : wire.decode(data, type); }

    @Override
    public Serializer<T> serializer() { return this; }

    @Override
    public Deserializer<T> deserializer() { return this; }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}
}
