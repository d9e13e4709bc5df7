package org.cobraverify.schemas.kafka;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach one Kafka cluster: its bootstrap servers and the client settings every producer, consumer,
 * admin and Streams client of this process gets (security.protocol, sasl.*, ssl.*, timeouts: any client
 * setting), read from a standard Kafka client properties file.
 *
 * <p>Invariant: {@link #properties()} always holds {@code bootstrap.servers} equal to {@link #bootstrap()}. Every
 * client starts from that copy and then puts the settings the pipeline depends on (isolation level, transactional
 * id, idempotence, acks, its serializers, Streams' processing guarantee), so those cannot be overridden by the file;
 * everything else the file sets reaches the client as written.
 *
 * <p>Secrets stay in the file, or in the environment through Kafka's own config providers
 * ({@code config.providers=env} with {@code EnvVarConfigProvider}, then {@code ${env:NAME}} in a value): the
 * clients resolve them, never this class. {@link #toString()} names settings, never the values of secret ones.
 */
public final class KafkaConnection {
    private final String bootstrap;
    private final Properties settings;
    private final String source;

    private KafkaConnection(String bootstrap, Properties settings, String source) {
        if (bootstrap == null || bootstrap.isBlank()) throw new BadSettings("no Kafka bootstrap servers: give --bootstrap, or bootstrap.servers in --kafka-config");
        this.bootstrap = bootstrap.trim();
        this.settings = settings;
        this.source = source;
    }

    /** Client settings that cannot be used (a file that cannot be read, servers given twice and differently, none at all). */
    public static final class BadSettings extends IllegalArgumentException {
        public BadSettings(String message) { super(message); }
    }

    /** Plain settings: only the bootstrap servers (PLAINTEXT, no authentication). */
    public static KafkaConnection plain(String bootstrap) { return new KafkaConnection(bootstrap, new Properties(), null); }

    /**
     * The bootstrap servers and the client settings in {@code configFile} (null: none). {@code bootstrap} null takes
     * the file's {@code bootstrap.servers}; both given and different is an error, since one of them would be ignored.
     *
     * @throws BadSettings naming the file, when it cannot be read or the two disagree
     */
    public static KafkaConnection of(String bootstrap, Path configFile) {
        if (configFile == null) return plain(bootstrap);
        Properties p = readProperties(configFile, "Kafka client settings");
        String inFile = p.getProperty("bootstrap.servers");
        p.remove("bootstrap.servers");
        if (bootstrap != null && inFile != null && !inFile.trim().equals(bootstrap.trim()))
            throw new BadSettings("Kafka client settings " + configFile + ": bootstrap.servers=" + inFile.trim()
                    + " disagrees with --bootstrap " + bootstrap.trim() + " (give one of them)");
        return new KafkaConnection(bootstrap != null ? bootstrap : inFile, p, configFile.toString());
    }

    /**
     * A properties file ({@code what} names it in messages: "Kafka client settings", "broker settings", "SCRAM users").
     *
     * @throws BadSettings naming the file, when it is missing or cannot be read
     */
    public static Properties readProperties(Path file, String what) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new BadSettings(what + " " + file + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw new BadSettings(what + " " + file + ": cannot read: " + e.getMessage());
        }
        return p;
    }

    /** The bootstrap servers, as given. */
    public String bootstrap() { return bootstrap; }

    /**
     * A fresh copy of the client settings with {@code bootstrap.servers}: the start of every client's configuration. The
     * schema registry's settings ({@link #REGISTRY_SETTINGS}) are not Kafka's and are left out ({@link #registrySettings}).
     */
    public Properties properties() {
        Properties p = new Properties();
        p.putAll(settings);
        for (String k : REGISTRY_SETTINGS) p.remove(k);
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    /**
     * Settings of a schema registry, read from the same file as Kafka's (as Confluent's clients read them): its URL, the
     * credentials ({@code basic.auth.user.info}), the subject naming, retry and request timeouts.
     */
    public static final java.util.Set<String> REGISTRY_SETTINGS = java.util.Set.of("schema.registry.url", "basic.auth.user.info",
            "basic.auth.credentials.source", "value.subject.name.strategy", "schema.registry.retry.ms", "schema.registry.request.timeout.ms");

    /** The schema registry's settings ({@link #REGISTRY_SETTINGS} present here); empty when none is configured. */
    public Properties registrySettings() {
        Properties p = new Properties();
        for (String k : REGISTRY_SETTINGS) if (settings.getProperty(k) != null) p.put(k, settings.getProperty(k));
        return p;
    }

    /** The schema registry's URL ({@code schema.registry.url}), or null: then topics use the embedded catalog. */
    public String registryUrl() {
        String u = settings.getProperty("schema.registry.url");
        return u == null || u.isBlank() ? null : u.trim();
    }

    /** The value of one client setting from the file (null when absent); {@code bootstrap.servers} included. */
    public String setting(String name) { return "bootstrap.servers".equals(name) ? bootstrap : settings.getProperty(name); }

    /** The connection with {@code name=value} added (tests, and commands that derive one client from another). */
    public KafkaConnection with(String name, String value) {
        Properties p = new Properties();
        p.putAll(settings);
        p.put(name, value);
        return new KafkaConnection(bootstrap, p, source);
    }

    /** The connection with every one of {@code more} added (later settings win). */
    public KafkaConnection with(Properties more) {
        Properties p = new Properties();
        p.putAll(settings);
        p.putAll(more);
        p.remove("bootstrap.servers");
        return new KafkaConnection(bootstrap, p, source);
    }

    /**
     * The principal these settings present, for messages: {@code User:<name>} from the SASL JAAS configuration's
     * username, the keystore's certificate with SSL, {@code ANONYMOUS} on plain connections. Never a secret.
     */
    public String principal() {
        String protocol = settings.getProperty("security.protocol", "PLAINTEXT").toUpperCase(Locale.ROOT);
        if (protocol.startsWith("SASL")) {
            Matcher m = USERNAME.matcher(settings.getProperty("sasl.jaas.config", ""));
            return m.find() ? "User:" + m.group(1) : "the SASL user of " + (source == null ? "the client settings" : source);
        }
        if (protocol.equals("SSL")) return "the certificate in " + settings.getProperty("ssl.keystore.location", "the client's keystore");
        return "User:ANONYMOUS (" + protocol + ", no authentication)";
    }

    private static final Pattern USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

    /** Whether a setting's value must never be printed: passwords, keys, JAAS configurations, tokens, secrets. */
    public static boolean secret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.contains("password") || n.contains("jaas") || n.contains("secret") || n.contains("token")
                || n.endsWith(".key") || n.contains("keystore.key") || n.contains("credentials") || n.contains("private");
    }

    /** The bootstrap servers, the security protocol and SASL mechanism, and the names (only) of the other settings. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(bootstrap);
        if (settings.isEmpty()) return b.toString();
        b.append(" (").append(settings.getProperty("security.protocol", "PLAINTEXT"));
        String mech = settings.getProperty("sasl.mechanism");
        if (mech != null && !secret("sasl.mechanism")) b.append(", ").append(mech);
        Set<String> names = new TreeSet<>(settings.stringPropertyNames());
        names.remove("security.protocol");
        names.remove("sasl.mechanism");
        if (!names.isEmpty()) b.append("; also ").append(String.join(", ", names));
        if (source != null) b.append("; from ").append(source);
        return b.append(')').toString();
    }
}
