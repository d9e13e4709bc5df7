package org.cobraverify.ops;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.registry.SchemaRegistryClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SchemaRegistryClient} against a real registry: Apicurio Registry's server from Maven Central, started once for
 * the class by ops/registry.sh. Skips, saying why, where no Java 21+ or no server can be had.
 */
class RegistryClientTest {
    static String url;
    static Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @BeforeAll
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    static void startRegistry() throws Exception {
        dir = Files.createTempDirectory("cobra-registry-test");
        int port = freePort();
        while (port >= 65535) port = freePort(); // its management port is the next one
        ProcessBuilder pb = new ProcessBuilder("bash", "registry.sh", "start", Integer.toString(port)).directory(Path.of(".").toFile());
        pb.environment().put("COBRA_REGISTRY_DIR", Path.of("target", "registry").toAbsolutePath().toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int rc = p.waitFor();
        Assumptions.assumeTrue(rc == 0, "no schema registry could be started here (ops/registry.sh: " + out + ")");
        // the URL is the script's last word on stdout (Maven's own output, when it fetches, comes on stderr, merged here)
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("http://127\\.0\\.0\\.1:\\d+/apis/ccompat/v7").matcher(out);
        String found = null;
        while (m.find()) found = m.group();
        assertNotNull(found, "ops/registry.sh printed its URL: " + out);
        url = found;
    }

    @AfterAll
    static void stopRegistry() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "registry.sh", "stop").directory(Path.of(".").toFile());
        pb.environment().put("COBRA_REGISTRY_DIR", Path.of("target", "registry").toAbsolutePath().toString());
        pb.start().waitFor(30, TimeUnit.SECONDS);
    }

    @Test
    void aSchemaIsRegisteredOnceReadBackByIdAndAnIncompatibleChangeIsRefused() throws Exception {
        SchemaRegistryClient c = new SchemaRegistryClient(url, new Properties());
        String subject = SchemaRegistryClient.subject("cobra.verdicts-" + System.nanoTime());
        int id = c.register(subject, Verdict.getClassSchema());
        assertTrue(id > 0);
        assertEquals(id, c.register(subject, Verdict.getClassSchema()), "the same schema, the same id");
        assertEquals(id, new SchemaRegistryClient(url, new Properties()).register(subject, Verdict.getClassSchema()), "the registry, not only the cache, says so");
        assertEquals(Verdict.getClassSchema(), new SchemaRegistryClient(url, new Properties()).byId(id), "read back by id");

        String other = SchemaRegistryClient.subject("evolution-" + System.nanoTime());
        c.compatibility(other, "BACKWARD");
        Schema v1 = SchemaBuilder.record("R").namespace("t").fields().requiredInt("a").endRecord();
        Schema withDefault = SchemaBuilder.record("R").namespace("t").fields().requiredInt("a").name("b").type().intType().intDefault(0).endRecord();
        Schema withoutDefault = SchemaBuilder.record("R").namespace("t").fields().requiredInt("a").requiredInt("c").endRecord();
        c.register(other, v1);
        assertTrue(c.register(other, withDefault) > 0, "a field with a default is a backward-compatible change");
        SchemaRegistryClient.RegistryException e = assertThrows(SchemaRegistryClient.RegistryException.class, () -> c.register(other, withoutDefault));
        assertEquals(409, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("incompatible") && e.getMessage().contains(other), e.getMessage());
    }

    @Test
    void aRegistryThatIsNotThereIsAClearError() throws Exception {
        int port = freePort();
        SchemaRegistryClient c = new SchemaRegistryClient("http://127.0.0.1:" + port + "/apis/ccompat/v7", new Properties());
        SchemaRegistryClient.RegistryException e = assertThrows(SchemaRegistryClient.RegistryException.class, () -> c.byId(1));
        assertEquals(0, e.status());
        assertTrue(e.getMessage().contains("127.0.0.1:" + port) && e.getMessage().contains("cannot be reached"), e.getMessage());
    }
}
