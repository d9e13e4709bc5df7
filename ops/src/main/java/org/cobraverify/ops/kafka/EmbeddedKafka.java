package org.cobraverify.ops.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker and controller), started in this
 * JVM from the Kafka jars on Maven Central: the storage directory is formatted with the storage tool,
 * then {@code KafkaRaftServer} starts on loopback ports. Replication settings suit one node
 * (internal topics with one replica), so transactions and exactly-once processing work.
 * {@link #close()} stops it and, for a temporary directory, deletes its data.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final Path dir;
    private final boolean temporary;
    private final int port;
    private final KafkaRaftServer server;

    private EmbeddedKafka(Path dir, boolean temporary, int port, KafkaRaftServer server) {
        this.dir = dir;
        this.temporary = temporary;
        this.port = port;
        this.server = server;
    }

    /**
     * Starts a broker. {@code port} 0 picks a free loopback port; {@code dataDir} null uses a new
     * temporary directory (deleted on close), otherwise an existing formatted directory is reused.
     */
    public static EmbeddedKafka start(int port, Path dataDir) throws IOException {
        boolean temporary = dataDir == null;
        Path dir = temporary ? Files.createTempDirectory("cobra-kafka") : dataDir;
        Files.createDirectories(dir);
        int brokerPort = port != 0 ? port : freePort();
        int controllerPort = freePort();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("logs").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        // any broker setting, from a system property cobra.kafka.<setting> (for example -Dcobra.kafka.num.io.threads=2)
        for (String name : System.getProperties().stringPropertyNames())
            if (name.startsWith("cobra.kafka.")) p.put(name.substring("cobra.kafka.".length()), System.getProperty(name));
        Path cfg = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(cfg, StandardCharsets.UTF_8)) {
            p.store(w, "written by cobra: an embedded single-node KRaft broker");
        }
        if (!Files.exists(dir.resolve("logs").resolve("meta.properties"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            // transaction.version=1: with version 2, the first transactional batches of Kafka Streams' producers on new
            // partitions were refused with OutOfOrderSequenceException (retried, but logged as errors); version 1 is clean
            int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", cfg.toString(), "--standalone", "--feature", "transaction.version=1"},
                    new PrintStream(out, true, StandardCharsets.UTF_8));
            if (rc != 0) throw new IOException("formatting Kafka storage in " + dir + " failed: " + out.toString(StandardCharsets.UTF_8));
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(dir, temporary, brokerPort, server);
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrapServers() { return "127.0.0.1:" + port; }

    public Path dataDir() { return dir; }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (temporary) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory: best effort
            }
        }
    }
}
