package org.cobraverify.schemas.kafka;

import java.util.Set;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * A cluster's refusal, or its schema registry's ({@link org.cobraverify.schemas.registry.SchemaRegistryClient.RegistryException}), said for a person: a failed authentication (wrong password, unknown user, bad certificate) or
 * a missing ACL, naming the principal the client presented and the topic, group or transactional id refused. Found
 * anywhere in a cause chain (clients wrap them in ExecutionException, Streams in StreamsException).
 */
public final class KafkaRefusal {
    private KafkaRefusal() {}

    /** The refusal in {@code e}'s cause chain, said for a person; null when the chain holds none. */
    public static String explain(Throwable e, KafkaConnection kafka) {
        String who = kafka == null ? "this client" : kafka.principal();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.cobraverify.schemas.registry.SchemaRegistryClient.RegistryException) return t.getMessage();
            if (t instanceof AuthenticationException)
                return "Kafka at " + (kafka == null ? "the bootstrap servers" : kafka.bootstrap()) + " refused to authenticate " + who
                        + ": " + t.getMessage() + " (check the credentials in the Kafka client settings)";
            if (t instanceof TopicAuthorizationException ta)
                return "Kafka refused " + who + " access to topic" + plural(ta.unauthorizedTopics()) + " (no ACL allows it): " + t.getMessage();
            if (t instanceof GroupAuthorizationException ga)
                return "Kafka refused " + who + " access to consumer group " + ga.groupId() + " (no ACL allows it): " + t.getMessage();
            if (t instanceof TransactionalIdAuthorizationException)
                return "Kafka refused " + who + " its transactional id (no ACL allows it): " + t.getMessage();
            if (t instanceof ClusterAuthorizationException)
                return "Kafka refused " + who + " a cluster operation (no ACL allows it): " + t.getMessage();
            if (t instanceof AuthorizationException)
                return "Kafka refused " + who + " (no ACL allows it): " + t.getMessage();
        }
        return null;
    }

    private static String plural(Set<String> topics) {
        if (topics == null || topics.isEmpty()) return "s";
        return (topics.size() == 1 ? " " : "s ") + String.join(", ", topics);
    }
}
