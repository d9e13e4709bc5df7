package org.cobraverify.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.ops.pipeline.LagProbe;
import org.cobraverify.ops.pipeline.Pipeline;
import org.cobraverify.ops.pipeline.StateProbe;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.FaultyStore;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra demo}: the whole pipeline in one JVM with nothing installed: an in-process KRaft broker,
 * the topics, the topology, the verifier, and a workload on embedded RocksDB through the interceptor.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, header = "Runs the whole pipeline in one process, on embedded defaults, and prints its verdicts.",
        description = {"Runs the whole pipeline in one process: a Kafka broker (KRaft, in-process), the topology, the round",
                "verifier, and a workload on embedded RocksDB through the interceptor. Exit 0 when every round is",
                "accepted; 1 with the certificate when one is rejected (try --fault stale-read); 3 when undecided."})
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--txns", description = "Transactions the workload runs (default: ${DEFAULT-VALUE}).")
    long txns = 20_000;

    @Option(names = "--clients", description = "Concurrent client sessions (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--workload", description = "blindw-rm (default), blindw-rw, blindw-wm, twitter, rubis, tpcc, order-entry, write-skew, counter, dirty-read.")
    String workload = "blindw-rm";

    @Option(names = "--rate", paramLabel = "TXN/S", description = "Offer at most this many transactions per second (default: as fast as the clients go).")
    double rate;

    @Option(names = "--round-size", description = "Transactions per round, at least (default: ${DEFAULT-VALUE}).")
    int roundSize = 5000;

    @Option(names = "--fault", paramLabel = "KIND", description = "Make the store misbehave: stale-read, lost-write or non-atomic.")
    String fault;

    @Option(names = "--fault-rate", description = "Probability of a fault per operation (default: ${DEFAULT-VALUE}).")
    double faultRate = 0.02;

    @Option(names = "--session-txns", paramLabel = "N", description = "Each client ends its session after N transactions and opens a new one (default: 0, one session per client).")
    long sessionTxns;

    @Option(names = "--stats-every", paramLabel = "N", description = {"Every N recorded transactions (and at the end), print the heap after a full GC, the topology's",
            "time per record and state-store keys, the verifier's time per transaction and retained set (default: 0, never; the GC pauses the run)."})
    long statsEvery;

    @Option(names = "--fence-every", description = "A fence every N committed transactions per session (default: ${DEFAULT-VALUE}).")
    int fenceEvery = 20;

    @Option(names = "--max-fence-every", paramLabel = "N", description = {"While a session's fences cost more than 2%% of its time, its period grows",
            "up to N commits (and back when they get cheap), as cobra record's does; N = --fence-every: a fixed period (default: 10 times --fence-every)."})
    Integer maxFenceEvery;

    @Option(names = "--strict", description = "Check strict serializability (real-time order too).")
    boolean strict;

    @Option(names = "--isolation", paramLabel = "LEVEL", description = RoundsIsolation.HELP)
    String isolation;

    /** The level {@code --isolation} and {@code --strict} name (resolved when the command starts). */
    private IsolationLevel level = IsolationLevel.SERIALIZABLE;

    @Option(names = "--seed", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--quiet", description = "No per-round lines; the summary only.")
    boolean quiet;

    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--replication", description = "With --bootstrap: replicas of the topics it creates (default: ${DEFAULT-VALUE}; 3 on a three-node cluster).")
    short replication = 1;

    @Option(names = "--serve", paramLabel = "PORT", description = {"Serve the live page of the verdicts on PORT (0: a free one, printed) while the demo runs,",
            "and for 30 s after its summary."})
    Integer servePort;

    /** How long {@code --serve} keeps the page up after the summary ({@code -Dcobra.demo.serveAfterSeconds}). */
    static int serveAfterSeconds() { return Integer.getInteger("cobra.demo.serveAfterSeconds", 30); }

    @Option(names = "--keep", description = "Keep the broker's data and the RocksDB directory (their path is printed).")
    boolean keep;

    @Override
    public Integer call() throws Exception {
        Workload w;
        FaultyStore.Fault f = null;
        try {
            w = Workload.byName(workload, 1.0);
            if (fault != null) f = FaultyStore.Fault.parse(fault);
            level = RoundsIsolation.level(isolation, strict);
            strict = level == IsolationLevel.STRICT_SERIALIZABLE;
        } catch (IllegalArgumentException e) {
            System.err.println("cobra demo: " + e.getMessage());
            return 2;
        }
        Path dir = Files.createTempDirectory("cobra-demo");
        long t0 = System.nanoTime();
        KafkaConnection external = kafkaOptions.bootstrap != null || kafkaOptions.config != null ? kafkaOptions.reachableConnection() : null;
        if (external == null && kafkaOptions.schemaRegistry != null) kafkaOptions.withRegistry(KafkaConnection.plain("127.0.0.1:9")); // the URL's checks, before a broker starts
        if (external != null) {
            String used = alreadyUsed(external);
            if (used != null) {
                System.err.println("cobra demo: " + used);
                RecordCommand.deleteTree(dir);
                return 2;
            }
        }
        VerdictServer page = servePort == null ? null : VerdictServer.start("127.0.0.1", servePort);
        if (page != null) System.err.println("cobra demo: the live page is at " + page.url());
        try (EmbeddedKafka kafka = external != null ? null : EmbeddedKafka.start(0, dir.resolve("kafka"))) {
            KafkaConnection connection = external != null ? external : kafkaOptions.withRegistry(KafkaConnection.plain(kafka.bootstrapServers()));
            if (kafka != null)
                System.err.printf("cobra demo: Kafka broker (KRaft, in-process) on %s, data in %s (%.1f s)%n", kafka.bootstrapServers(), dir, (System.nanoTime() - t0) / 1e9);
            else System.err.printf("cobra demo: on the cluster at %s, topics with %d replicas%n", connection, replication);
            if (connection.registryUrl() != null)
                System.err.println("cobra demo: records in the Confluent wire format, schemas in the registry at " + connection.registryUrl());
            TopologySettings ts = TopologySettings.defaults().withRoundSize(roundSize).withIdleCutMs(500);
            CheckOptions co = CheckOptions.defaults().withTimeout(60);
            if (strict) co = co.withStrict(CheckOptions.DEFAULT_DRIFT_NANOS);
            // one partition of cobra.ops: on one machine a single assembler task keeps up, and two drifted apart under load
            // (a fence waiting behind the slower one holds the other's sessions). Measured, 300k at 5,000 txn/s from a cold
            // JVM: end to end 3,217 txn/s with one, 2,539 with two. -Dcobra.demo.partitions=N to compare.
            try (Pipeline pipeline = Pipeline.start(connection, replication, dir.resolve("streams"), Integer.getInteger("cobra.demo.partitions", 1), ts, RoundSettings.defaults().withCheck(co).withLevel(level), v -> {
                if (page != null) page.add(v);
                if (!quiet) System.err.println("  " + VerdictLines.line(v));
            }); LagProbe lag = new LagProbe(connection)) {
                List<Verdict> verdicts = pipeline.verdicts();
                System.err.printf("cobra demo: topology and verifier running; %s, %d clients, %d transactions on RocksDB%s%n",
                        w.name(), clients, txns, f == null ? "" : " with fault " + fault + " (rate " + faultRate + ")");
                KvStore store = new RocksDbStore(dir.resolve("rocksdb").toString(), false);
                FaultyStore faulty = f == null ? null : new FaultyStore(store, f, faultRate, seed);
                if (faulty != null) store = faulty;
                long recorded;
                WorkloadRunner.Result r;
                StateProbe probe = new StateProbe(pipeline);
                List<StateProbe.Reading> readings = new ArrayList<>();
                long[] nextStats = {statsEvery};
                long wl0;
                try (KvStore s = store) {
                    KafkaSink sink = new KafkaSink(connection, Topics.OPS, false, true, new Properties());
                    Recorder rec = new Recorder(s, sink, Recorder.Options.adaptive(fenceEvery, maxFenceEvery));
                    wl0 = System.nanoTime();
                    try {
                        r = WorkloadRunner.runWithProgress(w, s, rec, clients, txns, seed, rate, sessionTxns, p -> {
                            System.err.printf("  .. %d transactions recorded, %d rounds verified, verdicts cover %d; records behind: %s%n",
                                    sink.recorded(), verdicts.size(), covered(verdicts), LagProbe.format(lag.lags("cobra-topology", "cobra-verifier")));
                            if (statsEvery > 0 && sink.recorded() >= nextStats[0]) {
                                nextStats[0] = (sink.recorded() / statsEvery + 1) * statsEvery;
                                var reading = probe.read(sink.recorded());
                                readings.add(reading);
                                System.err.println("  .. " + reading.line());
                            }
                        });
                    } finally {
                        rec.close();
                    }
                    recorded = sink.recorded();
                }
                long wl1 = System.nanoTime();
                System.err.printf("cobra demo: workload done: %d transactions recorded (%d committed, %d aborted, %d unknown, %d fences) in %.1f s (%.0f txn/s); waiting for the last verdicts%n",
                        recorded, r.committed(), r.aborted(), r.unknown(), r.fences(), (wl1 - wl0) / 1e9, recorded / ((wl1 - wl0) / 1e9));
                // wait while the verdicts make progress: 120 s, renewed each time they cover more (after violations the
                // verifier checks each round again per violation found, and may trail the workload by minutes)
                long deadline = System.nanoTime() + 120_000_000_000L, coveredThen = covered(verdicts);
                long nextReport = System.nanoTime() + 1_000_000_000L;
                // verification goes on past violations (each round says whether it found a new one), to the end; only a
                // verifier that stopped (a violation it could not set aside) ends the wait early
                while (covered(verdicts) < recorded && System.nanoTime() < deadline && pipeline.verifierFailure() == null
                        && verdicts.stream().noneMatch(v -> v.getOutcome() == Outcome.REJECT && (v.getOwnOutcome() == null || v.getReason().contains("verification stop")))) {
                    Thread.sleep(50);
                    if (covered(verdicts) > coveredThen) { coveredThen = covered(verdicts); deadline = System.nanoTime() + 120_000_000_000L; }
                    if (System.nanoTime() > nextReport) {
                        nextReport += 1_000_000_000L;
                        System.err.printf("  .. %d rounds verified, verdicts cover %d of %d; records behind: %s%n", verdicts.size(), covered(verdicts),
                                recorded, LagProbe.format(lag.lags("cobra-topology", "cobra-verifier")));
                    }
                }
                long done = System.nanoTime();
                if (statsEvery > 0) {
                    readings.add(probe.read(recorded));
                    System.out.println("state and per-record cost as the run went on (heap: the whole process after a full GC):");
                    System.out.println("  transactions  heap MB  topology ms/record  topology store keys  verifier ms/txn  retained  collected");
                    for (var x : readings)
                        System.out.printf("  %12d  %7.0f  %18.3f  %19d  %15.3f  %8d  %9d%n", x.transactions(), x.heapMb(), x.topologyMsPerRecord(),
                                x.storeKeys(), x.verifierMsPerTxn(), x.retained(), x.collected());
                }
                int rc = summary(List.copyOf(verdicts), recorded, wl0, wl1, done);
                if (f == FaultyStore.Fault.LOST_WRITE && printSummary) // the verdicts against what the store did
                    for (String line : FaultTally.of(faulty.ledger(), List.copyOf(verdicts)).lines()) System.out.println(line);
                int serveAfter = serveAfterSeconds();
                if (page != null && serveAfter > 0) { // time to look at the finished run before the page goes
                    System.err.println("cobra demo: the live page stays up " + serveAfter + " s more at " + page.url());
                    Thread.sleep(serveAfter * 1000L);
                }
                return rc;
            }
        } finally {
            if (page != null) page.close();
            if (keep) System.err.println("cobra demo: data kept in " + dir);
            else RecordCommand.deleteTree(dir);
        }
    }

    /**
     * Why a cluster cannot take a demo (null: it can): a pipeline already ran there, and the demo's verifier would resume
     * its rounds and mix them into this run's figures.
     */
    static String alreadyUsed(KafkaConnection kafka) throws Exception {
        try (Admin admin = Admin.create(kafka.properties())) {
            if (!admin.listTopics().names().get().contains(Topics.ROUNDS)) return null;
            var tp = new TopicPartition(Topics.ROUNDS, 0);
            long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
            return end == 0 ? null : Topics.ROUNDS + " on " + kafka.bootstrap() + " already holds " + end + " records: the demo needs a cluster"
                    + " no pipeline has run on (its verifier would resume those rounds); run cobra topology and cobra verifier there instead";
        }
    }

    /** Transactions the verdicts so far have taken in (checked or waiting). */
    static long covered(List<Verdict> vs) {
        if (vs.isEmpty()) return 0;
        Verdict last = vs.get(vs.size() - 1);
        return last.getCheckedTxns() + last.getPendingTxns();
    }

    /**
     * What one run showed: transactions recorded, verdict counts, the workload's own speed, how long after it
     * ended the last verdict came, the end-to-end rate, and the verdict lags (a round's last commit to its
     * verdict, seconds, sorted).
     */
    record Result(long recorded, int rounds, int accepts, int rejects, int unknowns, double workloadSeconds, double lastVerdictAfterEnd,
                  double endToEndPerSecond, List<Double> lags, boolean complete) {
        double workloadPerSecond() { return recorded / workloadSeconds; }

        double lagQuantile(double q) { return lags.isEmpty() ? Double.NaN : lags.get(Math.min(lags.size() - 1, (int) Math.floor(q * lags.size()))); }
    }

    /** The result of the last {@link #call}, for {@code cobra bench --pipeline}. */
    Result result;

    /** False: compute the result without printing the summary (a sweep prints its own table). */
    boolean printSummary = true;

    private int summary(List<Verdict> vs, long recorded, long wl0, long wl1, long done) {
        Verdict reject = vs.stream().filter(v -> v.getOutcome() == Outcome.REJECT).findFirst().orElse(null);
        int accepts = 0, rejects = 0, unknowns = 0, clean = 0, ownUnknown = 0;
        List<Verdict> found = new ArrayList<>();
        for (Verdict v : vs) {
            if (VerdictsCommand.isNewViolation(v)) found.add(v);
            else if (v.getViolations() > 0 && v.getOwnOutcome() == Outcome.ACCEPT) clean++;
            else if (v.getViolations() > 0 && v.getOwnOutcome() == Outcome.UNKNOWN) ownUnknown++;
        }
        List<Double> lags = new ArrayList<>();
        for (Verdict v : vs) {
            switch (v.getOutcome()) {
                case ACCEPT -> accepts++;
                case REJECT -> rejects++;
                case UNKNOWN -> unknowns++;
            }
            if (v.getRoundLatestEnd() > 0) lags.add(VerdictLines.lagSeconds(v));
        }
        lags.sort(null);
        long covered = covered(vs);
        double total = (done - wl0) / 1e9;
        result = new Result(recorded, vs.size(), accepts, rejects, unknowns, (wl1 - wl0) / 1e9, (done - wl1) / 1e9, covered / total, List.copyOf(lags),
                covered >= recorded);
        if (!printSummary) return reject != null ? 1 : covered < recorded || unknowns > 0 ? 3 : 0;
        System.out.printf("cobra demo: %d transactions, %d rounds: %d accepted, %d rejected, %d unknown%n", recorded, vs.size(), accepts, rejects, unknowns);
        System.out.printf("  workload %.1f s (%.0f txn/s); last verdict %.1f s after the workload ended; end to end %.0f txn/s%n",
                (wl1 - wl0) / 1e9, recorded / ((wl1 - wl0) / 1e9), (done - wl1) / 1e9, covered / total);
        if (!lags.isEmpty())
            System.out.printf("  verdict lag behind the workload (round's last commit to its verdict): median %.2f s, max %.2f s%n",
                    lags.get(lags.size() / 2), lags.get(lags.size() - 1));
        if (covered < recorded) {
            System.out.printf("cobra demo: verdicts cover only %d of %d transactions%n", covered, recorded);
            if (reject == null) return 3;
        }
        if (reject != null) {
            long count = found.stream().mapToLong(v -> Math.max(1, v.getNewViolations())).sum();
            System.out.println();
            System.out.println("VIOLATION in round " + reject.getRound() + ":");
            System.out.println(reject.getCertificate() != null ? reject.getCertificate().getText() : reject.getReason());
            for (Verdict v : found) {
                if (v == reject) continue;
                System.out.println("  then in round " + v.getRound() + ": " + (v.getCertificate() == null ? v.getReason() : v.getCertificate().getSummary()));
                for (org.cobraverify.schemas.Certificate c : v.getMoreCertificates()) System.out.println("    and: " + c.getSummary());
            }
            System.out.printf("violations: %d (first in round %d); after the first, %d rounds verified clean, %d unknown%n", count, reject.getRound(),
                    clean, ownUnknown);
            return 1;
        }
        Verdict last = vs.isEmpty() ? null : vs.get(vs.size() - 1);
        if (last == null || unknowns > 0 || last.getPendingTxns() > 0) return 3;
        System.out.println("every round accepted: the history is " + RoundSettings.defaults().withLevel(level).satisfied());
        return 0;
    }
}
