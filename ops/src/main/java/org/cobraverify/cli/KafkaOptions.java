package org.cobraverify.cli;

import java.nio.file.Path;
import org.cobraverify.schemas.kafka.KafkaConnection;
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
            "Secrets belong there, or in the environment with config.providers=env and ${env:NAME}."})
    Path config;

    /** The cluster to use; throws {@link IllegalArgumentException} with a message for the user when it cannot be had. */
    KafkaConnection connection() { return KafkaConnection.of(bootstrap, config); }
}
