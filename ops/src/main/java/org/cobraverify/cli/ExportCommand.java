package org.cobraverify.cli;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.TxnRecord;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra export}: the transactions on a topic (committed records, up to its current end) as a
 * cobra-jsonl history, each session's transactions in session order, so that {@code cobra verify} can
 * re-check a window one-shot (another mode, another version) and compare with the pipeline's verdicts.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Writes the transactions on a topic (default cobra.txns; cobra.rounds works too) as a cobra-jsonl history.",
                "Then: cobra verify FILE"})
public final class ExportCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, paramLabel = "SERVERS", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--topic", description = "Topic to export (default: ${DEFAULT-VALUE}).")
    String topic = Topics.TXNS;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "History file to write (.gz compresses).")
    Path out;

    @Option(names = "--max-round", paramLabel = "N", description = "Only transactions of rounds up to N (cobra.rounds).")
    Long maxRound;

    @Override
    public Integer call() throws Exception {
        WireFormat wire = new WireFormat(KafkaSchemaCatalog.attach(new SchemaCatalog(), bootstrap));
        List<Transaction> txns = new ArrayList<>();
        int skipped = 0;
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            var infos = c.partitionsFor(topic, Duration.ofSeconds(15));
            if (infos == null || infos.isEmpty()) {
                System.err.println("cobra export: no topic " + topic + " on " + bootstrap);
                return 2;
            }
            List<TopicPartition> parts = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) continue;
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
            }
        }
        write(order(txns), out);
        System.err.printf("cobra export: %d transactions from %s to %s%s%n", txns.size(), topic, out, skipped > 0 ? " (" + skipped + " records skipped)" : "");
        return 0;
    }

    /** Sessions in first-arrival order, each session's transactions by their position in it (duplicates dropped). */
    static List<Transaction> order(List<Transaction> txns) {
        Map<String, Integer> rank = new HashMap<>();
        Map<String, Transaction> byId = new java.util.LinkedHashMap<>();
        for (Transaction t : txns) {
            rank.putIfAbsent(t.getSession(), rank.size());
            byId.putIfAbsent(t.getId(), t);
        }
        List<Transaction> l = new ArrayList<>(byId.values());
        l.sort(Comparator.<Transaction>comparingInt(t -> rank.get(t.getSession())).thenComparingLong(Transaction::getSessionIndex));
        return l;
    }

    static void write(List<Transaction> txns, Path file) throws java.io.IOException {
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
                w.write(JsonlSink.line(new TxnRecord(t.getId(), t.getSession(), st, t.getStart(), t.getEnd(), ops)));
                w.write('\n');
            }
        }
    }
}
