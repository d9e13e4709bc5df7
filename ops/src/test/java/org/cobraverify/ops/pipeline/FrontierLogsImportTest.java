package org.cobraverify.ops.pipeline;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.service.FrontierLogs;
import org.cobraverify.topology.Topics;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a replay imports of {@code cobra.frontier-logs} (docs/DESIGN.md §8.4): only the keys it is given, and of each the
 * record published with the first checkpoint at or after the one it starts from (the latest when none is), on a real broker
 * whose topic has not been compacted yet (a record per checkpoint that changed the key).
 */
class FrontierLogsImportTest extends BrokerPerTest {
    private static CollectedWrites.FrontierEntry entry(String value, long round) {
        return new CollectedWrites.FrontierEntry(value, "W-" + value, round, 0);
    }

    @Test
    void aReplayImportsOneRecordPerKeyOfItsWindowAsOfItsCheckpoint() throws Exception {
        try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(Topics.FRONTIER_LOGS, 1, (short) 1))).all().get();
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()), new StringSerializer(),
                new ByteArraySerializer())) {
            // key k's log as published with the checkpoints of rounds 5, 10 and 20; key other's once; key far's before round 8 only
            send(producer, "k", 5, List.of(entry("a", 3)));
            send(producer, "k", 10, List.of(entry("a", 3), entry("b", 9)));
            send(producer, "k", 20, List.of(entry("c", 19)));
            send(producer, "other", 10, List.of(entry("o", 10)));
            send(producer, "far", 2, List.of(entry("f", 1)));
            producer.flush();
        }
        KafkaConnection kafka = KafkaConnection.plain(this.kafka.bootstrapServers());
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            long[] n = FrontierLogs.importSome(kafka, WIRE, v, Set.of("k", "far")::contains, 8);
            assertEquals(5, n[0], "every record is read");
            assertEquals(2, n[1], "one per wanted key");
            // as of round 8: the record of round 10 (the first from 8 on), which still has b; not the latest, which dropped a and b
            assertTrue(v.hasFrontierLogs());
            assertEquals(List.of("a", "b"), values(v, "k"));
            assertEquals(List.of("f"), values(v, "far"), "no record from round 8 on: the latest");
            assertEquals(List.of(), values(v, "other"), "not wanted, not imported");
        }
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            FrontierLogs.importSome(kafka, WIRE, v, Set.of("k")::contains, 30);
            assertEquals(List.of("c"), values(v, "k"), "past every record: the latest");
        }
    }

    private static void send(KafkaProducer<String, byte[]> p, String key, long round, List<CollectedWrites.FrontierEntry> log) throws Exception {
        p.send(new ProducerRecord<>(Topics.FRONTIER_LOGS, key, WIRE.encode(Topics.FRONTIER_LOGS, FrontierLogs.record(key, round, log)))).get();
    }

    /** The values {@code key}'s imported log names, oldest first. */
    private static List<String> values(IncrementalVerifier v, String key) {
        return v.frontierLog(key).stream().map(CollectedWrites.FrontierEntry::value).toList();
    }
}
