package org.cobraverify.cli;

import java.nio.file.Path;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaReach;
import picocli.CommandLine.Option;

/**
 * {@code --bootstrap} and {@code --kafka-config}, shared by every command that talks to a Kafka cluster: the
 * settings file is a standard Kafka client properties file (security.protocol, sasl.*, ssl.*, any other client
 * setting) applied to every producer, consumer, admin and Streams client the command makes. Secrets go in that
 * file or in the environment (Kafka's {@code config.providers=env}), never on the command line.
 */
final class KafkaOptions {
    @Option(names = "--bootstrap", paramLabel = "SERVERS", description = "Kafka bootstrap servers (or bootstrap.servers in --kafka-config).")
    String bootstrap;

    @Option(names = "--kafka-config", paramLabel = "FILE", description = {"Kafka client settings for every client of this command:",
            "security.protocol, sasl.*, ssl.*, any client setting (a standard client .properties file).",
            "Secrets belong there, or in the environment with config.providers=env and $${env:NAME}."})
    Path config;

    @Option(names = "--schema-registry", paramLabel = "URL", description = {"A schema registry speaking the Confluent REST API (Confluent, Apicurio's",
            "/apis/ccompat/v7, Karapace, Redpanda): topics then carry the Confluent wire format, schemas",
            "registered under <topic>-value (or schema.registry.url in --kafka-config; its credentials:",
            "basic.auth.user.info there). Without it, the embedded schema catalog."})
    String schemaRegistry;

    /** The cluster to use; throws {@link IllegalArgumentException} with a message for the user when it cannot be had. */
    KafkaConnection connection() { return withRegistry(KafkaConnection.of(bootstrap, config)); }

    /** {@link #connection()}, once it has answered ({@link KafkaReach}): a wrong address is said within seconds, with exit 2. */
    KafkaConnection reachableConnection() {
        KafkaConnection k = connection();
        KafkaReach.require(k, KafkaReach.DEFAULT_WAIT);
        return k;
    }

    /**
     * {@code kafka} with {@code --schema-registry} applied (a command on an embedded broker: its own connection). Refuses
     * a URL with credentials in it (they belong in the settings file) and one that disagrees with the file's.
     */
    KafkaConnection withRegistry(KafkaConnection kafka) { return withRegistry(kafka, schemaRegistry); }

    /** {@code kafka} with the schema registry at {@code schemaRegistry} (null: as it is), checked as above. */
    static KafkaConnection withRegistry(KafkaConnection kafka, String schemaRegistry) {
        if (schemaRegistry == null) return kafka;
        java.net.URI u;
        try {
            u = java.net.URI.create(schemaRegistry.trim());
        } catch (IllegalArgumentException e) {
            throw new KafkaConnection.BadSettings("--schema-registry " + schemaRegistry + ": not a URL");
        }
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https")) || u.getHost() == null)
            throw new KafkaConnection.BadSettings("--schema-registry takes an http or https URL, such as http://127.0.0.1:8081");
        if (u.getUserInfo() != null)
            throw new KafkaConnection.BadSettings("--schema-registry: credentials do not go on the command line; put basic.auth.user.info=USER:PASSWORD"
                    + " in the --kafka-config file");
        String inFile = kafka.registryUrl();
        if (inFile != null && !inFile.equals(schemaRegistry.trim()))
            throw new KafkaConnection.BadSettings("--schema-registry " + schemaRegistry.trim() + " disagrees with schema.registry.url=" + inFile
                    + " in the Kafka client settings (give one of them)");
        return kafka.with("schema.registry.url", schemaRegistry.trim());
    }
}
