package org.cobraverify.schemas.serde;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.cobraverify.schemas.registry.SchemaRegistryClient;
import org.cobraverify.schemas.registry.SchemaRegistryClient.RegistryException;

/**
 * Topics' records in the Confluent wire format ({@code 00}, a 4-byte big-endian schema id, the Avro body), with
 * schemas kept by a schema registry that speaks the Confluent REST API. It decides each record's subject
 * ({@link Naming}), prepares a subject once (compatibility {@code BACKWARD}, then this build's bundled previous versions
 * of the record as its earlier versions, so that the registry itself checks each evolution step), and turns a schema
 * into its id and back, asking the registry once per schema: {@link WireFormat} caches the header per topic and type.
 *
 * <p>Failures: a refusal (an incompatible schema: HTTP 409; bad credentials) is a {@link RegistryException} at once; an
 * unreachable registry is retried with backoff for {@code schema.registry.retry.ms} (default 60 s), then a
 * {@link RegistryException} too. Neither is a malformed record: the caller stops, the record it was reading or writing is
 * not consumed, and nothing is lost. Settings ({@link org.cobraverify.schemas.kafka.KafkaConnection#REGISTRY_SETTINGS}) come from the client settings file; credentials
 * ({@code basic.auth.user.info}) never from a command line, and are never printed.
 */
public final class RegistryFraming {
    /** The first byte of a Confluent wire-format record, and the length of its header. */
    public static final byte MAGIC = 0;
    public static final int HEADER = 5;


    /**
     * How a record's subject is named, as Confluent's strategies: {@code TOPIC} {@code <topic>-value} (on a topic that
     * carries several record types, {@link TopicRecords#mixed}, {@code <topic>-<record full name>}: one subject holds the
     * versions of one type, which is what compatibility checks compare); {@code RECORD} {@code <record full name>};
     * {@code TOPIC_RECORD} {@code <topic>-<record full name>}.
     */
    public enum Naming {
        TOPIC, RECORD, TOPIC_RECORD;

        /** From a setting: {@code topic}, {@code record}, {@code topic-record}, or Confluent's class names of the three. */
        public static Naming parse(String s) {
            if (s == null || s.isBlank()) return TOPIC;
            String n = s.trim();
            int dot = n.lastIndexOf('.');
            if (dot >= 0) n = n.substring(dot + 1);
            n = n.toLowerCase(Locale.ROOT).replace("namestrategy", "").replace("_", "-");
            return switch (n) {
                case "topic" -> TOPIC;
                case "record" -> RECORD;
                case "topic-record", "topicrecord" -> TOPIC_RECORD;
                default -> throw new IllegalArgumentException("value.subject.name.strategy=" + s + ": expected topic, record or topic-record"
                        + " (or Confluent's TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy)");
            };
        }
    }

    /** At start ({@link #registerAll}) an unreachable registry is retried this long at most: it is most likely a wrong URL. */
    static final long START_RETRY_MILLIS = 5_000;

    private final SchemaRegistryClient client;
    private final String url;
    private final Naming naming;
    private final long retryMillis;
    private final Map<String, Boolean> prepared = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

    /** From client settings holding {@code schema.registry.url}; null when they hold none. */
    public static RegistryFraming of(Properties settings) {
        String url = settings.getProperty("schema.registry.url");
        if (url == null || url.isBlank()) return null;
        return new RegistryFraming(url.trim(), settings);
    }

    public RegistryFraming(String url, Properties settings) {
        this.url = url;
        this.client = new SchemaRegistryClient(url, settings);
        this.naming = Naming.parse(settings.getProperty("value.subject.name.strategy"));
        this.retryMillis = Long.parseLong(settings.getProperty("schema.registry.retry.ms", "60000").trim());
    }

    /** The registry's URL (no credentials are ever in it: they come from {@code basic.auth.user.info}). */
    public String url() { return url; }

    public Naming naming() { return naming; }

