package org.cobraverify.schemas.kafka;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaConnectionTest {
    @TempDir
    Path dir;

    static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"verifier\" password=\"hunter2-secret\";";

    Path file(String text) throws Exception {
        Path f = dir.resolve("client.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void everyClientGetsTheFilesSettingsAndTheBootstrapServers() throws Exception {
        KafkaConnection k = KafkaConnection.of("b1:9092", file("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=" + JAAS
                + "\nrequest.timeout.ms=7000\n"));
        var p = k.properties();
        assertEquals("b1:9092", p.getProperty("bootstrap.servers"));
        assertEquals("SASL_SSL", p.getProperty("security.protocol"));
        assertEquals("7000", p.getProperty("request.timeout.ms"));
        p.put("request.timeout.ms", "1");
        assertEquals("7000", k.properties().getProperty("request.timeout.ms"), "each call is a fresh copy");
        assertEquals("User:verifier", k.principal());
    }

    @Test
    void theServersMayComeFromTheFileButNotDisagreeWithTheCommandLine() throws Exception {
        Path f = file("bootstrap.servers=b2:9093\nsecurity.protocol=SSL\n");
        assertEquals("b2:9093", KafkaConnection.of(null, f).bootstrap());
        assertEquals("b2:9093", KafkaConnection.of("b2:9093", f).bootstrap());
        var e = assertThrows(KafkaConnection.BadSettings.class, () -> KafkaConnection.of("b1:9092", f));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("b2:9093") && e.getMessage().contains("b1:9092"), e.getMessage());
        assertThrows(KafkaConnection.BadSettings.class, () -> KafkaConnection.of(null, file("security.protocol=SSL\n")), "no servers at all");
        var missing = assertThrows(KafkaConnection.BadSettings.class, () -> KafkaConnection.of("b1:9092", dir.resolve("nope.properties")));
        assertTrue(missing.getMessage().contains("nope.properties"), missing.getMessage());
    }

    @Test
    void itsDescriptionNamesSettingsButNeverSecretValues() throws Exception {
        KafkaConnection k = KafkaConnection.of("b1:9092", file("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=" + JAAS
                + "\nssl.truststore.password=trust-secret\nssl.key.password=key-secret\n"));
        String s = k.toString();
        assertTrue(s.contains("b1:9092") && s.contains("SASL_SSL") && s.contains("SCRAM-SHA-256") && s.contains("sasl.jaas.config"), s);
        assertFalse(s.contains("hunter2") || s.contains("trust-secret") || s.contains("key-secret"), s);
        assertTrue(KafkaConnection.secret("ssl.keystore.password") && KafkaConnection.secret("sasl.jaas.config") && !KafkaConnection.secret("security.protocol"));
    }

    @Test
    void aSecretComesFromTheEnvironmentThroughKafkasOwnConfigProvider() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("COBRA_TEST_KAFKA_SECRET") != null,
                "COBRA_TEST_KAFKA_SECRET is set by the build's surefire configuration; run through Maven");
        KafkaConnection k = KafkaConnection.of("b1:9092", file("config.providers=env\n"
                + "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider\n"
                + "client.id=${env:COBRA_TEST_KAFKA_SECRET}\n"
                + "key.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n"
                + "value.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n"));
        assertEquals("${env:COBRA_TEST_KAFKA_SECRET}", k.properties().getProperty("client.id"), "the file holds a reference, not the secret");
        assertEquals("from-the-environment", new org.apache.kafka.clients.consumer.ConsumerConfig(k.properties()).getString("client.id"),
                "the client resolves it from the environment");
        assertFalse(k.toString().contains("from-the-environment"));
    }

    @Test
    void plainConnectionsAreAnonymous() {
        assertTrue(KafkaConnection.plain("b:1").principal().startsWith("User:ANONYMOUS"));
        assertEquals("b:1", KafkaConnection.plain("b:1").toString());
    }
}
