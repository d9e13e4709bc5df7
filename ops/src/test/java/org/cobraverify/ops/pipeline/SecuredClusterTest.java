package org.cobraverify.ops.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.cli.VerifyCommandTest;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.TxnRecord;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.TopicScan;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The pipeline on a real secured broker: SASL_PLAINTEXT with SCRAM-SHA-256, {@code StandardAuthorizer}, no access
 * without an ACL. An administrator creates one user per component and the ACLs of {@code cobra acls}; then each
 * component runs under its own principal, and what a component must not do is refused, with a clear message.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredClusterTest {
    static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";";
    static final String ADMIN_PASSWORD = "admin-s3cret", PASSWORD = "pw-";

    static Path dir;
    static EmbeddedKafka kafka;
    static KafkaConnection admin;

    @BeforeAll
    static void securedBroker() throws Exception {
        dir = Files.createTempDirectory("cobra-secured-test");
        // the shipped example (ops/config/broker-sasl.properties, the secure compose overlay's), with a password
        Properties broker = new Properties();
        broker.load(new java.io.StringReader(Files.readString(Path.of("config", "broker-sasl.properties")).replace("CHANGE-ME", ADMIN_PASSWORD)));
        assertEquals("false", broker.getProperty("allow.everyone.if.no.acl.found"));
        kafka = EmbeddedKafka.start(EmbeddedKafka.Node.single(0, dir.resolve("kafka")).withSettings(broker)
                .withScram(List.of("SCRAM-SHA-256=[name=admin,password=" + ADMIN_PASSWORD + "]")));
        admin = client("admin", ADMIN_PASSWORD);
        Path users = dir.resolve("users.properties");
        Files.writeString(users, "collector=" + PASSWORD + "collector\ntopology=" + PASSWORD + "topology\nverifier=" + PASSWORD + "verifier\nalerting="
                + PASSWORD + "alerting\n");
        var r = VerifyCommandTest.cobra("acls", "--kafka-config", file("admin", admin).toString(), "--create", "--scram-users", users.toString(),
                "--collector", "User:collector", "--topology", "User:topology", "--verifier", "User:verifier", "--alerting", "User:alerting");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("User:verifier") && r.out().contains("cobra.rounds"), r.out());
    }

    @AfterAll
    static void stop() throws IOException {
        if (kafka != null) kafka.close();
        try (var w = Files.walk(dir)) {
            w.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }

    static KafkaConnection client(String user, String password) {
        return KafkaConnection.plain(kafka.bootstrapServers()).with("security.protocol", "SASL_PLAINTEXT").with("sasl.mechanism", "SCRAM-SHA-256")
                .with("sasl.jaas.config", String.format(JAAS, user, password));
    }

    static KafkaConnection user(String name) { return client(name, PASSWORD + name); }

    /** A --kafka-config file with {@code c}'s settings. */
    static Path file(String name, KafkaConnection c) throws IOException {
        Path f = dir.resolve(name + "-" + System.nanoTime() + ".properties");
        Properties p = c.properties();
        try (var w = Files.newBufferedWriter(f)) {
            p.store(w, null);
        }
        return f;
    }

    @Test
    @Order(1)
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void thePipelineRunsEndToEndWithOnePrincipalPerComponent() throws Exception {
        TopologySettings ts = TopologySettings.defaults().withRoundSize(300).withIdleCutMs(500);
        long recorded;
        try (Pipeline p = Pipeline.start(user("topology"), user("verifier"), (short) 1, dir.resolve("streams"), 1, ts,
                RoundSettings.defaults().withCheck(CheckOptions.defaults()), v -> {})) {
            try (KvStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
                KafkaSink sink = new KafkaSink(user("collector"), Topics.OPS, false, true, new Properties());
                Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
                try {
                    WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 1500, 1, new WorkloadRunner.Progress());
                } finally {
                    rec.close();
                }
                recorded = sink.recorded();
            }
            assertTrue(PipelineTest.waitFor(p, recorded, v -> false), "verdicts cover every transaction: " + p.verdicts());
            assertNull(p.verifierFailure(), "the verifier ran under its own principal");
            for (Verdict v : p.verdicts()) assertEquals(Outcome.ACCEPT, v.getOutcome(), v.getReason());
        }
        // alerting reads the verdicts under its own principal
        var r = VerifyCommandTest.cobra("verdicts", "--kafka-config", file("alerting", user("alerting")).toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("accept"), r.out());
        // and is refused what it has no ACL for: the rounds
        var export = VerifyCommandTest.cobra("export", "--kafka-config", file("alerting", user("alerting")).toString(), "--topic", Topics.ROUNDS,
                "--out", dir.resolve("x.jsonl").toString());
        assertEquals(2, export.exit(), export.err());
        assertTrue(export.err().contains("User:alerting") && export.err().contains(Topics.ROUNDS), export.err());
        assertFalse(export.err().contains("\tat "), "no stack trace: " + export.err());
    }

    @Test
    @Order(2)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theCollectorIsRefusedOnVerdictsAndRoundsAndNothingReachesThem() throws Exception {
        for (String topic : List.of(Topics.VERDICTS, Topics.ROUNDS)) {
            long before = records(topic).size();
            KafkaSink sink = new KafkaSink(user("collector"), topic, true, true, new Properties());
            IOException e = assertThrows(IOException.class, () -> sink.record(new TxnRecord("forged", "s1", TxnRecord.Status.COMMITTED, 1, 2, List.of())));
            assertTrue(e.getMessage().contains("User:collector") && e.getMessage().contains(topic), e.getMessage());
            assertTrue(e.getMessage().contains("refused"), e.getMessage());
            try {
                sink.close();
            } catch (IOException expected) {
                // the history it was to carry is incomplete, and it says so
            }
            List<ConsumerRecord<String, byte[]>> after = records(topic);
            assertEquals(before, after.size(), "nothing reached " + topic);
            WireFormat wire = WireFormat.standalone();
            for (ConsumerRecord<String, byte[]> r : after) assertFalse(wire.typeOf(r.value()).contains("Operation"), "no operation on " + topic);
        }
    }

    @Test
    @Order(3)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWrongPasswordIsAClearErrorAndExit2() throws Exception {
        String wrong = "not-the-password-42";
        for (String[] cmd : List.of(new String[] {"verdicts"}, new String[] {"replay", "--from-round", "0"},
                new String[] {"topology", "--state-dir", dir.resolve("t2").toString()})) {
            String[] args = new String[cmd.length + 2];
            System.arraycopy(cmd, 0, args, 0, cmd.length);
            args[cmd.length] = "--kafka-config";
            args[cmd.length + 1] = file("wrong", client("alerting", wrong)).toString();
            var r = VerifyCommandTest.cobra(args);
            assertEquals(2, r.exit(), cmd[0] + ": " + r.err());
            assertTrue(r.err().contains("refused to authenticate User:alerting"), cmd[0] + ": " + r.err());
            assertFalse(r.err().contains("\tat "), cmd[0] + ": no stack trace: " + r.err());
            assertFalse(r.err().contains(wrong) || r.out().contains(wrong), cmd[0] + ": the password is not printed");
        }
    }

    static List<ConsumerRecord<String, byte[]>> records(String topic) {
        return TopicScan.readAll(admin, topic, new ByteArrayDeserializer(), Duration.ofSeconds(30));
    }
}