    /** The subject of {@code schema}'s records on {@code topic}. */
    public String subject(String topic, Schema schema) {
        return switch (naming) {
            case TOPIC -> TopicRecords.mixed(topic) ? topic + "-" + schema.getFullName() : SchemaRegistryClient.subject(topic);
            case RECORD -> schema.getFullName();
            case TOPIC_RECORD -> topic + "-" + schema.getFullName();
        };
    }

    /** The 5-byte header of a record with schema id {@code id}. */
    public static byte[] header(int id) {
        byte[] h = new byte[HEADER];
        h[0] = MAGIC;
        ByteBuffer.wrap(h, 1, 4).putInt(id);
        return h;
    }

    /**
     * The id of {@code schema} under its subject for {@code topic}, registering it (and, the first time the subject is
     * met, setting it to BACKWARD and registering the bundled previous versions of the record before it).
     *
     * @throws RegistryException when the registry refuses (an incompatible schema, naming the subject) or stays unreachable
     */
    public int idFor(String topic, Schema schema) { return idFor(topic, schema, retryMillis); }

    private int idFor(String topic, Schema schema, long retry) {
        String subject = subject(topic, schema);
        prepare(subject, schema, retry);
        int id = call(() -> client.register(subject, schema), "register " + schema.getFullName() + " under subject " + subject, retry);
        byId.putIfAbsent(id, schema);
        return id;
    }

    /** The schema with registry id {@code id}. @throws RegistryException when the registry refuses or stays unreachable */
    public Schema schemaOf(int id) {
        Schema s = byId.get(id);
        if (s != null) return s;
        s = call(() -> client.byId(id), "read the schema with id " + id, retryMillis);
        byId.putIfAbsent(id, s);
        return s;
    }

    /**
     * Registers every record type of every topic in {@code topics} (at start: a registry that is down or refuses is
     * found before any record is read or written). Returns the subjects, in order.
     */
    public List<String> registerAll(Map<String, List<Schema>> topics) {
        List<String> subjects = new ArrayList<>();
        for (Map.Entry<String, List<Schema>> e : topics.entrySet())
            for (Schema s : e.getValue()) {
                idFor(e.getKey(), s, Math.min(retryMillis, START_RETRY_MILLIS));
                subjects.add(subject(e.getKey(), s));
            }
        return subjects;
    }

    /** Once per subject: BACKWARD, then the bundled previous versions of the record, oldest first, when the subject is new. */
    private void prepare(String subject, Schema current, long retry) {
        if (prepared.containsKey(subject)) return;
        synchronized (this) {
            if (prepared.containsKey(subject)) return;
            boolean fresh = call(() -> client.versions(subject).isEmpty(), "list the versions of subject " + subject, retry);
            call(() -> { client.compatibility(subject, "BACKWARD"); return null; }, "set subject " + subject + " to BACKWARD compatibility", retry);
            if (fresh)
                for (Schema p : SchemaCatalog.bundledPrevious())
                    if (p.getFullName().equals(current.getFullName()))
                        call(() -> client.register(subject, p), "register the earlier version " + SchemaCatalog.fingerprint(p) + " of "
                                + p.getFullName() + " under subject " + subject, retry);
            prepared.put(subject, true);
        }
    }

    private interface Call<T> {
        T run();
    }

    /** Runs {@code c}, retrying while the registry cannot be reached, for at most {@code retry} ms. */
    private <T> T call(Call<T> c, String what, long retry) {
        long deadline = System.nanoTime() + retry * 1_000_000L;
        long pause = 200;
        while (true) {
            try {
                return c.run();
            } catch (RegistryException e) {
                if (e.status() != 0 || System.nanoTime() > deadline)
                    throw e.status() != 0 ? e : new RegistryException(0, e.getMessage() + " (retried for " + retry / 1000.0 + " s)", e);
                try {
                    Thread.sleep(Math.min(pause, Math.max(1, (deadline - System.nanoTime()) / 1_000_000L)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new RegistryException(0, "interrupted while trying to " + what, ie);
                }
                pause = Math.min(pause * 2, 5_000);
            }
        }
    }
}
