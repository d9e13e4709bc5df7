package org.cobraverify.schemas.kafka;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;

/**
 * Whether a cluster answers, asked once before a command starts its clients: a command pointed at a wrong address says
 * so within {@link #DEFAULT_WAIT}, naming the address, instead of its clients retrying for a minute and then failing with
 * a bare timeout. A cluster that answers but refuses us (credentials, ACLs) is {@link KafkaRefusal}'s to explain.
 */
public final class KafkaReach {
    private KafkaReach() {}

    /** How long the probe waits for the cluster to answer. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(10);

    /**
     * Returns when the cluster at {@code kafka} answers within {@code wait} (or answers with a refusal, left to the command);
     * otherwise throws {@link KafkaConnection.BadSettings} saying which servers did not answer, or could not be resolved.
     */
    public static void require(KafkaConnection kafka, Duration wait) {
        Properties p = kafka.properties();
        int ms = (int) Math.max(1000, wait.toMillis());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, Math.min(ms, 2000));
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        Admin admin;
        try {
            admin = Admin.create(p);
        } catch (KafkaException e) { // no resolvable address among the servers, or settings the client refuses
            throw new KafkaConnection.BadSettings("cannot reach Kafka at " + kafka.bootstrap() + ": " + rootMessage(e));
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).nodes().get(ms + 1000L, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw unreachable(kafka, wait);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) throw unreachable(kafka, wait);
            // it answered: a refusal (authentication, authorization) or another error is the command's to report
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static KafkaConnection.BadSettings unreachable(KafkaConnection kafka, Duration wait) {
        return new KafkaConnection.BadSettings("Kafka at " + kafka.bootstrap() + " did not answer within " + wait.toSeconds()
                + " s: is a broker running there, and is the address the one its listeners advertise? (no verdict, nothing done)");
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
