package org.cobraverify.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.schemas.FrontierLogEntry;
import org.cobraverify.schemas.FrontierLogRecord;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.TopicScan;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The compacted topic {@code cobra.frontier-logs}: per data key, its frontier log as the verifier's timeline has it at
 * its latest checkpoint (docs/DESIGN.md §7.9). The verifier publishes the logs that changed since its last checkpoint
 * in the checkpoint's own transaction, so a reader of committed records sees, with every checkpoint, the logs it
 * needs; a verifier resumed into a store without logs imports them: a standby on another host all of them, a replay only
 * those of the keys its window touches.
 *
 * <p>Bound: one record per key ever collected as data, as the frontier family of the collected-writes store on disk
 * (the key space; docs/DESIGN.md §9.1).
 */
public final class FrontierLogs {
    public static final String TOPIC = "cobra.frontier-logs";

    private FrontierLogs() {}

    /** The record of {@code key}'s log, published after round {@code round}. */
    public static FrontierLogRecord record(String key, long round, List<FrontierEntry> log) {
        List<FrontierLogEntry> entries = new ArrayList<>(log.size());
        for (FrontierEntry e : log) entries.add(new FrontierLogEntry(e.value(), e.writer(), e.round(), e.incarnation()));
        return new FrontierLogRecord(key, round, entries);
    }

    /** The log a record holds. */
    public static List<FrontierEntry> log(FrontierLogRecord r) {
        List<FrontierEntry> out = new ArrayList<>(r.getEntries().size());
        for (FrontierLogEntry e : r.getEntries())
            out.add(new FrontierEntry(e.getValue() == null ? null : e.getValue().toString(), e.getWriter() == null ? null : e.getWriter().toString(),
                    e.getRound(), e.getIncarnation()));
        return out;
    }

    /**
     * Reads every committed log on the topic into {@code verifier}'s store (the latest record of a key wins); returns how
     * many records. A record that cannot be decoded stops it (a log left out could let a read pass): {@link IllegalStateException}
     * naming topic, partition and offset. Zero when the topic does not exist.
     */
    public static int importAll(KafkaConnection kafka, WireFormat wire, IncrementalVerifier verifier) {
        return (int) Math.min(Integer.MAX_VALUE, importSome(kafka, wire, verifier, k -> true)[1]);
    }

    /**
     * As {@link #importAll}, but only the logs of the keys {@code wanted} accepts (each record's Kafka key is its data key, so
     * the others are not even decoded): what a replay needs, the keys its window and its checkpoint's transactions touch
     * (docs/DESIGN.md §8.4). Returns the records read and those imported.
     */
    public static long[] importSome(KafkaConnection kafka, WireFormat wire, IncrementalVerifier verifier, Predicate<String> wanted) {
        return importSome(kafka, wire, verifier, wanted, -1);
    }

    /** What {@link #importSome} reads of a record to choose it: its key and the checkpoint's round it was published with. */
    private static final Schema KEY_AND_ROUND = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"FrontierLogRecord\",\"namespace\":\"org.cobraverify.schemas\",\"fields\":["
            + "{\"name\":\"key\",\"type\":\"string\"},{\"name\":\"round\",\"type\":\"long\"}]}");

    /**
     * As above, for a verifier resumed from the checkpoint of round {@code asOf} (not negative): of each wanted key's records,
     * only one is imported, the first published at or after that checkpoint, or else the latest. The topic is compacted lazily:
     * while it is not, a key has a record per checkpoint that changed it (docs/DESIGN.md §8.4 measures how many), and the one published with the first checkpoint from {@code asOf} on still holds the entries
     * the verifier had then (a later one may have dropped them, leaving a key that cannot be known, docs/DESIGN.md §7.9). The
     * heap holds one record per wanted key meanwhile.
     */
    public static long[] importSome(KafkaConnection kafka, WireFormat wire, IncrementalVerifier verifier, Predicate<String> wanted,
                                    long asOf) {
        if (asOf >= 0) {
            Map<String, ConsumerRecord<String, byte[]>> chosen = new HashMap<>();
            Set<String> settled = new HashSet<>(); // keys whose chosen record is from asOf on
            long[] read = new long[2];
            try {
                TopicScan.forEach(kafka, TOPIC, new ByteArrayDeserializer(), Duration.ofMinutes(10), r -> {
                    read[0]++;
                    if (r.value() == null || r.key() == null || !wanted.test(r.key()) || settled.contains(r.key())) return;
                    long round;
                    try {
                        round = (Long) wire.decodeProjected(r.value(), KEY_AND_ROUND).get("round");
                    } catch (MalformedRecordException e) {
                        throw new IllegalStateException(TOPIC + "-" + r.partition() + "@" + r.offset() + ": " + e.getMessage()
                                + "; without that key's frontier log reads of it could not be judged", e);
                    }
                    chosen.put(r.key(), r);
                    if (round >= asOf) settled.add(r.key());
                });
            } catch (TopicScan.NoSuchTopic e) {
                return read;
            }
            for (ConsumerRecord<String, byte[]> r : chosen.values()) if (importRecord(wire, verifier, wanted, r)) read[1]++;
            return read;
        }
        // one record at a time into the store (a later record of a key replaces the earlier: the topic may not be compacted
        // yet), never the whole topic on the heap: it has a record per key
        long[] read = new long[2];
        try {
            TopicScan.forEach(kafka, TOPIC, new ByteArrayDeserializer(), Duration.ofMinutes(10), r -> {
                read[0]++;
                if (r.key() != null && !wanted.test(r.key())) return;
                if (importRecord(wire, verifier, wanted, r)) read[1]++;
            });
        } catch (TopicScan.NoSuchTopic e) {
            return new long[2];
        }
        return read;
    }

    /** Imports one record's log, if it has one and its key is wanted; a record that cannot be decoded stops the import. */
    private static boolean importRecord(WireFormat wire, IncrementalVerifier verifier, Predicate<String> wanted,
                                        ConsumerRecord<String, byte[]> r) {
        if (r.value() == null) return false;
        FrontierLogRecord f;
        try {
            f = wire.decode(r.value(), FrontierLogRecord.class);
        } catch (MalformedRecordException e) {
            throw new IllegalStateException(TOPIC + "-" + r.partition() + "@" + r.offset() + ": " + e.getMessage()
                    + "; without that key's frontier log reads of it could not be judged", e);
        }
        if (!wanted.test(f.getKey().toString())) return false;
        verifier.importFrontierLog(f.getKey().toString(), log(f));
        return true;
    }
}
