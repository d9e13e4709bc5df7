package org.cobraverify.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra verdicts}: the alerting consumer. Prints every verdict (read-committed, from the start),
 * exits 1 at the first violation (with its certificate) unless {@code --keep-going}, and with
 * {@code --follow} waits for new verdicts instead of stopping at the topic's end. {@code --metrics-port}
 * serves the counts as Prometheus metrics.
 */
@Command(name = "verdicts", mixinStandardHelpOptions = true,
        description = {"Prints the verdicts on cobra.verdicts. Exit 1 at the first violation, 3 if the last verdict is unknown, 0 otherwise.",
                "--follow keeps waiting for new verdicts; --metrics-port serves Prometheus metrics."})
public final class VerdictsCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, paramLabel = "SERVERS", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--follow", description = "Keep following new verdicts after the end of the topic.")
    boolean follow;

    @Option(names = "--keep-going", description = "Do not stop at a violation.")
    boolean keepGoing;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics on http://0.0.0.0:PORT/metrics.")
    Integer metricsPort;

    final Map<Outcome, AtomicLong> counts = new ConcurrentHashMap<>();
    final AtomicLong lastRound = new AtomicLong(-1), checked = new AtomicLong(), pending = new AtomicLong(), lagMs = new AtomicLong();

    @Override
    public Integer call() throws Exception {
        for (Outcome o : Outcome.values()) counts.put(o, new AtomicLong());
        HttpServer http = metricsPort == null ? null : serveMetrics(metricsPort);
        WireFormat wire = new WireFormat(KafkaSchemaCatalog.attach(new SchemaCatalog(), bootstrap));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Outcome last = null;
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(Topics.VERDICTS, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            while (follow || c.position(tp) < end) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    Verdict v;
                    try {
                        v = wire.decode(r.value(), Verdict.class);
                    } catch (MalformedRecordException e) {
                        System.err.printf("cobra verdicts: %s/%d@%d is not a verdict: %s%n", r.topic(), r.partition(), r.offset(), e.getMessage());
                        continue;
                    }
                    count(v);
                    last = v.getOutcome();
                    System.out.println(VerdictLines.full(v));
                    System.out.flush();
                    if (v.getOutcome() == Outcome.REJECT && !keepGoing) {
                        if (http != null) http.stop(0);
                        return 1;
                    }
                }
            }
        } finally {
            if (http != null) http.stop(0);
        }
        if (counts.get(Outcome.REJECT).get() > 0) return 1;
        return last == Outcome.UNKNOWN ? 3 : 0;
    }

    void count(Verdict v) {
        counts.get(v.getOutcome()).incrementAndGet();
        lastRound.set(v.getRound());
        checked.set(v.getCheckedTxns());
        pending.set(v.getPendingTxns());
        if (v.getRoundLatestEnd() > 0) lagMs.set(Math.round(VerdictLines.lagSeconds(v) * 1000));
    }

    /** The metrics, in the Prometheus text format. */
    String metrics() {
        StringBuilder sb = new StringBuilder();
        sb.append("# HELP cobra_verdicts_total Verdicts read from cobra.verdicts, by outcome.\n# TYPE cobra_verdicts_total counter\n");
        for (Outcome o : Outcome.values())
            sb.append("cobra_verdicts_total{outcome=\"").append(o.name().toLowerCase()).append("\"} ").append(counts.get(o).get()).append('\n');
        sb.append("# HELP cobra_last_round The last round with a verdict.\n# TYPE cobra_last_round gauge\ncobra_last_round ").append(lastRound.get()).append('\n');
        sb.append("# HELP cobra_checked_transactions Transactions in the history the last verdict checked.\n# TYPE cobra_checked_transactions gauge\ncobra_checked_transactions ")
                .append(checked.get()).append('\n');
        sb.append("# HELP cobra_pending_transactions Transactions waiting for writes not yet seen.\n# TYPE cobra_pending_transactions gauge\ncobra_pending_transactions ")
                .append(pending.get()).append('\n');
        sb.append("# HELP cobra_verdict_lag_seconds From the last commit in the round to its verdict.\n# TYPE cobra_verdict_lag_seconds gauge\ncobra_verdict_lag_seconds ")
                .append(lagMs.get() / 1000.0).append('\n');
        return sb.toString();
    }

    private HttpServer serveMetrics(int port) throws java.io.IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(port), 0);
        s.createContext("/metrics", ex -> {
            byte[] body = metrics().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(body); }
        });
        s.start();
        System.err.println("cobra verdicts: metrics on http://0.0.0.0:" + s.getAddress().getPort() + "/metrics");
        return s;
    }
}
