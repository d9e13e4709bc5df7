package org.cobraverify.ops.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.cobraverify.topology.Topics;

/**
 * The least privilege each component of the pipeline needs, as Kafka ACL bindings (ops/ACLS.md explains each line).
 * A pure function of the principals and the names they use: what {@code cobra acls} creates, and what the secured
 * cluster test holds the components to.
 *
 * <ul>
 *   <li>collector (the interceptor): writes {@code cobra.ops}, and its schemas to {@code cobra.schemas};</li>
 *   <li>topology: reads {@code cobra.ops} and {@code cobra.txns}, writes {@code cobra.txns}, {@code cobra.rounds} and
 *       dead letters; owns its internal topics, consumer group and transactional ids (all prefixed by its application
 *       id); creates the pipeline's topics and sets their retention;</li>
 *   <li>verifier: reads {@code cobra.rounds} and its checkpoints, writes verdicts, checkpoints and dead letters with its
 *       transactional id, commits its offset in its group;</li>
 *   <li>alerting ({@code cobra verdicts}): reads verdicts, and schemas to decode them.</li>
 * </ul>
 * Every reader also reads {@code cobra.schemas}: a record written with a schema it does not know is decoded with the
 * schema found there.
 */
public final class PipelineAcls {
    private PipelineAcls() {}

    /** Who runs each component ({@code User:name}), and the names the topology and verifier use. */
    public record Principals(String collector, String topology, String verifier, String alerting,
                             String applicationId, String verifierGroup, String verifierTransactionalId) {
        public static Principals of(String collector, String topology, String verifier, String alerting) {
            return new Principals(collector, topology, verifier, alerting, "cobra-topology", "cobra-verifier", "cobra-verifier-0");
        }
    }

    /** Every binding, component by component (a principal left null gets none). */
    public static List<AclBinding> bindings(Principals p) {
        List<AclBinding> out = new ArrayList<>();
        if (p.collector() != null) {
            topic(out, p.collector(), Topics.OPS, AclOperation.WRITE);
            topic(out, p.collector(), Topics.SCHEMAS, AclOperation.WRITE);
        }
        if (p.topology() != null) {
            String t = p.topology();
            for (String in : List.of(Topics.OPS, Topics.TXNS, Topics.SCHEMAS)) topic(out, t, in, AclOperation.READ);
            for (String o : List.of(Topics.TXNS, Topics.ROUNDS, Topics.DEAD_LETTERS, Topics.SCHEMAS)) topic(out, t, o, AclOperation.WRITE);
            // topic set-up (TopicSetup): create what is missing, set the history topics' and checkpoints' retention
            for (String any : List.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS, Topics.VERDICTS, Topics.DEAD_LETTERS, Topics.SCHEMAS, Topics.GC_FRONTIERS,
                    Topics.FRONTIER_LOGS)) {
                topic(out, t, any, AclOperation.CREATE);
                topic(out, t, any, AclOperation.DESCRIBE_CONFIGS);
            }
            for (String kept : List.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS, Topics.GC_FRONTIERS)) topic(out, t, kept, AclOperation.ALTER_CONFIGS);
            // Kafka Streams: internal topics (changelogs, repartitions) and transactional ids start with the application id
            out.add(allow(t, ResourceType.TOPIC, p.applicationId() + "-", PatternType.PREFIXED, AclOperation.ALL));
            out.add(allow(t, ResourceType.GROUP, p.applicationId(), PatternType.LITERAL, AclOperation.READ));
            out.add(allow(t, ResourceType.TRANSACTIONAL_ID, p.applicationId() + "-", PatternType.PREFIXED, AclOperation.WRITE));
            out.add(allow(t, ResourceType.TRANSACTIONAL_ID, p.applicationId() + "-", PatternType.PREFIXED, AclOperation.DESCRIBE));
        }
        if (p.verifier() != null) {
            String v = p.verifier();
            for (String in : List.of(Topics.ROUNDS, Topics.GC_FRONTIERS, Topics.SCHEMAS, Topics.FRONTIER_LOGS)) topic(out, v, in, AclOperation.READ);
            for (String o : List.of(Topics.VERDICTS, Topics.GC_FRONTIERS, Topics.DEAD_LETTERS, Topics.FRONTIER_LOGS)) topic(out, v, o, AclOperation.WRITE);
            out.add(allow(v, ResourceType.GROUP, p.verifierGroup(), PatternType.LITERAL, AclOperation.READ));
            out.add(allow(v, ResourceType.TRANSACTIONAL_ID, p.verifierTransactionalId(), PatternType.LITERAL, AclOperation.WRITE));
            out.add(allow(v, ResourceType.TRANSACTIONAL_ID, p.verifierTransactionalId(), PatternType.LITERAL, AclOperation.DESCRIBE));
        }
        if (p.alerting() != null) {
            topic(out, p.alerting(), Topics.VERDICTS, AclOperation.READ);
            topic(out, p.alerting(), Topics.SCHEMAS, AclOperation.READ);
        }
        return out;
    }

    private static void topic(List<AclBinding> out, String principal, String topic, AclOperation op) {
        out.add(allow(principal, ResourceType.TOPIC, topic, PatternType.LITERAL, op));
    }

    private static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern, AclOperation op) {
        if (!principal.contains(":")) throw new IllegalArgumentException("principal " + principal + " is not TYPE:NAME (for example User:verifier)");
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }

    /** One binding as a line people read: {@code User:verifier  ALLOW  READ  TOPIC cobra.rounds}. */
    public static String line(AclBinding b) {
        ResourcePattern r = b.pattern();
        return String.format("%-22s %-5s %-16s %-16s %s%s", b.entry().principal(), b.entry().permissionType(), b.entry().operation(),
                r.resourceType(), r.name(), r.patternType() == PatternType.PREFIXED ? "*" : "");
    }
}
