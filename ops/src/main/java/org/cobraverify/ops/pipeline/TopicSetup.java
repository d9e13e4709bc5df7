package org.cobraverify.ops.pipeline;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.service.VerifierService;
import org.cobraverify.topology.Topics;

/**
 * Creates the pipeline's topics where they are missing (docs/DESIGN.md §3.1): the operations topic with
 * {@code partitions} partitions, the ordered ones with one, the schema catalog compacted, the checkpoints
 * ({@code cobra.gc-frontiers}) compacted and deleted after the retention. Existing topics keep their partitions.
 *
 * <p>Retention (docs/DESIGN.md §9.3): the history topics (operations, transactions, rounds) keep
 * {@code retentionHours} hours, set on creation and re-set on existing topics (it is the replay horizon: a
 * window older than that cannot be re-verified); verdicts and dead letters keep the broker's default.
 *
 * <p>Durability: every topic gets {@code min.insync.replicas} from {@link #minInsyncReplicas} (2 of 3 replicas), and
 * every producer of the pipeline uses {@code acks=all} with idempotence, so an acknowledged record survives the loss
 * of any one broker.
 */
public final class TopicSetup {
    private TopicSetup() {}

    /** The default replay horizon: a week, Kafka's own default retention. */
    public static final int DEFAULT_RETENTION_HOURS = 168;

    /** The topics that hold the history, whose retention is the replay horizon. */
    public static final List<String> HISTORY = List.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS);

    public static List<NewTopic> topics(int partitions, short replication) { return topics(partitions, replication, DEFAULT_RETENTION_HOURS); }

    public static List<NewTopic> topics(int partitions, short replication, int retentionHours) {
        if (retentionHours < 1) throw new IllegalArgumentException("retention must be at least one hour, not " + retentionHours);
        if (replication < 1) throw new IllegalArgumentException("replication must be at least 1, not " + replication);
        List<NewTopic> l = new ArrayList<>();
        Map<String, String> retained = Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionHours * 3_600_000L));
        l.add(new NewTopic(Topics.OPS, partitions, replication).configs(with(retained, replication)));
        for (String t : List.of(Topics.TXNS, Topics.ROUNDS)) l.add(new NewTopic(t, 1, replication).configs(with(retained, replication)));
        for (String t : List.of(Topics.VERDICTS, Topics.DEAD_LETTERS)) l.add(new NewTopic(t, 1, replication).configs(with(Map.of(), replication)));
        Map<String, String> compacted = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        l.add(new NewTopic(Topics.SCHEMAS, 1, replication).configs(with(compacted, replication)));
        // per data key its frontier log (docs/DESIGN.md §7.9): compacted only, never deleted (a key's latest log is needed for
        // as long as the key may be read); one record per key collected as data
        l.add(new NewTopic(Topics.FRONTIER_LOGS, 1, replication).configs(with(compacted, replication)));
        l.add(new NewTopic(Topics.GC_FRONTIERS, 1, replication).configs(with(checkpoints(retentionHours), replication)));
        return l;
    }

    /**
     * The in-sync replicas a write with {@code acks=all} needs: 2 from three replicas up (one broker may be down and
     * every acknowledged record is still on two), 1 below (with two replicas, 2 would stop writes at the first failure).
     */
    public static int minInsyncReplicas(short replication) { return replication >= 3 ? 2 : 1; }

    private static Map<String, String> with(Map<String, String> configs, short replication) {
        Map<String, String> m = new HashMap<>(configs);
        m.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(minInsyncReplicas(replication)));
        return m;
    }

    /**
     * Describes the partitioned topic, waiting (up to 10 s) while a just-created topic is not yet in the
     * broker's metadata: right after creation a describe can answer "unknown topic or partition".
     */
    private static Map<String, TopicDescription> describeWhenKnown(Admin admin)
            throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return admin.describeTopics(List.of(Topics.OPS)).allTopicNames().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    /**
     * {@code cobra.gc-frontiers}: the verifier's checkpoints, keyed verifier/round/chunk. Compacted (a
     * re-published round replaces its records) and deleted after the history topics' retention, so that
     * a replay finds a checkpoint for every round whose input is still retained, and no older one; records
     * up to {@link org.cobraverify.service.VerifierService#MAX_RECORD_BYTES}.
     */
    static Map<String, String> checkpoints(int retentionHours) {
        return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionHours * 3_600_000L),
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(VerifierService.MAX_RECORD_BYTES));
    }

    /** Creates what is missing, with the default retention; returns the names created. */
    public static List<String> ensure(String bootstrap, int partitions, short replication) {
        return ensure(bootstrap, partitions, replication, DEFAULT_RETENTION_HOURS);
    }

    /** Creates what is missing and sets the history topics' retention; returns the names created. */
    public static List<String> ensure(String bootstrap, int partitions, short replication, int retentionHours) {
        return ensure(KafkaConnection.plain(bootstrap), partitions, replication, retentionHours);
    }

    /** As above, through {@code kafka}'s client settings. */
    public static List<String> ensure(KafkaConnection kafka, int partitions, short replication, int retentionHours) {
        String bootstrap = kafka.bootstrap();
        try (Admin admin = Admin.create(kafka.properties())) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = topics(partitions, replication, retentionHours).stream().filter(t -> !existing.contains(t.name())).toList();
            if (!missing.isEmpty()) admin.createTopics(missing).all().get();
            Map<ConfigResource, Collection<AlterConfigOp>> alter = new HashMap<>();
            for (String t : HISTORY) {
                if (!existing.contains(t)) continue;
                alter.put(new ConfigResource(ConfigResource.Type.TOPIC, t),
                        List.of(new AlterConfigOp(new ConfigEntry(
                                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionHours * 3_600_000L)), AlterConfigOp.OpType.SET)));
            }
            if (existing.contains(Topics.GC_FRONTIERS)) {
                List<AlterConfigOp> ops = new ArrayList<>();
                for (Map.Entry<String, String> e : checkpoints(retentionHours).entrySet())
                    ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()),
                            AlterConfigOp.OpType.SET));
                alter.put(new ConfigResource(ConfigResource.Type.TOPIC, Topics.GC_FRONTIERS), ops);
            }
            if (!alter.isEmpty()) admin.incrementalAlterConfigs(alter).all().get();
            describeWhenKnown(admin);
            return missing.stream().map(NewTopic::name).toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create the pipeline's topics on " + bootstrap + ": " + e.getCause().getMessage(), e.getCause());
        }
    }
}
