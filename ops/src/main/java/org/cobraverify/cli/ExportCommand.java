package org.cobraverify.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.TxnRecord;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.TopicScan;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.cobraverify.verifier.Verifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra export}: the transactions on a topic (committed records, up to its current end) as a
 * cobra-jsonl history, each session's transactions in session order, so that {@code cobra verify} can
 * re-check a window one-shot (another mode, another version) and compare with the pipeline's verdicts.
 */
@Command(name = "export", mixinStandardHelpOptions = true, footer = "Exit codes: 0 written, 2 could not run (bad options, the cluster unreachable or refusing, the file not writable).",
        description = {"Writes the transactions on a topic (default cobra.txns; cobra.rounds works too) as a cobra-jsonl history.",
                "Then: cobra verify FILE"})
public final class ExportCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--topic", description = "Topic to export (default: ${DEFAULT-VALUE}).")
    String topic = Topics.TXNS;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "History file to write (.gz compresses).")
    Path out;

    @Option(names = "--max-round", paramLabel = "N", description = "Only transactions of rounds up to N (cobra.rounds).")
    Long maxRound;

    @Override
    public Integer call() throws Exception {
        String refused = OutputFiles.refusal(out, OutputFiles.Kind.HISTORY);
        if (refused != null) {
            System.err.println("cobra export: " + refused);
            return 2;
        }
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        WireFormat wire = KafkaSchemaCatalog.wireFormat(kafka);
        List<Transaction> txns = new ArrayList<>();
        int skipped = 0;
        List<ConsumerRecord<String, byte[]>> records;
        try {
            records = TopicScan.readAll(kafka, topic, new ByteArrayDeserializer(), Duration.ofMinutes(10));
        } catch (TopicScan.NoSuchTopic e) {
            System.err.println("cobra export: " + e.getMessage());
            return 2;
        }
        for (ConsumerRecord<String, byte[]> r : records) {
            try {
                if (!wire.typeOf(r.value()).equals(Transaction.getClassSchema().getFullName())) continue;
                Transaction t = wire.decode(r.value(), Transaction.class);
                if (maxRound != null && r.key() != null && Long.parseLong(r.key()) > maxRound) continue; // cobra.rounds: key = round
                txns.add(t);
            } catch (MalformedRecordException e) {
                System.err.printf("cobra export: skipped %s/%d@%d: %s%n", r.topic(), r.partition(), r.offset(), e.getMessage());
                skipped++;
            }
        }
        write(order(txns), out);
        System.err.printf("cobra export: %d transactions from %s to %s%s%n", txns.size(), topic, out, skipped > 0 ? " (" + skipped + " records skipped)" : "");
        return 0;
    }

    /** Duplicates dropped (the first delivery kept), then {@link Verifier#sessionOrder}. */
    static List<Transaction> order(List<Transaction> txns) {
        Map<String, Transaction> byId = new LinkedHashMap<>();
        for (Transaction t : txns) byId.putIfAbsent(t.getId(), t);
        return Verifier.sessionOrder(new ArrayList<>(byId.values()));
    }

    static void write(List<Transaction> txns, Path file) throws IOException {
        var stream = Files.newOutputStream(file);
        try (Writer w = new BufferedWriter(new OutputStreamWriter(file.toString().endsWith(".gz") ? new GZIPOutputStream(stream) : stream,
                StandardCharsets.UTF_8), 1 << 16)) {
            w.write("{\"format\":\"cobra-jsonl\",\"version\":1}\n");
            for (Transaction t : txns) {
                List<TxnRecord.Op> ops = new ArrayList<>(t.getOps().size());
                for (TxnOp o : t.getOps()) ops.add(new TxnRecord.Op(o.getWrite(), o.getKey(), o.getValue()));
                TxnRecord.Status st = switch (t.getStatus()) {
                    case COMMITTED -> TxnRecord.Status.COMMITTED;
                    case ABORTED -> TxnRecord.Status.ABORTED;
                    case UNKNOWN -> TxnRecord.Status.UNKNOWN;
                };
                w.write(JsonlSink.lineOfWireNames(new TxnRecord(t.getId(), t.getSession(), st, t.getStart(), t.getEnd(), ops)));
                w.write('\n');
            }
        }
    }
}
