package org.cobraverify.ops.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real Kafka node in KRaft mode (combined broker and controller), started in this JVM from the Kafka jars on
 * Maven Central: the storage directory is formatted with the storage tool, then {@code KafkaRaftServer} starts on
 * loopback ports. Alone it is a single-node cluster; with a quorum of three ({@link Node}), three of them, in three
 * processes ({@code cobra broker}), are a real cluster. Replication settings follow the quorum's size, so
 * transactions and exactly-once processing work on one node and survive the loss of one of three.
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
     * One node of a cluster: its id, the quorum of controller voters ({@code 1@127.0.0.1:9093,2@...}; null for a
     * single-node cluster whose only voter is this node), the client and controller ports (0: a free one), the data
     * directory (null: a temporary one), any other broker settings (they win over the defaults: security, say), the
     * cluster id (null: derived from the quorum, so that every node of one quorum agrees), and SCRAM credentials to
     * create when the storage is formatted ({@code SCRAM-SHA-256=[name=admin,password=...]}, as the storage tool takes
     * them; the inter-broker user of a SASL cluster must exist before the nodes can reach each other).
     */
    public record Node(int nodeId, String quorum, int port, int controllerPort, Path dir, Properties settings, String clusterId, List<String> scram) {
        public static Node single(int port, Path dir) { return new Node(1, null, port, 0, dir, new Properties(), null, List.of()); }

        public Node withSettings(Properties more) {
            Properties p = new Properties();
            p.putAll(settings);
            p.putAll(more);
            return new Node(nodeId, quorum, port, controllerPort, dir, p, clusterId, scram);
        }

        public Node withScram(List<String> credentials) { return new Node(nodeId, quorum, port, controllerPort, dir, settings, clusterId, credentials); }

        /** How many voters the quorum names (1 without one). */
        public int voters() { return quorum == null ? 1 : quorum.split(",").length; }
    }

    /**
     * Starts a broker. {@code port} 0 picks a free loopback port; {@code dataDir} null uses a new
     * temporary directory (deleted on close), otherwise an existing formatted directory is reused.
     */
    public static EmbeddedKafka start(int port, Path dataDir) throws IOException { return start(Node.single(port, dataDir)); }

    /**
     * Starts one node. The client listener is named CLIENT (PLAINTEXT unless the settings map it to SASL_PLAINTEXT,
     * SSL or SASL_SSL) and also carries inter-broker traffic; the controller listener is CONTROLLER, PLAINTEXT, on
     * loopback. Internal topics get min(3, voters) replicas and, from three, two in sync.
     */
    public static EmbeddedKafka start(Node node) throws IOException {
        Path dataDir = node.dir();
        boolean temporary = dataDir == null;
        Path dir = temporary ? Files.createTempDirectory("cobra-kafka") : dataDir;
        Files.createDirectories(dir);
        // both picked while both sockets are open: two picks one after the other can get the same port back (CI saw it)
        int[] free = freePorts(2, node.port(), node.controllerPort());
        int brokerPort = node.port() != 0 ? node.port() : free[0];
        int controllerPort = node.controllerPort() != 0 ? node.controllerPort() : free[1];
        int voters = node.voters();
        String replicas = Integer.toString(Math.min(3, voters)), inSync = voters >= 3 ? "2" : "1";
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(node.nodeId()));
        if (node.quorum() == null) p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        else p.put("controller.quorum.voters", node.quorum());
        // loopback unless the settings say otherwise (a container: listeners on 0.0.0.0, advertised under its host name)
        p.put("listeners", "CLIENT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "CLIENT://127.0.0.1:" + brokerPort);
        p.put("inter.broker.listener.name", "CLIENT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "CLIENT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("logs").toString());
        p.put("offsets.topic.replication.factor", replicas);
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", replicas);
        p.put("transaction.state.log.min.isr", inSync);
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", replicas);
        p.put("default.replication.factor", replicas);
        p.put("min.insync.replicas", inSync);
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.putAll(node.settings());
        // any broker setting, from a system property cobra.kafka.<setting> (for example -Dcobra.kafka.num.io.threads=2)
        for (String name : System.getProperties().stringPropertyNames())
            if (name.startsWith("cobra.kafka.")) p.put(name.substring("cobra.kafka.".length()), System.getProperty(name));
        Path cfg = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(cfg, StandardCharsets.UTF_8)) {
            p.store(w, "written by cobra: a KRaft node (combined broker and controller)");
        }
        restrictToOwner(cfg); // it may hold the inter-broker user's password
        if (!Files.exists(dir.resolve("logs").resolve("meta.properties"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            String clusterId = node.clusterId() != null ? node.clusterId() : node.quorum() == null ? Uuid.randomUuid().toString() : clusterId(node.quorum());
            List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", cfg.toString()));
            if (node.quorum() == null) args.add("--standalone");
            // transaction.version=1: with version 2, the first transactional batches of Kafka Streams' producers on new
            // partitions were refused with OutOfOrderSequenceException (retried, but logged as errors); version 1 is clean
            args.addAll(List.of("--feature", "transaction.version=1"));
            for (String c : node.scram()) args.addAll(List.of("--add-scram", c));
            int rc = StorageTool.execute(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8));
            if (rc != 0) throw new IOException("formatting Kafka storage in " + dir + " failed: " + redact(out.toString(StandardCharsets.UTF_8)));
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(dir, temporary, brokerPort, server);
    }

    /** The cluster id every node of {@code quorum} derives alike: a UUID from the quorum's SHA-256, base64 as Kafka writes it. */
    public static String clusterId(String quorum) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(quorum.trim().getBytes(StandardCharsets.UTF_8));
            ByteBuffer b = ByteBuffer.wrap(h);
            return new Uuid(b.getLong(), b.getLong()).toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String redact(String s) { return s.replaceAll("password=[^,\\]\\s]*", "password=****"); }

    private static void restrictToOwner(Path f) {
        try {
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | UnsupportedOperationException ignored) {
            // not a POSIX file system: the directory's own permissions protect it
        }
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrapServers() { return "127.0.0.1:" + port; }

    public Path dataDir() { return dir; }

    /** {@code n} distinct free loopback ports, none of them one of {@code taken} (sockets held open until all are found). */
    private static int[] freePorts(int n, int... taken) throws IOException {
        List<ServerSocket> open = new ArrayList<>();
        try {
            int[] out = new int[n];
            for (int i = 0; i < n; ) {
                ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress());
                open.add(s);
                int port = s.getLocalPort();
                boolean clash = false;
                for (int t : taken) clash |= t == port;
                if (!clash) out[i++] = port;
            }
            return out;
        } finally {
            for (ServerSocket s : open) s.close();
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
