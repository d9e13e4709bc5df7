package org.cobraverify.schemas.serde;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.OperationBatch;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;

/**
 * The record types the pipeline writes on each of its topics (docs/DESIGN.md §3.1), in this build's versions: what a
 * schema registry is told at start, and which topics carry more than one type (their subjects name the record too,
 * {@link RegistryFraming.Naming#TOPIC}). The topology's state-store changelogs carry one type each and are registered
 * on first use. {@code TopicRecordsTest} holds this table to the topic names of the topology and the verifier.
 */
public final class TopicRecords {
    private TopicRecords() {}

    /** Topic name to the record types written on it; a topic not listed carries one type. */
    public static final Map<String, List<Schema>> PIPELINE;

    static {
        Map<String, List<Schema>> m = new LinkedHashMap<>();
        m.put("cobra.ops", List.of(Operation.getClassSchema(), OperationBatch.getClassSchema(), SessionEnd.getClassSchema()));
        m.put("cobra.txns", List.of(Transaction.getClassSchema(), SessionStart.getClassSchema(), SessionEnd.getClassSchema()));
        m.put("cobra.rounds", List.of(Transaction.getClassSchema(), RoundEnd.getClassSchema()));
        m.put("cobra.verdicts", List.of(Verdict.getClassSchema()));
        m.put("cobra.gc-frontiers", List.of(VerifierCheckpoint.getClassSchema()));
        m.put("cobra.dead-letters", List.of(DeadLetter.getClassSchema()));
        m.put("cobra.frontier-logs", List.of(org.cobraverify.schemas.FrontierLogRecord.getClassSchema()));
        PIPELINE = java.util.Collections.unmodifiableMap(m);
    }

    /** Whether {@code topic} carries more than one record type. */
    public static boolean mixed(String topic) {
        List<Schema> l = PIPELINE.get(topic);
        return l != null && l.size() > 1;
    }
}
