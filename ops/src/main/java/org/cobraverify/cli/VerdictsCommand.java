package org.cobraverify.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
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
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.KafkaSchemaCatalog;
import org.cobraverify.schemas.serde.MalformedRecordException;
import org.cobraverify.schemas.serde.SchemaCatalog;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra verdicts}: the alerting consumer. Prints every verdict (read-committed, from the start),
 * exits 1 at the first violation (with its certificate) unless {@code --keep-going} (then each later round says whether it
 * found a new violation, was verified clean, or is unknown, and how many violations the history has had), and with
 * {@code --follow} waits for new verdicts instead of stopping at the topic's end. {@code --json} prints one
 * JSON object per verdict. {@code --metrics-port} serves Micrometer's Prometheus registry: verdicts by
 * outcome, rounds by what their own transactions came to, new violations and the round of the last one, the last
 * round, checked and pending transactions, lag, the verifier's retained set, collected transactions and restarts.
 */
@Command(name = "verdicts", mixinStandardHelpOptions = true,
        description = {"Prints the verdicts on cobra.verdicts. Exit 1 at the first violation, 3 if the last verdict is unknown, 0 otherwise.",
                "--follow keeps waiting for new verdicts; --metrics-port serves Prometheus metrics."})
public final class VerdictsCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--follow", description = "Keep following new verdicts after the end of the topic.")
    boolean follow;

    @Option(names = "--keep-going", description = "Do not stop at a violation.")
    boolean keepGoing;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics on http://BIND:PORT/metrics (--bind; 0: a free port, printed).")
    Integer metricsPort;

    @Option(names = "--serve", paramLabel = "PORT", description = {"Serve a live web page of the verdicts (rounds, charts of lag, retained and",
            "throughput, violations with their certificates; JSON under /api/) on PORT (0: a free one, printed). Implies --follow."})
    Integer servePort;

    @Option(names = "--bind", paramLabel = "HOST", description = "The address --serve and --metrics-port listen on (default: ${DEFAULT-VALUE}, this machine only).")
    String bind = "127.0.0.1";

    @Option(names = "--json", description = "One JSON object per verdict, one per line (round, verdict, reason, transactions, retained, millis, certificate...).")
    boolean json;

    final Map<Outcome, AtomicLong> counts = new ConcurrentHashMap<>();
    final AtomicLong lastRound = new AtomicLong(-1), checked = new AtomicLong(), pending = new AtomicLong(), lagMs = new AtomicLong(),
            retained = new AtomicLong(-1), collected = new AtomicLong(), restarts = new AtomicLong(), lastViolationRound = new AtomicLong(-1),
            violations = new AtomicLong(), unchecked = new AtomicLong();
    /** The metrics, in Micrometer's Prometheus registry (gauges read the fields above). */
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<Outcome, Counter> verdictCounters = new ConcurrentHashMap<>();
    private final Map<String, Counter> ownCounters = new ConcurrentHashMap<>();
    private final Counter violationCounter;
    /** Per level of the ladder: 1 for the level the last verdict is about, 0 for the others (an alert can name its level). */
    private final Map<String, AtomicLong> levels = new ConcurrentHashMap<>();

    VerdictsCommand() {
        for (Outcome o : Outcome.values()) {
            counts.put(o, new AtomicLong());
            verdictCounters.put(o, Counter.builder("cobra.verdicts").description("Verdicts read from cobra.verdicts, by outcome.")
                    .tag("outcome", o.name().toLowerCase()).register(registry));
        }
        for (String own : List.of("clean", "violation", "unknown"))
            ownCounters.put(own, Counter.builder("cobra.rounds").description("Rounds by what their own transactions came to: verified clean, a new violation, or unknown.")
                    .tag("own", own).register(registry));
        violationCounter = Counter.builder("cobra.violations").description("New violations found (each once, with its certificate): alert on its increase.")
                .register(registry);
        Gauge.builder("cobra.last.violation.round", lastViolationRound, AtomicLong::get).description("The round of the last new violation (-1: none).")
                .register(registry);
        Gauge.builder("cobra.last.round", lastRound, AtomicLong::get).description("The last round with a verdict.").register(registry);
        Gauge.builder("cobra.checked.transactions", checked, AtomicLong::get).description("Transactions in the history the last verdict checked.").register(registry);
        Gauge.builder("cobra.pending.transactions", pending, AtomicLong::get).description("Transactions waiting for writes not yet seen.").register(registry);
        Gauge.builder("cobra.verdict.lag", lagMs, x -> x.get() / 1000.0).baseUnit("seconds")
                .description("From the last commit in the round to its verdict.").register(registry);
        Gauge.builder("cobra.verifier.retained.transactions", retained, AtomicLong::get)
                .description("Transactions the verifier kept in its graph after the last round's garbage collection (-1: not reported).").register(registry);
        Gauge.builder("cobra.verifier.collected.transactions", collected, AtomicLong::get)
                .description("Transactions the verifier has garbage-collected so far.").register(registry);
        Gauge.builder("cobra.unchecked.transactions", unchecked, AtomicLong::get)
                .description("Transactions left unchecked so far: they follow no fence that follows the collected past (a session that never fences).")
                .register(registry);
        Gauge.builder("cobra.verifier.restarts", restarts, AtomicLong::get)
                .description("How many times the verifier had restarted when it published the last verdict.").register(registry);
        for (IsolationLevel l : IsolationLevel.values()) {
            AtomicLong on = new AtomicLong();
            levels.put(l.longName(), on);
            Gauge.builder("cobra.isolation", on, AtomicLong::get).tag("level", l.longName())
                    .description("1 for the isolation level the last verdict is about, 0 for the others.").register(registry);
        }
    }

    @Override
    public Integer call() throws Exception {
        HttpServer http = metricsPort == null ? null : serveMetrics(metricsPort);
        VerdictServer page = servePort == null ? null : VerdictServer.start(bind, servePort);
        if (page != null) {
            follow = true;
            System.err.println("cobra verdicts: the live page is at " + page.url());
        }
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        WireFormat wire = KafkaSchemaCatalog.wireFormat(kafka);
        Properties p = kafka.properties();
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
                    if (page != null) page.add(v);
                    last = v.getOutcome();
                    System.out.println(json ? VerdictLines.json(v) : VerdictLines.full(v));
                    System.out.flush();
                    if (isNewViolation(v) && !keepGoing) {
                        if (http != null) http.stop(0);
                        return 1;
                    }
                }
            }
        } finally {
            if (http != null) http.stop(0);
            if (page != null) page.close();
        }
        if (counts.get(Outcome.REJECT).get() > 0) return 1;
        return last == Outcome.UNKNOWN ? 3 : 0;
    }

    /** Whether the verdict reports a violation found in its round (a verdict of a verifier before version 4: any reject). */
    static boolean isNewViolation(Verdict v) {
        return v.getOwnOutcome() == null ? v.getOutcome() == Outcome.REJECT : v.getNewViolations() > 0;
    }

    /** What the round's own transactions came to: clean, violation or unknown. */
    static String own(Verdict v) {
        Outcome o = v.getOwnOutcome() != null ? v.getOwnOutcome() : v.getOutcome();
        return switch (o) {
            case ACCEPT -> "clean";
            case REJECT -> "violation";
            case UNKNOWN -> "unknown";
        };
    }

    void count(Verdict v) {
        counts.get(v.getOutcome()).incrementAndGet();
        verdictCounters.get(v.getOutcome()).increment();
        ownCounters.get(own(v)).increment();
        if (isNewViolation(v)) {
            long n = Math.max(1, v.getNewViolations());
            violationCounter.increment(n);
            violations.addAndGet(n);
            lastViolationRound.set(v.getRound());
        }
        lastRound.set(v.getRound());
        checked.set(v.getCheckedTxns());
        pending.set(v.getPendingTxns());
        retained.set(v.getRetainedTxns());
        collected.set(v.getCollectedTxns());
        restarts.set(v.getVerifierRestarts());
        unchecked.set(v.getUncheckedTxns());
        String level = VerdictLines.isolation(v);
        levels.forEach((l, on) -> on.set(l.equals(level) ? 1 : 0));
        if (v.getRoundLatestEnd() > 0) lagMs.set(Math.round(VerdictLines.lagSeconds(v) * 1000));
    }

    /** The metrics, in the Prometheus text format. */
    String metrics() { return registry.scrape(); }

    private HttpServer serveMetrics(int port) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(bind, port), 0);
        s.createContext("/metrics", ex -> {
            byte[] body = metrics().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(body); }
        });
        s.start();
        System.err.println("cobra verdicts: metrics on http://" + bind + ":" + s.getAddress().getPort() + "/metrics");
        return s;
    }
}
