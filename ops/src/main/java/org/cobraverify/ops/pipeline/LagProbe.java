package org.cobraverify.ops.pipeline;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.topology.Topics;

/** How far the topology and the verifier are behind their input topics (records not yet committed as consumed). */
public final class LagProbe implements AutoCloseable {
    private final Admin admin;

    public LagProbe(String bootstrap) { this(KafkaConnection.plain(bootstrap)); }

    public LagProbe(KafkaConnection kafka) {
        admin = Admin.create(kafka.properties());
    }

    /** Records behind, per input topic: the topology's on cobra.ops and cobra.txns; the verifier's on cobra.rounds. */
    public Map<String, Long> lags(String topologyGroup, String verifierGroup) {
        Map<String, Long> out = new LinkedHashMap<>();
        try {
            Map<TopicPartition, OffsetAndMetadata> topo = admin.listConsumerGroupOffsets(topologyGroup).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetAndMetadata> ver = admin.listConsumerGroupOffsets(verifierGroup).partitionsToOffsetAndMetadata().get();
            List<String> topics = List.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS);
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            admin.describeTopics(topics).allTopicNames().get().forEach((t, d) -> d.partitions().forEach(pi -> req.put(new TopicPartition(t, pi.partition()), OffsetSpec.latest())));
            var ends = admin.listOffsets(req).all().get();
            for (String t : topics) {
                Map<TopicPartition, OffsetAndMetadata> committed = t.equals(Topics.ROUNDS) ? ver : topo;
                long lag = ends.entrySet().stream().filter(e -> e.getKey().topic().equals(t))
                        .mapToLong(e -> e.getValue().offset() - (committed.get(e.getKey()) == null ? 0 : committed.get(e.getKey()).offset())).sum();
                out.put(t, lag);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            out.put("error: " + e.getCause().getMessage(), -1L);
        }
        return out;
    }

    public static String format(Map<String, Long> lags) {
        return lags.entrySet().stream().map(e -> e.getKey().replace("cobra.", "") + " " + e.getValue()).collect(Collectors.joining(", "));
    }

    @Override
    public void close() { admin.close(); }
}
