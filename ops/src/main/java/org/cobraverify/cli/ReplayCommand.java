package org.cobraverify.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.report.HtmlReport;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.service.FrontierLogs;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.service.Checkpoints;
import org.cobraverify.topology.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra replay}: re-verifies rounds N..M of the retained history. It loads the verifier's checkpoint
 * published just before round N on {@code cobra.gc-frontiers} (found by binary search, so the cost does not
 * depend on how far back N lies), decides silently any rounds between that checkpoint and N, then decides
 * N..M from {@code cobra.rounds} and prints one verdict per round. Nothing it does touches the live
 * verifier's state or {@code cobra.verdicts}.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Re-verifies rounds N..M from cobra.rounds, starting from the verifier's checkpoint before round N.",
                "Exit 0 if every round is accepted, 1 if one is rejected, 3 if the last is unknown, 2 on a usage or Kafka error."})
public final class ReplayCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--from-round", required = true, paramLabel = "N", description = "First round to verify.")
    long from;

    @Option(names = "--to-round", paramLabel = "M", description = "Last round to verify (default: the last one on the topic now).")
    Long to;

    @picocli.CommandLine.Mixin
    RoundCheckOptions check = new RoundCheckOptions();

    @Option(names = "--json", description = "One JSON object per verdict, one per line.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "Write the certificate of the first new violation replayed as a self-contained web page.")
    Path html;

    @Option(names = "--out-topic", paramLabel = "TOPIC", description = "Publish the verdicts to this topic as well (never cobra.verdicts).")
    String outTopic;

    @Option(names = "--verifier", paramLabel = "ID", description = "Whose checkpoints to start from (default: ${DEFAULT-VALUE}).")
    String verifier = "cobra-verifier-0";

    @Override
    public Integer call() {
        if (outTopic != null && outTopic.equals(Topics.VERDICTS)) {
            System.err.println("cobra replay: --out-topic must not be " + Topics.VERDICTS + " (that topic holds the pipeline's own verdicts)");
            return 2;
        }
        if (to != null && to < from) {
            System.err.println("cobra replay: --to-round " + to + " is before --from-round " + from);
            return 2;
        }
        long t0 = System.nanoTime();
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        WireFormat wire = KafkaSchemaCatalog.wireFormat(kafka);
        try (RoundVerifier rv = new RoundVerifier(check.settings(CheckOptions.defaults()));
             KafkaConsumer<String, byte[]> cons = consumer(kafka);
             KafkaProducer<String, byte[]> prod = outTopic == null ? null : producer(kafka)) {
            TopicPartition tp = new TopicPartition(Topics.ROUNDS, 0);
            cons.assign(List.of(tp));
            long begin = cons.beginningOffsets(List.of(tp)).get(tp), end = cons.endOffsets(List.of(tp)).get(tp);
            long startAt = 0;
            if (from > 0) {
                Checkpoints.Found f = Checkpoints.find(kafka, Topics.GC_FRONTIERS, wire, verifier, from - 1);
                if (f == null && begin == 0) {
                    // no checkpoint that early, but the input is all there: rebuild from round 0, printing only what was asked
                    System.err.println("cobra replay: no checkpoint of " + verifier + " before round " + from + " is retained on " + Topics.GC_FRONTIERS
                            + "; " + Topics.ROUNDS + " still holds every round, so rounds 0 to " + (from - 1) + " are replayed first, without verdicts");
                } else if (f == null) {
                    long oldest = Checkpoints.oldest(kafka, Topics.GC_FRONTIERS, wire, verifier);
                    System.err.println("cobra replay: no checkpoint of " + verifier + " before round " + from + " is retained on " + Topics.GC_FRONTIERS
                            + (oldest < 0 ? " (there is none: is the verifier publishing checkpoints?)" : "; the oldest round that can be replayed is " + (oldest + 1)
                            + (begin == 0 ? " (or 0, from the beginning of " + Topics.ROUNDS + ")" : "")));
                    return 2;
                }
                if (f != null) {
                // the frontier logs the checkpoint's verifier published with it (docs/DESIGN.md §7.9): without them, once
                // frontier writes were collected as data, reads of those keys could not be judged
                VerifierCore core = f.chunks().get(0).getCore();
                if (core != null && core.getFrontierRecords() > 0) {
                    if (core.getFrontierLogsPublished()) {
                        // only the logs of the keys the window needs: its own transactions' and the checkpoint's, so that the
                        // cost follows the window replayed, not the key space the run touched since it began (§8.4)
                        long tk = System.nanoTime();
                        Set<String> keys = keysOf(f.chunks(), cons, tp, f.chunks().get(0).getInputOffset(), end, to, wire);
                        long[] n = FrontierLogs.importSome(kafka, wire, rv.engine(), keys::contains, f.round());
                        System.err.printf("cobra replay: %d frontier logs of the %d keys the window touches read from %s (of %d records), in %.2f s%n",
                                n[1], keys.size(), FrontierLogs.TOPIC, n[0], (System.nanoTime() - tk) / 1e9);
                    } else System.err.println("cobra replay: the checkpoint's verifier did not publish its frontier logs (no " + FrontierLogs.TOPIC
                            + ", or an older build): rounds that read keys collected as data will be unknown");
                }
                rv.restore(f.chunks(), RoundVerifier.REPLAY_INCARNATION);
                startAt = f.chunks().get(0).getInputOffset();
                System.err.printf("cobra replay: starting from the checkpoint of round %d (%s@%d), %d held transactions, in %.2f s%n", f.round(),
                        Topics.GC_FRONTIERS, f.offset(), f.chunks().stream().mapToInt(c -> c.getHeld().size()).sum(), (System.nanoTime() - t0) / 1e9);
                }
            }
            if (startAt < begin) {
                long oldest = Checkpoints.oldest(kafka, Topics.GC_FRONTIERS, wire, verifier);
                System.err.println("cobra replay: round " + from + " is older than what " + Topics.ROUNDS + " retains (it starts at offset " + begin
                        + ")" + (oldest < 0 ? "" : "; the oldest round that can be replayed is about " + (oldest + 1)));
                return 2;
            }
            cons.seek(tp, startAt);
            int rejected = 0, decided = 0;
            boolean pageWritten = false;
            Outcome last = null;
            boolean done = false;
            while (!done && cons.position(tp) < end) {
                for (ConsumerRecord<String, byte[]> r : cons.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end) { done = true; break; }
                    String type;
                    try {
                        type = wire.typeOf(r.value());
                    } catch (MalformedRecordException e) {
                        continue; // the live verifier dead-lettered it too
                    }
                    if (type.endsWith(".Transaction")) { rv.add(wire.decode(r.value(), Transaction.class)); continue; }
                    if (!type.endsWith(".RoundEnd")) continue;
                    RoundEnd e = wire.decode(r.value(), RoundEnd.class);
                    RoundVerifier.Closed closed = rv.closeRound(e);
                    if (e.getRound() < from) { rv.replay(List.of(closed)); continue; }
                    Verdict v = rv.decide(List.of(closed)).get(0);
                    decided++;
                    last = v.getOutcome();
                    if (last == Outcome.REJECT) rejected++;
                    if (html != null && !pageWritten && v.getCertificate() != null) {
                        try {
                            Files.writeString(html, HtmlReport.render(VerdictServer.certificate(v.getCertificate()), Topics.ROUNDS + ", round " + v.getRound()),
                                    StandardCharsets.UTF_8);
                        } catch (IOException io) {
                            System.err.println("cobra replay: cannot write the page to " + html + ": " + io.getMessage());
                            return 2;
                        }
                        pageWritten = true;
                        System.err.println("cobra replay: the certificate of round " + v.getRound() + " is in " + html);
                    }
                    System.out.println(json ? VerdictLines.json(v) : VerdictLines.full(v));
                    if (prod != null) prod.send(new ProducerRecord<>(outTopic, Long.toString(v.getRound()), wire.encode(outTopic, v)));
                    if (to != null && e.getRound() >= to) { done = true; break; }
                }
            }
            if (prod != null) prod.flush();
            System.err.printf("cobra replay: %d round(s) verified in %.2f s%n", decided, (System.nanoTime() - t0) / 1e9);
            if (decided == 0) {
                System.err.println("cobra replay: no round " + from + (to == null ? " or later" : ".." + to) + " on " + Topics.ROUNDS + " yet");
                return 2;
            }
            return rejected > 0 ? 1 : last == Outcome.UNKNOWN ? 3 : 0;
        } catch (RuntimeException e) {
            String refused = KafkaRefusal.explain(e, kafka);
            System.err.println("cobra replay: " + (refused != null ? refused : e.getMessage()));
            return 2;
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
        while (cons.position(tp) < end) {
            for (ConsumerRecord<String, byte[]> r : cons.poll(Duration.ofMillis(200))) {
                if (r.offset() >= end) return keys;
                String type;
                try {
                    type = wire.typeOf(r.value());
                } catch (MalformedRecordException e) {
                    continue;
                }
                if (type.endsWith(".Transaction")) {
                    for (TxnOp o : wire.decode(r.value(), Transaction.class).getOps()) keys.add(o.getKey().toString());
                } else if (to != null && type.endsWith(".RoundEnd") && wire.decode(r.value(), RoundEnd.class).getRound() >= to) return keys;
            }
        }
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

    private static KafkaProducer<String, byte[]> producer(KafkaConnection kafka) {
        Properties p = kafka.properties();
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }
}
