package org.cobraverify.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.report.HtmlReport;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.service.Replay;
import org.cobraverify.topology.Topics;
import org.cobraverify.verifier.Verifier;
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
        try {
            check.resolveIsolation();
        } catch (IllegalArgumentException e) {
            System.err.println("cobra replay: " + e.getMessage());
            return 2;
        }
        String pageRefused = OutputFiles.refusal(html, OutputFiles.Kind.PAGE);
        if (pageRefused != null) {
            System.err.println("cobra replay: " + pageRefused);
            return 2;
        }
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
        Replay.Topics topics = new Replay.Topics(Topics.ROUNDS, Topics.GC_FRONTIERS);
        try (Replay replay = Verifier.replay(kafka, wire, topics, verifier, check.options(CheckOptions.defaults()), from, to,
                     line -> System.err.println("cobra replay: " + line));
             KafkaProducer<String, byte[]> prod = outTopic == null ? null : producer(kafka)) {
            int[] rejected = {0};
            boolean[] pageWritten = {false};
            Outcome[] last = {null};
            String[] failed = {null};
            int decided = replay.run(v -> {
                last[0] = v.getOutcome();
                if (last[0] == Outcome.REJECT) rejected[0]++;
                if (html != null && !pageWritten[0] && v.getCertificate() != null) {
                    try {
                        Files.writeString(html, HtmlReport.render(VerdictServer.certificate(v.getCertificate()), Topics.ROUNDS + ", round " + v.getRound()),
                                StandardCharsets.UTF_8);
                    } catch (IOException io) {
                        failed[0] = "cannot write the page to " + html + ": " + io.getMessage();
                        return false;
                    }
                    pageWritten[0] = true;
                    System.err.println("cobra replay: the certificate of round " + v.getRound() + " is in " + html);
                }
                System.out.println(json ? VerdictLines.json(v) : VerdictLines.full(v));
                if (prod != null) prod.send(new ProducerRecord<>(outTopic, Long.toString(v.getRound()), wire.encode(outTopic, v)));
                return true;
            });
            if (failed[0] != null) {
                System.err.println("cobra replay: " + failed[0]);
                return 2;
            }
            if (prod != null) prod.flush();
            System.err.printf("cobra replay: %d round(s) verified in %.2f s%n", decided, (System.nanoTime() - t0) / 1e9);
            if (decided == 0) {
                System.err.println("cobra replay: no round " + from + (to == null ? " or later" : ".." + to) + " on " + Topics.ROUNDS + " yet");
                return 2;
            }
            return rejected[0] > 0 ? 1 : last[0] == Outcome.UNKNOWN ? 3 : 0;
        } catch (Replay.Refused e) {
            System.err.println("cobra replay: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            String refused = KafkaRefusal.explain(e, kafka);
            System.err.println("cobra replay: " + (refused != null ? refused : e.getMessage()));
            return 2;
        }
    }

    private static KafkaProducer<String, byte[]> producer(KafkaConnection kafka) {
        Properties p = kafka.properties();
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }
}
