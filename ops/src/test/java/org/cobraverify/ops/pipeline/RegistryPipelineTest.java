package org.cobraverify.ops.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.cobraverify.cli.VerifyCommandTest;
import org.cobraverify.ops.RegistryServer;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.registry.SchemaRegistryClient;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.RegistryFraming;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.TopicRecords;
import org.cobraverify.schemas.serde.WireFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline with a real schema registry (Apicurio Registry, started once for the class by ops/registry.sh; the class
 * is skipped, saying why, where none can be started): the Confluent wire format on every topic, read back by a consumer
 * that knows nothing of this project; an incompatible schema refused, and said so; a registry down at start, and one
 * that goes away while running.
 */
class RegistryPipelineTest {
    static RegistryServer registry;

    @BeforeAll
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    static void startRegistry() throws Exception { registry = RegistryServer.start(); }

    @AfterAll
    static void stopRegistry() throws Exception { if (registry != null) registry.close(); }

    @TempDir
    Path dir;

    static Verdict verdict(long round) {
        return Verdict.newBuilder().setRound(round).setOutcome(Outcome.ACCEPT).setReason("test").setRoundTxns(10).setCheckedTxns(100)
                .setPendingTxns(0).setFirstEpoch(0).setLastEpoch(1).setConstraints(0).setConstraintsAfterPruning(0).setBuildMs(0)
                .setConstructMs(0).setPruneMs(0).setSolveMs(0).setTotalMs(1).setVerifiedAt(10_000).setRoundLatestEnd(7_500_000_000L)
                .setRetainedTxns(0).setCollectedTxns(0).setVerifierRestarts(0).build();
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void thePipelineRunsThroughTheRegistryAndAPlainConsumerReadsItsVerdicts() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0, dir.resolve("kafka"))) {
            VerifyCommandTest.Run run = VerifyCommandTest.cobra("demo", "--bootstrap", kafka.bootstrapServers(), "--schema-registry", registry.url(),
                    "--txns", "3000", "--quiet");
            assertEquals(0, run.exit(), run.err());
            assertTrue(run.err().contains("Confluent wire format"), run.err());

            // a subject for every record type of every topic the pipeline writes, and each topic's records in the wire format
            List<String> subjects = new SchemaRegistryClient(registry.url(), new Properties()).subjects();
            for (String topic : TopicRecords.PIPELINE.keySet()) {
                assertTrue(subjects.stream().anyMatch(s -> s.startsWith(topic + "-")), "a subject for " + topic + " in " + subjects);
                if (topic.equals("cobra.dead-letters")) continue; // nothing went wrong: no dead letters
                List<ConsumerRecord<String, byte[]>> records = Topic.readAll(kafka.bootstrapServers(), topic);
                // frontier logs only once a frontier writer was collected as data, which a short run may not reach
                if (!topic.equals("cobra.frontier-logs")) assertFalse(records.isEmpty(), topic + " has records");
                for (ConsumerRecord<String, byte[]> r : records)
                    if (r.value() != null) assertEquals(0, r.value()[0], topic + "@" + r.offset() + " starts with the magic byte 0");
            }
            assertTrue(subjects.contains("cobra.verdicts-value"), "one record type: the topic's own subject, " + subjects);

            // a registry-aware consumer that knows nothing of this project: the wire format, the schema by id, generic Avro
            String first = readOneVerdictGenerically(kafka.bootstrapServers(), registry.url());
            System.out.println("a plain consumer read: " + first);
            assertTrue(first.matches("round \\d+: ACCEPT .*"), first);
        }
    }

    /** Reads the first record of cobra.verdicts as any Confluent-format consumer would, and says what it holds. */
    static String readOneVerdictGenerically(String bootstrap, String registryUrl) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("isolation.level", "read_committed");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition("cobra.verdicts", 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline)
                for (var r : c.poll(Duration.ofMillis(500))) {
                    byte[] v = r.value();
                    assertEquals(0, v[0], "magic byte");
                    int id = ByteBuffer.wrap(v, 1, 4).getInt();
                    HttpResponse<String> s = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registryUrl + "/schemas/ids/" + id)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, s.statusCode(), s.body());
                    Schema schema = new Schema.Parser().parse(new ObjectMapper().readTree(s.body()).path("schema").asText());
                    GenericRecord g = new GenericDatumReader<GenericRecord>(schema).read(null, DecoderFactory.get().binaryDecoder(v, 5, v.length - 5, null));
                    return "round " + g.get("round") + ": " + g.get("outcome") + " (" + g.get("reason") + ")";
                }
        }
        fail("no verdict on cobra.verdicts");
        return null;
    }

    @Test
    void anIncompatibleSchemaIsRefusedByTheRegistryAndTheProducerSaysSo() throws Exception {
        String topic = "refusing-" + System.nanoTime();
        SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), new Properties());
        // someone registered a Verdict whose round is a string: this build's (a long) cannot read its records
        Schema theirs = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Verdict\",\"namespace\":\"org.cobraverify.schemas\","
                + "\"fields\":[{\"name\":\"round\",\"type\":\"string\"}]}");
        client.register(SchemaRegistryClient.subject(topic), theirs);
        Properties s = new Properties();
        s.put("schema.registry.url", registry.url());
        WireFormat wire = new WireFormat(new SchemaCatalog(), RegistryFraming.of(s));
        SchemaRegistryClient.RegistryException e = assertThrows(SchemaRegistryClient.RegistryException.class, () -> wire.encode(topic, verdict(1)));
        assertEquals(409, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("under subject " + topic + "-value") && e.getMessage().contains("incompatible"), e.getMessage());
        assertEquals(e.getMessage(), KafkaRefusal.explain(new IllegalStateException("wrapped", e), null), "a command says it in one sentence, exit 2");
        // BACKWARD, set by the producer on the subject, is what refused it
        assertTrue(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registry.url() + "/config/" + topic + "-value")).build(),
                HttpResponse.BodyHandlers.ofString()).body().contains("BACKWARD"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRegistryDownAtStartIsAClearErrorAndExit2() throws Exception {
        int closed;
        try (var s = new java.net.ServerSocket(0)) { closed = s.getLocalPort(); }
        VerifyCommandTest.Run run = VerifyCommandTest.cobra("demo", "--txns", "200", "--quiet", "--schema-registry", "http://127.0.0.1:" + closed + "/apis/ccompat/v7");
        assertEquals(2, run.exit(), run.err());
        assertTrue(run.err().contains("cannot be reached"), run.err());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.err());
        // and credentials never go on the command line
        VerifyCommandTest.Run withCredentials = VerifyCommandTest.cobra("demo", "--txns", "200", "--schema-registry", "http://user:pw@127.0.0.1:" + closed);
        assertEquals(2, withCredentials.exit());
        assertTrue(withCredentials.err().contains("basic.auth.user.info"), withCredentials.err());
        assertFalse(withCredentials.err().contains("pw"), "the password is not repeated: " + withCredentials.err());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRegistryThatGoesAwayWhileRunningLosesNoRecord() throws Exception {
        String topic = "away-" + System.nanoTime();
        Properties s = new Properties();
        s.put("schema.registry.url", registry.url());
        s.put("schema.registry.request.timeout.ms", "1000");
        s.put("schema.registry.retry.ms", "30000");
        WireFormat producer = new WireFormat(new SchemaCatalog(), RegistryFraming.of(s));
        List<byte[]> sent = new ArrayList<>();
        sent.add(producer.encode(topic, verdict(1)));
        registry.pause();
        try {
            // the producer's schema id is cached: it goes on writing, and reading its own, with the registry gone
            for (long r = 2; r <= 5; r++) sent.add(producer.encode(topic, verdict(r)));
            assertEquals(5, producer.decode(sent.get(4), Verdict.class).getRound());
            // a new consumer meets an id it does not know: it retries until the registry is back, and reads the record
            Thread back = new Thread(() -> {
                try {
                    Thread.sleep(2500);
                    registry.resume();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            back.start();
            WireFormat consumer = new WireFormat(new SchemaCatalog(), RegistryFraming.of(s));
            for (int i = 0; i < sent.size(); i++) assertEquals(i + 1, consumer.decode(sent.get(i), Verdict.class).getRound());
            back.join();
            // gone for longer than the consumer waits: it stops with a message, and the record is not taken for malformed
            // (which would dead-letter it): the caller does not consume it, so nothing is lost
            registry.pause();
            Properties shortWait = new Properties();
            shortWait.putAll(s);
            shortWait.put("schema.registry.retry.ms", "2000");
            WireFormat late = new WireFormat(new SchemaCatalog(), RegistryFraming.of(shortWait));
            RuntimeException e = assertThrows(RuntimeException.class, () -> late.decode(sent.get(0), Verdict.class));
            assertInstanceOf(SchemaRegistryClient.RegistryException.class, e, "not a malformed record: " + e);
            assertFalse(e instanceof MalformedRecordException);
            assertTrue(e.getMessage().contains("retried for 2.0 s") && e.getMessage().contains("read the schema with id"), e.getMessage());
        } finally {
            registry.resume();
        }
    }
}
