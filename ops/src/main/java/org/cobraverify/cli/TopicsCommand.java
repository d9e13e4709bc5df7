package org.cobraverify.cli;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.topology.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cobra topics}: where the pipeline's topics live: each partition's leader, replicas and in-sync replicas. */
@Command(name = "topics", mixinStandardHelpOptions = true, header = "Describes the pipeline's topics, partition by partition.", footer = "Exit codes: 0 described, 2 could not run (the cluster unreachable or refusing).",
        description = {"Describes the pipeline's topics: one line per partition with its leader, replicas and in-sync replicas",
                "(under-replicated partitions are marked), so an operator sees what a broker's loss would take."})
public final class TopicsCommand implements Callable<Integer> {
    @Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--topic", paramLabel = "NAME", description = "Only this topic (default: every pipeline topic that exists).")
    String topic;

    @Override
    public Integer call() throws Exception {
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        List<String> wanted = topic != null ? List.of(topic)
                : List.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS, Topics.VERDICTS, Topics.DEAD_LETTERS, Topics.SCHEMAS, Topics.GC_FRONTIERS, Topics.FRONTIER_LOGS);
        try (Admin admin = Admin.create(kafka.properties())) {
            var existing = admin.listTopics().names().get();
            List<String> present = wanted.stream().filter(existing::contains).toList();
            if (present.isEmpty()) {
                System.err.println("cobra topics: none of " + wanted + " exists on " + kafka.bootstrap());
                return 2;
            }
            Map<String, TopicDescription> d = admin.describeTopics(present).allTopicNames().get();
            for (String t : present)
                for (TopicPartitionInfo p : d.get(t).partitions()) {
                    Node leader = p.leader();
                    boolean under = p.isr().size() < p.replicas().size();
                    System.out.printf("%s %d leader %s replicas %s isr %s%s%n", t, p.partition(), leader == null || leader.isEmpty() ? "none" : leader.idString(),
                            ids(p.replicas()), ids(p.isr()), under ? " UNDER-REPLICATED" : "");
                }
        }
        return 0;
    }

    private static String ids(List<Node> nodes) { return nodes.stream().map(Node::idString).toList().toString().replace(" ", ""); }
}
