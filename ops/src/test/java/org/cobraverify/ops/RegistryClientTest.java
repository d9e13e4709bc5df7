package org.cobraverify.ops;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.registry.SchemaRegistryClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SchemaRegistryClient} against a real registry: Apicurio Registry's server from Maven Central, started once for
 * the class by ops/registry.sh. Skips, saying why, where no Java 21+ or no server can be had.
 */
class RegistryClientTest {
    static RegistryServer server;
    static String url;

    @BeforeAll
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    static void startRegistry() throws Exception {
        server = RegistryServer.start();
        url = server.url();
    }

    @AfterAll
    static void stopRegistry() throws Exception {
        if (server != null) server.close();
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
        int port = RegistryServer.freePort();
        SchemaRegistryClient c = new SchemaRegistryClient("http://127.0.0.1:" + port + "/apis/ccompat/v7", new Properties());
        SchemaRegistryClient.RegistryException e = assertThrows(SchemaRegistryClient.RegistryException.class, () -> c.byId(1));
        assertEquals(0, e.status());
        assertTrue(e.getMessage().contains("127.0.0.1:" + port) && e.getMessage().contains("cannot be reached"), e.getMessage());
    }
}
