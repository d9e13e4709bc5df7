package org.cobraverify.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.schemas.kafka.KafkaConnection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra broker}: one real KRaft Kafka node (combined broker and controller) until interrupted: alone, a
 * single-node cluster; with {@code --quorum} naming three, one node of a three-node cluster (start the other two
 * the same way, each with its own id, ports and directory).
 */
@Command(name = "broker", mixinStandardHelpOptions = true, footer = "Exit codes: 0 stopped cleanly, 2 could not run (bad options, a port taken, the data directory unusable).",
        description = {"Runs a Kafka node (KRaft, combined broker and controller, from the Kafka jars) on loopback until interrupted.",
                "Alone: a single-node cluster. With --quorum: one node of a cluster (start each node with its own",
                "--node-id, --port, --controller-port and --dir)."})
public final class BrokerCommand implements Callable<Integer> {
    @Option(names = "--port", description = "Client port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port = 9092;

    @Option(names = "--dir", paramLabel = "DIR", description = "Data directory, kept across runs (default: a temporary one, deleted at exit).")
    Path dir;

    @Option(names = "--node-id", paramLabel = "N", description = "This node's id in the quorum (default: ${DEFAULT-VALUE}).")
    int nodeId = 1;

    @Option(names = "--quorum", paramLabel = "VOTERS", description = {"The controller voters, id@host:port,... (for example",
            "1@127.0.0.1:19093,2@127.0.0.1:29093,3@127.0.0.1:39093); default: this node alone."})
    String quorum;

    @Option(names = "--controller-port", paramLabel = "PORT", description = "This node's controller port (with --quorum: the one the quorum names for it).")
    int controllerPort;

    @Option(names = "--cluster-id", paramLabel = "ID", description = "The cluster id when formatting (default: derived from the quorum, alike on every node).")
    String clusterId;

    @Option(names = "--config", paramLabel = "FILE", description = {"Any other broker settings (server.properties syntax); they win over the defaults:",
            "for example SASL_PLAINTEXT with SCRAM and StandardAuthorizer (see ops/config/broker-sasl.properties)."})
    Path config;

    @Option(names = "--host", paramLabel = "NAME", description = {"Listen on all interfaces and advertise this host name to clients",
            "(a container: --host kafka-1); default: loopback only."})
    String host;

    @Option(names = "--scram-users", paramLabel = "FILE", description = {"name=password lines: SCRAM-SHA-256 users created when the storage is formatted",
            "(the inter-broker user of a SASL cluster must exist before the nodes start; add the others later with cobra acls --scram-users FILE --create)."})
    Path scramUsers;

    @Override
    public Integer call() throws Exception {
        EmbeddedKafka.Node node;
        try {
            node = node();
        } catch (IllegalArgumentException e) {
            System.err.println("cobra broker: " + e.getMessage());
            return 2;
        }
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(node);
        } catch (Exception e) {
            System.err.println("cobra broker: cannot start: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "cobra-broker-shutdown"));
        System.out.println("cobra broker: node " + nodeId + " ready at " + kafka.bootstrapServers() + (quorum == null ? "" : " (quorum " + quorum + ")")
                + " (data in " + kafka.dataDir() + "); Ctrl-C stops it");
        stopped.await();
        return 0;
    }

    EmbeddedKafka.Node node() {
        if (quorum != null) {
            String mine = null;
            for (String voter : quorum.split(",")) {
                String[] idAt = voter.trim().split("@", 2);
                if (idAt.length != 2 || !idAt[1].contains(":")) throw new IllegalArgumentException("--quorum: '" + voter + "' is not id@host:port");
                if (idAt[0].equals(Integer.toString(nodeId))) mine = idAt[1];
            }
            if (mine == null) throw new IllegalArgumentException("--quorum " + quorum + " does not name node " + nodeId);
            int quorumPort = Integer.parseInt(mine.substring(mine.lastIndexOf(':') + 1));
            if (controllerPort == 0) controllerPort = quorumPort;
            else if (controllerPort != quorumPort)
                throw new IllegalArgumentException("--controller-port " + controllerPort + " disagrees with the quorum, which names " + mine + " for node " + nodeId);
            if (port == 0) throw new IllegalArgumentException("a node of a quorum needs a fixed --port (the others find it in the metadata)");
        }
        Properties settings = new Properties();
        if (host != null && controllerPort == 0) throw new IllegalArgumentException("--host needs a fixed --controller-port (or a --quorum naming it)");
        if (host != null) {
            settings.put("listeners", "CLIENT://0.0.0.0:" + port + ",CONTROLLER://0.0.0.0:" + controllerPort);
            settings.put("advertised.listeners", "CLIENT://" + host + ":" + port);
        }
        if (config != null) settings.putAll(KafkaConnection.readProperties(config, "broker settings"));
        List<String> scram = new ArrayList<>();
        if (scramUsers != null) {
            Properties users = KafkaConnection.readProperties(scramUsers, "SCRAM users");
            for (String name : new TreeSet<>(users.stringPropertyNames()))
                scram.add("SCRAM-SHA-256=[name=" + name + ",password=" + users.getProperty(name) + "]");
        }
        return new EmbeddedKafka.Node(nodeId, quorum, port, controllerPort, dir, settings, clusterId, scram);
    }
}
