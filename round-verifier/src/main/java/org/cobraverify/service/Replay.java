package org.cobraverify.service;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * Rounds {@code from..to} of the rounds topic decided again (docs/DESIGN.md §8.4): from the checkpoint a verifier published
 * just before round {@code from} (found by binary search, so the cost does not depend on how far back it lies), with the
 * frontier logs of the keys the window touches; the rounds between that checkpoint and {@code from} are decided silently.
 * Nothing it does touches the live verifier's state or its verdict topic. {@link #open} finds where to start,
 * {@link #run} decides the window; {@link Refused} says, in words, why a window cannot be replayed.
 */
public final class Replay implements AutoCloseable {
    /** Why a window cannot be replayed (no checkpoint early enough, or the input is no longer retained). */
    public static final class Refused extends RuntimeException {
        Refused(String why) { super(why); }
    }

    /** The topics a replay reads: the rounds and the checkpoints (the topology's and the service's names). */
    public record Topics(String rounds, String checkpoints) {}

    private final WireFormat wire;
    private final RoundVerifier rv;
    private final KafkaConsumer<String, byte[]> cons;
    private final TopicPartition tp;
    private final long end, from;
    private final Long to;

    private Replay(WireFormat wire, RoundVerifier rv, KafkaConsumer<String, byte[]> cons, TopicPartition tp, long end, long from, Long to) {
        this.wire = wire;
        this.rv = rv;
        this.cons = cons;
        this.tp = tp;
        this.end = end;
        this.from = from;
        this.to = to;
    }

    /**
     * Prepares the replay of rounds {@code from..to} ({@code to} null: up to the last round on the topic now) from the
     * checkpoints of {@code verifierId}, saying what it does on {@code notes} (one line each).
     *
     * @throws Refused when no retained checkpoint and no retained input can start the window
     */
    public static Replay open(KafkaConnection kafka, WireFormat wire, Topics topics, String verifierId, RoundSettings settings, long from, Long to,
                              Consumer<String> notes) {
        long t0 = System.nanoTime();
        RoundVerifier rv = new RoundVerifier(settings);
        KafkaConsumer<String, byte[]> cons = consumer(kafka);
        try {
            TopicPartition tp = new TopicPartition(topics.rounds(), 0);
            cons.assign(List.of(tp));
            long begin = cons.beginningOffsets(List.of(tp)).get(tp), end = cons.endOffsets(List.of(tp)).get(tp);
            long startAt = 0;
            if (from > 0) {
                Checkpoints.Found f = Checkpoints.find(kafka, topics.checkpoints(), wire, verifierId, from - 1);
                if (f == null && begin == 0) {
                    // no checkpoint that early, but the input is all there: rebuild from round 0, printing only what was asked
                    notes.accept("no checkpoint of " + verifierId + " before round " + from + " is retained on " + topics.checkpoints()
                            + "; " + topics.rounds() + " still holds every round, so rounds 0 to " + (from - 1) + " are replayed first, without verdicts");
                } else if (f == null) {
                    long oldest = Checkpoints.oldest(kafka, topics.checkpoints(), wire, verifierId);
                    throw new Refused("no checkpoint of " + verifierId + " before round " + from + " is retained on " + topics.checkpoints()
                            + (oldest < 0 ? " (there is none: is the verifier publishing checkpoints?)" : "; the oldest round that can be replayed is " + (oldest + 1)
                            + (begin == 0 ? " (or 0, from the beginning of " + topics.rounds() + ")" : "")));
                } else {
                    importFrontierLogs(kafka, wire, rv, f, cons, tp, end, to, notes);
                    rv.restore(f.chunks(), RoundVerifier.REPLAY_INCARNATION);
                    startAt = f.chunks().get(0).getInputOffset();
                    notes.accept(String.format("starting from the checkpoint of round %d (%s@%d), %d held transactions, in %.2f s", f.round(),
                            topics.checkpoints(), f.offset(), f.chunks().stream().mapToInt(c -> c.getHeld().size()).sum(), (System.nanoTime() - t0) / 1e9));
                }
            }
            if (startAt < begin) {
                long oldest = Checkpoints.oldest(kafka, topics.checkpoints(), wire, verifierId);
                throw new Refused("round " + from + " is older than what " + topics.rounds() + " retains (it starts at offset " + begin
                        + ")" + (oldest < 0 ? "" : "; the oldest round that can be replayed is about " + (oldest + 1)));
            }
            cons.seek(tp, startAt);
            return new Replay(wire, rv, cons, tp, end, from, to);
        } catch (RuntimeException e) {
            cons.close();
            rv.close();
            throw e;
        }
    }

    /**
     * The frontier logs the checkpoint's verifier published with it (docs/DESIGN.md §7.9): without them, once frontier
     * writes were collected as data, reads of those keys could not be judged. Only those of the keys the window needs: its
     * own transactions' and the checkpoint's, so that the cost follows the window replayed, not the key space the run
     * touched since it began (§8.4).
     */
    private static void importFrontierLogs(KafkaConnection kafka, WireFormat wire, RoundVerifier rv, Checkpoints.Found f,
                                           KafkaConsumer<String, byte[]> cons, TopicPartition tp, long end, Long to, Consumer<String> notes) {
        VerifierCore core = f.chunks().get(0).getCore();
        if (core == null || core.getFrontierRecords() <= 0) return;
        if (!core.getFrontierLogsPublished()) {
            notes.accept("the checkpoint's verifier did not publish its frontier logs (no " + FrontierLogs.TOPIC
                    + ", or an older build): rounds that read keys collected as data will be unknown");
            return;
        }
        long tk = System.nanoTime();
        Set<String> keys = keysOf(f.chunks(), cons, tp, f.chunks().get(0).getInputOffset(), end, to, wire);
        long[] n = FrontierLogs.importSome(kafka, wire, rv.engine(), keys::contains, f.round());
        notes.accept(String.format("%d frontier logs of the %d keys the window touches read from %s (of %d records), in %.2f s",
                n[1], keys.size(), FrontierLogs.TOPIC, n[0], (System.nanoTime() - tk) / 1e9));
    }

    /**
     * Decides the window's rounds in order, handing each verdict of round {@code from} or later to {@code each}, which
     * returns false to stop; the rounds before {@code from} are decided silently. Returns how many verdicts it handed.
     */
    public int run(Predicate<Verdict> each) {
        int[] decided = {0};
        scan(cons, tp, end, wire, (type, bytes) -> {
            if (type.endsWith(".Transaction")) { rv.add(wire.decode(bytes, Transaction.class)); return true; }
            if (!type.endsWith(".RoundEnd")) return true;
            RoundEnd e = wire.decode(bytes, RoundEnd.class);
            RoundVerifier.Closed closed = rv.closeRound(e);
            if (e.getRound() < from) { rv.replay(List.of(closed)); return true; }
            decided[0]++;
            return each.test(rv.decide(List.of(closed)).get(0)) && (to == null || e.getRound() < to);
        });
        return decided[0];
    }

    /** What {@link #scan} hands each record: its type's full name and its bytes; false to stop. */
    private interface RecordVisitor { boolean visit(String type, byte[] bytes); }

    /**
     * Reads {@code tp} from the consumer's position up to offset {@code end}, handing each record to {@code each} until it
     * returns false; a record whose type cannot be read is skipped (the live verifier dead-lettered it too).
     */
    private static void scan(KafkaConsumer<String, byte[]> cons, TopicPartition tp, long end, WireFormat wire, RecordVisitor each) {
        while (cons.position(tp) < end) {
            for (ConsumerRecord<String, byte[]> r : cons.poll(Duration.ofMillis(200))) {
                if (r.offset() >= end) return;
                String type;
                try {
                    type = wire.typeOf(r.value());
                } catch (MalformedRecordException e) {
                    continue;
                }
                if (!each.visit(type, r.value())) return;
            }
        }
    }

    /**
     * The keys a replay from {@code chunks} (a checkpoint) through round {@code to} (null: the end) touches: those of the
     * checkpoint's held transactions and of every transaction on {@code tp} from {@code from} to the window's last round.
     * Leaves {@code cons} wherever it stopped (the caller seeks).
     */
    private static Set<String> keysOf(List<VerifierCheckpoint> chunks, KafkaConsumer<String, byte[]> cons, TopicPartition tp, long from, long end,
                                      Long to, WireFormat wire) {
        Set<String> keys = new HashSet<>();
        for (VerifierCheckpoint c : chunks)
            for (HeldTxn h : c.getHeld()) for (TxnOp o : h.getTxn().getOps()) keys.add(o.getKey().toString());
        cons.seek(tp, from);
        scan(cons, tp, end, wire, (type, bytes) -> {
            if (type.endsWith(".Transaction")) {
                for (TxnOp o : wire.decode(bytes, Transaction.class).getOps()) keys.add(o.getKey().toString());
                return true;
            }
            return to == null || !type.endsWith(".RoundEnd") || wire.decode(bytes, RoundEnd.class).getRound() < to;
        });
        return keys;
    }

    private static KafkaConsumer<String, byte[]> consumer(KafkaConnection kafka) {
        Properties p = kafka.properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(32 << 20));
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100000");
        return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
        cons.close();
        rv.close();
    }
}
