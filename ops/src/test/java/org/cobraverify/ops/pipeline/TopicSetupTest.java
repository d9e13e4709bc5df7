package org.cobraverify.ops.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.topology.Topics;
import org.junit.jupiter.api.Test;

/** Topic set-up on a real broker: the history topics keep what the user asked for, the frontiers are compacted. */
class TopicSetupTest {
    private static Map<ConfigResource, Config> configs(Admin admin, List<String> topics) throws Exception {
        return admin.describeConfigs(topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList()).all().get();
    }

    @Test
    void historyTopicsKeepTheRetentionAskedForAndItCanBeChanged() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0, null)) {
            TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1, 48);
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (Admin admin = Admin.create(p)) {
                for (Config c : configs(admin, TopicSetup.HISTORY).values())
                    assertEquals(Long.toString(48 * 3_600_000L), c.get(TopicConfig.RETENTION_MS_CONFIG).value());
                Config frontiers = configs(admin, List.of(Topics.GC_FRONTIERS)).values().iterator().next();
                assertEquals("compact,delete", frontiers.get(TopicConfig.CLEANUP_POLICY_CONFIG).value(), "checkpoints: compacted, and gone with the history");
                assertEquals(Long.toString(48 * 3_600_000L), frontiers.get(TopicConfig.RETENTION_MS_CONFIG).value());
                Config verdicts = configs(admin, List.of(Topics.VERDICTS)).values().iterator().next();
                assertNotEquals(Long.toString(48 * 3_600_000L), verdicts.get(TopicConfig.RETENTION_MS_CONFIG).value(), "verdicts keep the broker's default");
                // run again with another horizon: existing topics follow
                TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1, 24);
                for (Config c : configs(admin, TopicSetup.HISTORY).values())
                    assertEquals(Long.toString(24 * 3_600_000L), c.get(TopicConfig.RETENTION_MS_CONFIG).value());
                Config again = configs(admin, List.of(Topics.GC_FRONTIERS)).values().iterator().next();
                assertEquals(Long.toString(24 * 3_600_000L), again.get(TopicConfig.RETENTION_MS_CONFIG).value());
            }
        }
    }
}
