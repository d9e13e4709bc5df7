package org.cobraverify.ops.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.cobraverify.schemas.serde.TopicRecords;
import org.cobraverify.service.VerifierService;
import org.cobraverify.topology.Topics;
import org.junit.jupiter.api.Test;

/** {@link TopicRecords}, which a schema registry is told at start, names the topics the pipeline really writes. */
class TopicRecordsTest {
    @Test
    void theTableNamesEveryTopicThePipelineWrites() {
        VerifierService.Settings v = VerifierService.Settings.defaults("127.0.0.1:9");
        assertEquals(Set.of(Topics.OPS, Topics.TXNS, Topics.ROUNDS, Topics.VERDICTS, Topics.GC_FRONTIERS, Topics.DEAD_LETTERS,
                Topics.FRONTIER_LOGS), TopicRecords.PIPELINE.keySet());
        assertEquals(Topics.FRONTIER_LOGS, org.cobraverify.service.FrontierLogs.TOPIC);
        assertEquals(Set.of(Topics.VERDICTS, Topics.GC_FRONTIERS, Topics.DEAD_LETTERS), Set.of(v.verdictsTopic(), v.checkpointsTopic(), v.deadLettersTopic()),
                "the verifier's defaults are the table's");
    }
}
