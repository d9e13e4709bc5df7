package org.cobraverify.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Reads verifier checkpoints off {@code cobra.gc-frontiers} (one partition; each checkpoint is the chunks
 * one Kafka transaction published, keyed verifier/round/chunk, rounds increasing with the offset): the
 * one a committed offset names ({@link #read}), the one just before a round ({@link #find}), and the
 * oldest still retained ({@link #oldest}). Read committed: a checkpoint of a transaction that aborted is
 * never seen.
 */
public final class Checkpoints {
    private Checkpoints() {}

    /** A checkpoint's chunks and where its chunk 0 lies. */
    public record Found(long offset, List<VerifierCheckpoint> chunks) {
        public long round() { return chunks.get(0).getRound(); }
    }

    private static KafkaConsumer<String, byte[]> consumer(KafkaConnection kafka) {
        Properties p = kafka.properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(VerifierService.MAX_RECORD_BYTES));
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(2 * VerifierService.MAX_RECORD_BYTES));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "64");
        return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The whole checkpoint of {@code verifier}'s round {@code round} whose chunk 0 is at {@code offset}.
     * Throws {@link IllegalStateException} naming the topic and offset if it is not there within {@code timeout}.
     */
    public static List<VerifierCheckpoint> read(KafkaConnection kafka, String topic, WireFormat wire, String verifier, long offset, long round, Duration timeout) {
        try (KafkaConsumer<String, byte[]> c = consumer(kafka)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seek(tp, offset);
            return collect(c, tp, wire, verifier, round, timeout, topic + "@" + offset);
        }
    }

    private static List<VerifierCheckpoint> collect(KafkaConsumer<String, byte[]> c, TopicPartition tp, WireFormat wire, String verifier, long round,
                                                    Duration timeout, String where) {
        List<VerifierCheckpoint> out = new ArrayList<>();
        int want = -1;
        long deadline = System.nanoTime() + timeout.toNanos();
        long end = c.endOffsets(List.of(tp)).get(tp);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                VerifierCheckpoint v = decode(wire, r);
                if (v == null || !v.getVerifier().equals(verifier) || v.getRound() != round) continue;
                out.add(v);
                want = v.getChunks();
                if (out.size() == want) return out;
            }
            if (c.position(tp) >= end && out.size() < Math.max(1, want)) break;
        }
        throw new IllegalStateException("the checkpoint of " + verifier + "'s round " + round + " at " + where + " is incomplete: "
                + out.size() + " of " + (want < 0 ? "?" : Integer.toString(want)) + " chunks found");
    }

    private static VerifierCheckpoint decode(WireFormat wire, ConsumerRecord<String, byte[]> r) {
        if (r.value() == null) return null;
        try {
            return wire.decode(r.value(), VerifierCheckpoint.class);
        } catch (MalformedRecordException e) {
            return null;
        }
    }

    /** The first committed checkpoint record at or after {@code offset} (any verifier), or null if none. */
    private static ConsumerRecord<String, byte[]> probe(KafkaConsumer<String, byte[]> c, TopicPartition tp, long offset, long end) {
        c.seek(tp, offset);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(100))) return r;
            if (c.position(tp) >= end) return null;
        }
        return null;
    }

    /**
     * The latest checkpoint of {@code verifier} for a round at most {@code round}, found by binary search over
     * the offsets (the rounds of one verifier's checkpoints increase with them); null if every retained
     * checkpoint is later. Cost: a few dozen small reads, whatever the topic's length.
     */
    public static Found find(KafkaConnection kafka, String topic, WireFormat wire, String verifier, long round) {
        try (KafkaConsumer<String, byte[]> c = consumer(kafka)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            long lo = c.beginningOffsets(List.of(tp)).get(tp), end = c.endOffsets(List.of(tp)).get(tp);
            // the first offset whose record has a round > round: everything before it has round <= round
            long a = lo, b = end;
            while (a < b) {
                long mid = a + (b - a) / 2;
                ConsumerRecord<String, byte[]> r = probe(c, tp, mid, end);
                VerifierCheckpoint v = r == null ? null : decode(wire, r);
                if (r == null) { b = mid; continue; }
                if (v != null && v.getRound() > round) b = mid; else a = r.offset() + 1;
            }
            // walk back from there to the chunk 0 of the last checkpoint of this verifier
            for (long at = a - 1; at >= lo; at--) {
                ConsumerRecord<String, byte[]> r = probe(c, tp, at, end);
                if (r == null || r.offset() > at) continue; // a marker or an aborted record: step over it
                VerifierCheckpoint v = decode(wire, r);
                if (v == null || !v.getVerifier().equals(verifier) || v.getRound() > round) continue;
                if (v.getChunk() != 0) { at = Math.max(lo, r.offset() - v.getChunk()) + 1; continue; }
                c.seek(tp, r.offset());
                return new Found(r.offset(), collect(c, tp, wire, verifier, v.getRound(), Duration.ofSeconds(30), topic + "@" + r.offset()));
            }
            return null;
        }
    }

    /** The round of the oldest checkpoint of {@code verifier} still on the topic, or -1 if there is none. */
    public static long oldest(KafkaConnection kafka, String topic, WireFormat wire, String verifier) {
        try (KafkaConsumer<String, byte[]> c = consumer(kafka)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            long lo = c.beginningOffsets(List.of(tp)).get(tp), end = c.endOffsets(List.of(tp)).get(tp);
            c.seek(tp, lo);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    VerifierCheckpoint v = decode(wire, r);
                    if (v != null && v.getVerifier().equals(verifier) && v.getChunk() == 0) return v.getRound();
                }
                if (c.position(tp) >= end) break;
            }
            return -1;
        }
    }
}
