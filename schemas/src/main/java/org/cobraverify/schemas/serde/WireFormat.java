package org.cobraverify.schemas.serde;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The one wire format of every topic: Avro single-object encoding, i.e. the two bytes {@code C3 01}, the
 * writer schema's 8-byte little-endian CRC-64-AVRO fingerprint, then the Avro binary body. A reader
 * resolves the writer schema through a {@link SchemaCatalog} (this build's schemas, bundled previous
 * versions, and the catalog topic when connected) and reads into its own version of the record.
 */
public final class WireFormat {
    static {
        // Avro 1.12 decodes generated classes only from trusted packages
        if (System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES") == null)
            System.setProperty("org.apache.avro.SERIALIZABLE_PACKAGES", "org.cobraverify.schemas");
    }

    public static final int HEADER = 10;
    private static final SpecificData MODEL = new SpecificData();
    private final SchemaCatalog catalog;
    private final Map<Class<?>, BinaryMessageEncoder<?>> encoders = new ConcurrentHashMap<>();
    private final Map<Class<?>, BinaryMessageDecoder<?>> decoders = new ConcurrentHashMap<>();
    private final Map<Schema, BinaryMessageDecoder<org.apache.avro.generic.GenericRecord>> projections = new ConcurrentHashMap<>();

    public WireFormat(SchemaCatalog catalog) { this.catalog = catalog; }

    /** A wire format that knows only this build's schemas and the bundled previous versions. */
    public static WireFormat standalone() { return new WireFormat(new SchemaCatalog()); }

    public SchemaCatalog catalog() { return catalog; }

    @SuppressWarnings("unchecked")
    public <T extends SpecificRecord> byte[] encode(T record) {
        BinaryMessageEncoder<T> enc = (BinaryMessageEncoder<T>) encoders.computeIfAbsent(record.getClass(),
                c -> new BinaryMessageEncoder<>(MODEL, record.getSchema()));
        try {
            return enc.encode(record).array();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + record.getSchema().getFullName(), e);
        }
    }

    /**
     * Decodes into {@code type}. Throws {@link MalformedRecordException} (saying why) when the bytes are not
     * single-object encoded, the writer schema is unknown, it is another record type, or the body is bad.
     */
    @SuppressWarnings("unchecked")
    public <T extends SpecificRecord> T decode(byte[] bytes, Class<T> type) {
        Schema writer = writerSchema(bytes);
        Schema reader = MODEL.getSchema(type);
        if (!writer.getFullName().equals(reader.getFullName()))
            throw new MalformedRecordException("expected a " + reader.getFullName() + ", found a " + writer.getFullName());
        BinaryMessageDecoder<T> dec = (BinaryMessageDecoder<T>) decoders.computeIfAbsent(type,
                c -> new BinaryMessageDecoder<>(MODEL, reader, catalog));
        try {
            return dec.decode(bytes);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new MalformedRecordException("bad " + reader.getFullName() + " body: " + e.getMessage(), e);
        }
    }

    /**
     * Decodes only the fields of {@code projection} (a record schema with the writer's full name, whose
     * fields are a subset of it, with defaults): Avro skips the rest, which is cheaper than a full decode.
     */
    public org.apache.avro.generic.GenericRecord decodeProjected(byte[] bytes, Schema projection) {
        Schema writer = writerSchema(bytes);
        if (!writer.getFullName().equals(projection.getFullName()))
            throw new MalformedRecordException("expected a " + projection.getFullName() + ", found a " + writer.getFullName());
        BinaryMessageDecoder<org.apache.avro.generic.GenericRecord> dec = projections.computeIfAbsent(projection,
                p -> new BinaryMessageDecoder<>(org.apache.avro.generic.GenericData.get(), p, catalog));
        try {
            return dec.decode(bytes);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new MalformedRecordException("bad " + projection.getFullName() + " body: " + e.getMessage(), e);
        }
    }

    /** The record type (full name) the bytes were written as. */
    public String typeOf(byte[] bytes) { return writerSchema(bytes).getFullName(); }

    /** The writer's schema fingerprint, after checking the header. */
    public static long fingerprint(byte[] bytes) {
        if (bytes == null) throw new MalformedRecordException("no value (null record)");
        if (bytes.length < HEADER || (bytes[0] & 0xff) != 0xC3 || bytes[1] != 0x01)
            throw new MalformedRecordException("not Avro single-object encoding (" + (bytes.length < 2 ? bytes.length + " bytes"
                    : String.format("header %02X %02X, expected C3 01", bytes[0] & 0xff, bytes[1] & 0xff)) + ")");
        return ByteBuffer.wrap(bytes, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private Schema writerSchema(byte[] bytes) {
        long fp = fingerprint(bytes);
        Schema s = catalog.findByFingerprint(fp);
        if (s == null) throw new MalformedRecordException(String.format("unknown writer schema (fingerprint %016x): not in this build nor in the catalog", fp));
        return s;
    }
}
