package org.cobraverify.schemas.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * The wire format of every topic, one of two framings of the Avro binary body:
 * <ul>
 *   <li>the embedded default, Avro single-object encoding: the two bytes {@code C3 01}, the writer schema's 8-byte
 *   little-endian CRC-64-AVRO fingerprint, then the body; a reader resolves the writer schema through a
 *   {@link SchemaCatalog} (this build's schemas, bundled previous versions, and the catalog topic when connected);</li>
 *   <li>with a schema registry ({@link RegistryFraming}), the Confluent wire format: the byte {@code 00}, the schema's
 *   4-byte big-endian registry id, then the body; the writer schema is the registry's.</li>
 * </ul>
 * A reader reads both (the first byte tells them apart), into its own version of the record. {@link #encode(String,
 * SpecificRecord)} writes a topic's record in the configured framing; {@link #encode(SpecificRecord)} always writes
 * single-object encoding (files, stores that are not topics).
 *
 * <p>The bytes are Avro's {@code BinaryMessageEncoder}'s, but read and written here with Avro's buffered array
 * decoder and encoder (readers and writers cached per schema pair and shared, as Avro's message classes share
 * theirs; decoders and encoders reused per thread): the message classes go through a stream a byte at a time
 * (a synchronized {@code ByteArrayInputStream.read} per byte), a tenth of the topology's time in a profile.
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
    /** A record type's writer and its header (the magic bytes and the schema's fingerprint). */
    private record Writer(DatumWriter<Object> datumWriter, byte[] header) {}

    private final Map<Class<?>, Writer> writers = new ConcurrentHashMap<>();
    /** Readers by (writer fingerprint, reader schema). */
    private final Map<ReaderKey, DatumReader<?>> readers = new ConcurrentHashMap<>();
    private static final ThreadLocal<BinaryDecoder> DECODER = new ThreadLocal<>();
    private static final ThreadLocal<BinaryEncoder> ENCODER = new ThreadLocal<>();
    private static final ThreadLocal<ByteArrayOutputStream> BUFFER = ThreadLocal.withInitial(() -> new ByteArrayOutputStream(512));

    private record ReaderKey(long fingerprint, Schema reader) {}

    /** The registry framing of topics' records, or null for single-object encoding. */
    private final RegistryFraming registry;
    /** Writer fingerprints by registry id. */
    private final Map<Integer, Long> fingerprintById = new ConcurrentHashMap<>();
    /** Registry headers (00 and the id) by topic and record type (two lookups per record, nothing built). */
    private final Map<String, Map<Class<?>, byte[]>> registryHeaders = new ConcurrentHashMap<>();

    public WireFormat(SchemaCatalog catalog) { this(catalog, null); }

    /** {@code registry}: topics' records in the Confluent wire format through it; null for single-object encoding. */
    public WireFormat(SchemaCatalog catalog, RegistryFraming registry) {
        this.catalog = catalog;
        this.registry = registry;
    }

    /** The registry framing in use, or null. */
    public RegistryFraming registry() { return registry; }

    /** A wire format that knows only this build's schemas and the bundled previous versions. */
    public static WireFormat standalone() { return new WireFormat(new SchemaCatalog()); }

    public SchemaCatalog catalog() { return catalog; }

    /**
     * {@code record} as a record of {@code topic}: in the Confluent wire format when a registry is configured (its schema
     * registered under the topic's subject on first use, then cached: no registry call per record), else as
     * {@link #encode(SpecificRecord)}. Throws {@link org.cobraverify.schemas.registry.SchemaRegistryClient.RegistryException} when the registry refuses the schema
     * or cannot be reached for a first use.
     */
    public <T extends SpecificRecord> byte[] encode(String topic, T record) {
        if (registry == null) return encode(record);
        byte[] header = registryHeaders.computeIfAbsent(topic, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(record.getClass(), c -> RegistryFraming.header(registry.idFor(topic, record.getSchema())));
        return encode(record, header);
    }

    /** {@code record} in Avro single-object encoding. */
    public <T extends SpecificRecord> byte[] encode(T record) { return encode(record, null); }

    private <T extends SpecificRecord> byte[] encode(T record, byte[] registryHeader) {
        Writer w = writers.computeIfAbsent(record.getClass(), c -> {
            Schema schema = record.getSchema();
            byte[] header = new byte[HEADER];
            header[0] = (byte) 0xC3;
            header[1] = 0x01;
            ByteBuffer.wrap(header, 2, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(SchemaCatalog.fingerprint(schema));
            @SuppressWarnings("unchecked")
            DatumWriter<Object> dw = (DatumWriter<Object>) (DatumWriter<?>) new SpecificDatumWriter<>(schema, MODEL);
            return new Writer(dw, header);
        });
        ByteArrayOutputStream out = BUFFER.get();
        out.reset();
        try {
            out.write(registryHeader != null ? registryHeader : w.header());
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, ENCODER.get());
            ENCODER.set(enc);
            w.datumWriter().write(record, enc);
            enc.flush();
        } catch (IOException | RuntimeException e) {
            ENCODER.remove(); // a failed encoder may hold part of the record
            throw new IllegalStateException("cannot encode " + record.getSchema().getFullName() + ": " + e.getMessage(), e);
        }
        byte[] bytes = out.toByteArray();
        if (out.size() > 1 << 20) BUFFER.remove(); // do not keep a large buffer per thread
        return bytes;
    }

    /**
     * Decodes into {@code type}. Throws {@link MalformedRecordException} (saying why) when the bytes are not
     * single-object encoded, the writer schema is unknown, it is another record type, or the body is bad.
     */
    @SuppressWarnings("unchecked")
    public <T extends SpecificRecord> T decode(byte[] bytes, Class<T> type) {
        long fp = writerFingerprint(bytes);
        Schema writer = writerSchema(fp);
        Schema reader = MODEL.getSchema(type);
        if (!writer.getFullName().equals(reader.getFullName()))
            throw new MalformedRecordException("expected a " + reader.getFullName() + ", found a " + writer.getFullName());
        DatumReader<T> r = (DatumReader<T>) readers.computeIfAbsent(new ReaderKey(fp, reader), k -> new SpecificDatumReader<>(writer, reader, MODEL));
        return read(bytes, r, reader);
    }

    /**
     * Decodes only the fields of {@code projection} (a record schema with the writer's full name, whose
     * fields are a subset of it, with defaults): Avro skips the rest, which is cheaper than a full decode.
     */
    @SuppressWarnings("unchecked")
    public GenericRecord decodeProjected(byte[] bytes, Schema projection) {
        long fp = writerFingerprint(bytes);
        Schema writer = writerSchema(fp);
        if (!writer.getFullName().equals(projection.getFullName()))
            throw new MalformedRecordException("expected a " + projection.getFullName() + ", found a " + writer.getFullName());
        DatumReader<GenericRecord> r = (DatumReader<GenericRecord>) readers.computeIfAbsent(new ReaderKey(fp, projection),
                k -> new GenericDatumReader<GenericRecord>(writer, projection, GenericData.get()));
        return read(bytes, r, projection);
    }

    private static <T> T read(byte[] bytes, DatumReader<T> r, Schema reader) {
        int header = headerLength(bytes);
        BinaryDecoder dec = DecoderFactory.get().binaryDecoder(bytes, header, bytes.length - header, DECODER.get());
        DECODER.set(dec);
        try {
            return r.read(null, dec);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new MalformedRecordException("bad " + reader.getFullName() + " body: " + e.getMessage(), e);
        }
    }

    /** The record type (full name) the bytes were written as. */
    public String typeOf(byte[] bytes) { return writerSchema(writerFingerprint(bytes)).getFullName(); }

    /** The length of the framing before the Avro body: 10 (single-object encoding) or 5 (Confluent wire format). */
    public static int headerLength(byte[] bytes) {
        return bytes != null && bytes.length >= RegistryFraming.HEADER && bytes[0] == RegistryFraming.MAGIC ? RegistryFraming.HEADER : HEADER;
    }

    /**
     * The writer schema's fingerprint, in either framing: read from a single-object header, or that of the schema the
     * registry id names (asked of the registry once per id). Throws {@link MalformedRecordException} when the bytes are in
     * neither framing, or carry a registry id and this reader has no registry.
     */
    public long writerFingerprint(byte[] bytes) {
        if (bytes != null && bytes.length > 0 && bytes[0] == RegistryFraming.MAGIC) {
            if (bytes.length < RegistryFraming.HEADER) throw new MalformedRecordException("a Confluent wire-format record of " + bytes.length + " bytes (no schema id)");
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            if (registry == null)
                throw new MalformedRecordException("written in the Confluent wire format (schema registry id " + id + "), but this reader has no"
                        + " schema registry: start it with --schema-registry");
            Long known = fingerprintById.get(id);
            if (known != null) return known;
            Schema s = registry.schemaOf(id);
            long fp = SchemaCatalog.fingerprint(s);
            catalog.add(s);
            fingerprintById.put(id, fp);
            return fp;
        }
        return fingerprint(bytes);
    }

    /** The writer's schema fingerprint, after checking the header. */
    public static long fingerprint(byte[] bytes) {
        if (bytes == null) throw new MalformedRecordException("no value (null record)");
        if (bytes.length < HEADER || (bytes[0] & 0xff) != 0xC3 || bytes[1] != 0x01)
            throw new MalformedRecordException("not Avro single-object encoding (" + (bytes.length < 2 ? bytes.length + " bytes"
                    : String.format("header %02X %02X, expected C3 01", bytes[0] & 0xff, bytes[1] & 0xff)) + ")");
        return ByteBuffer.wrap(bytes, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private Schema writerSchema(long fp) {
        Schema s = catalog.findByFingerprint(fp);
        if (s == null) throw new MalformedRecordException(String.format("unknown writer schema (fingerprint %016x): not in this build nor in the catalog", fp));
        return s;
    }
}
