package org.cobraverify.cli;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.synth.SyntheticWorkloads;
import org.cobraverify.verifier.Verifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra bench}: times each step of the checker (parse, construct, prune, solve) on generated
 * workloads and on recorded Cobra logs, with constraint counts and peak heap. Times are of the first
 * check in this JVM unless {@code --repeat} asks for the best of several.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, footer = "Exit codes: 0 measured, 1 a check disagreed (--compare, --differential) or a history was rejected, 2 could not run.",
        description = {"Benchmarks the checker: per history, the time of each step, constraints before and after pruning, and peak heap.",
                "Generated workloads (serializable by construction) and the Cobra logs under --data."})
public final class BenchCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "N", description = "Transactions per generated history (default: 1000,10000,100000).")
    List<Integer> sizes = List.of(1000, 10000, 100000);

    @Option(names = "--workloads", split = ",", paramLabel = "W",
            description = {"Generated workloads: blindw-rm, blindw-rw, blindw-wm, rmw-mix, hidden-fork, or none (default: all; any case).",
                    "hidden-fork is YugabyteDB-like and not serializable: ~100 keys (at most --keys), a long fork only search proves."})
    List<String> workloads = List.of("BlindW-RM", "BlindW-RW", "BlindW-WM", "RMW-mix", "Hidden-fork");

    @Option(names = "--data", paramLabel = "DIR", description = "Directory of Cobra logs to bench too (default: ../shared/data/cobra-logs if present).")
    Path data;

    @Option(names = "--keys", description = "Keys in generated workloads (default: ${DEFAULT-VALUE}).")
    int keys = 10_000;

    @Option(names = "--sessions", description = "Sessions in generated workloads (default: ${DEFAULT-VALUE}).")
    int sessions = 24;

    @Option(names = "--repeat", description = "Check each history this many times and report the fastest (default: ${DEFAULT-VALUE}: the first, cold run).")
    int repeat = 1;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Per history (default: ${DEFAULT-VALUE}).")
    double timeout = 120;

    @Option(names = "--compare", description = "Also check each history with the cross-check solver (sat4j) and print both times and the speed-up.")
    boolean compare;

    @Option(names = "--solver", paramLabel = "NAME", description = "Solver for the main run: cdcl (default), sat4j or exhaustive.")
    String solver = "cdcl";

    @Option(names = "--match", paramLabel = "TEXT", description = "Only histories whose name contains TEXT.")
    String match;

    @Option(names = "--rounds", description = {"Benchmark verification in rounds with garbage collection (the paper's Figure 10):",
            "record each of --round-workloads through the collector (embedded RocksDB, 24 clients, a fence every 20 commits),",
            "verify it at each of --round-sizes, and print the capacity (transactions / summed round time), retained set and heap."})
    boolean rounds;

    @Option(names = "--round-workloads", split = ",", paramLabel = "W",
            description = "With --rounds (default: blindw-rm,blindw-rw,blindw-wm,twitter,rubis,tpcc,order-entry; none for only --history).")
    List<String> roundWorkloads = List.of("blindw-rm", "blindw-rw", "blindw-wm", "twitter", "rubis", "tpcc", "order-entry");

    @Option(names = "--round-sizes", split = ",", paramLabel = "N", description = "With --rounds: transactions per round (default: 1000,2500,5000,10000).")
    List<Integer> roundSizes = List.of(1000, 2500, 5000, 10000);

    @Option(names = "--round-wire", description = {"With --rounds: deliver each transaction through the wire format (encoded and decoded, outside",
            "the timed rounds), as the pipeline does: no two transactions then share a key or value string."})
    boolean roundWire;

    @Option(names = "--txns", description = "With --rounds: transactions to record per workload (default: ${DEFAULT-VALUE}).")
    long txns = 100_000;

    @Option(names = "--history", paramLabel = "FILE", description = "Also bench these recorded histories (any format verify reads), one-shot or with --rounds.")
    List<Path> histories = List.of();

    @Option(names = "--isolation", paramLabel = "LEVEL", description = {"One-shot, and with --differential: the isolation level to check (as verify's",
            "--isolation; default: serializable)."})
    String isolation = "serializable";
    private IsolationLevel level;

    @Option(names = "--gpu", paramLabel = "MODE", description = GpuOption.DESCRIPTION)
    String gpu = "auto";

    @Option(names = "--pipeline", description = {"Benchmark the whole pipeline (cobra demo) at each of --rates: per offered rate, the workload's",
            "and the verdicts' throughput, verdict lag p50/p99/max, and the last verdict's delay after the workload."})
    boolean pipeline;

    @Option(names = "--schema-registry", paramLabel = "URL", description = {"With --pipeline: run each rate twice, with the catalog topic and then",
            "in the Confluent wire format through this registry (the cost of the registry, measured in one run)."})
    String schemaRegistry;

    @Option(names = "--rates", split = ",", paramLabel = "TXN/S", description = "With --pipeline: offered rates, 0 for full speed (default: 1000,2500,5000,0).")
    List<Double> rates = List.of(1000.0, 2500.0, 5000.0, 0.0);

    @Option(names = "--pipeline-txns", description = "With --pipeline: transactions per run (default: ${DEFAULT-VALUE}: a short run hides a backlog that builds up).")
    long pipelineTxns = 300_000;

    @Option(names = "--differential", paramLabel = "N", description = {"Verification in rounds against one-shot checking on N generated histories (aborted and",
            "unknown transactions, dirty and long-past reads, late arrivals, batches): every round's verdict must agree or be unknown; exit 1 on any",
            "disagreement, which is printed with its seed."})
    Integer differential;

    @Option(names = "--seed", description = "With --differential: the first seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--gc-rules", description = {"With --differential: the garbage-collection rules (default: ${DEFAULT-VALUE}); a careless one",
            "(CARELESS_COLLECTION, CARELESS_SETTLING, CARELESS_FRONTIER, CARELESS_MARKS) shows that the comparison catches it, FRONTIER_KEPT never",
            "collects a frontier writer, FRONTIER_WAITS collects one only with every older writer of its keys."})
    String gcRules = "SOUND";

    private ReachabilityEngine reachability;

    @Override
    public Integer call() throws Exception {
        if (pipeline) return new PipelineSweep(System.out).run(rates, pipelineTxns, "blindw-rm", 8, 5000, schemaRegistry);
        if (differential != null) {
            if (!Verifier.gcRules().contains(gcRules)) {
                System.err.println("cobra bench: --gc-rules: expected one of " + Verifier.gcRules() + ", not " + gcRules);
                return 2;
            }
            IsolationLevel l;
            try {
                l = IsolationLevel.parse(isolation);
            } catch (IllegalArgumentException e) {
                System.err.println("cobra bench: --isolation: " + e.getMessage());
                return 2;
            }
            return new DifferentialCampaign(System.out).run(differential, seed, gcRules, l);
        }
        reachability = GpuOption.resolve(gpu, "bench", System.err);
        if (reachability == null) return 2;
        if (rounds) return new RoundsBench(System.out, reachability, roundWire).run(roundWorkloads, histories, txns, roundSizes, 24, timeout);
        try {
            level = IsolationLevel.parse(isolation);
        } catch (IllegalArgumentException e) {
            System.err.println("cobra bench: --isolation: " + e.getMessage());
            return 2;
        }
        System.out.println("isolation level: " + level.longName());
        System.out.printf("%-34s %7s %8s %9s %8s %8s %8s %9s %9s %7s %8s  %s%n",
                "history", "txns", "parse/ms", "constr/ms", "prune/ms", "solve/ms", "total/ms", "cons", "pruned→", "solver", "heap/MB", "verdict");
        int worst = 0;
        for (String w : workloads) {
            if (w.equalsIgnoreCase("none")) continue;
            SyntheticWorkloads.Kind kind = kindOf(w);
            for (int n : sizes) {
                String name = kind.label + "-" + n;
                if (match != null && !name.contains(match)) continue;
                System.gc();
                long t0 = System.nanoTime();
                History h = SyntheticWorkloads.generate(kind, n, kind == SyntheticWorkloads.Kind.HIDDEN_FORK ? Math.min(keys, 96) : keys, sessions, 1);
                double gen = (System.nanoTime() - t0) / 1e6;
                worst = Math.max(worst, run(name + " (gen)", h, gen));
                h = null;
            }
        }
        Path dir = data != null ? data : Paths.get("..", "shared", "data", "cobra-logs");
        if (!Files.isDirectory(dir) && data == null) dir = Paths.get(System.getProperty("user.dir")).resolve("../shared/data/cobra-logs");
        if (Files.isDirectory(dir)) {
            List<Path> logs = new ArrayList<>();
            try (Stream<Path> s = Files.walk(dir)) {
                s.filter(Files::isDirectory).filter(BenchCommand::isCobraLog).sorted().forEach(logs::add);
            }
            for (Path p : logs) {
                String name = dir.relativize(p).toString();
                if (match != null && !name.contains(match)) continue;
                System.gc(); // do not charge this parse for the garbage of the previous history
                long t0 = System.nanoTime();
                HistoryReaders.Loaded l = HistoryReaders.read(p);
                double parse = (System.nanoTime() - t0) / 1e6;
                worst = Math.max(worst, run(name, l.history(), parse));
            }
        } else if (data != null) {
            System.err.println("cobra bench: " + data + " is not a directory");
            return 2;
        }
        for (Path p : histories) {
            System.gc();
            long t0 = System.nanoTime();
            HistoryReaders.Loaded l = HistoryReaders.read(p);
            double parse = (System.nanoTime() - t0) / 1e6;
            worst = Math.max(worst, run(p.toString(), l.history(), parse));
        }
        System.out.printf("(%s, %d cores, max heap %d MB, reachability: %s; times of the %s)%n", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, reachability.name(),
                repeat == 1 ? "first check in this JVM" : "fastest of " + repeat + " checks");
        return 0;
    }

    private static boolean isCobraLog(Path p) {
        try (Stream<Path> s = Files.list(p)) {
            return s.anyMatch(f -> f.getFileName().toString().matches("T\\d+\\.log"));
        } catch (Exception e) {
            return false;
        }
    }

    private static SyntheticWorkloads.Kind kindOf(String w) {
        for (SyntheticWorkloads.Kind k : SyntheticWorkloads.Kind.values()) if (k.label.equalsIgnoreCase(w)) return k;
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new BenchCommand()), "unknown workload " + w);
    }

    private int run(String name, History h, double parseMillis) {
        int code = runWith(name, h, parseMillis, solver);
        if (compare) {
            double mine = lastMillis;
            String mineVerdict = lastVerdict;
            runWith("  vs sat4j", h, parseMillis, "sat4j");
            boolean same = lastVerdict.equals(mineVerdict) || lastVerdict.startsWith("unknown");
            System.out.printf("  %s: %s %.0f ms, sat4j %.0f ms: %.1fx faster%s%n", name, solver, mine, lastMillis, lastMillis / Math.max(0.001, mine),
                    same ? "" : "  (VERDICTS DIFFER: " + mineVerdict + " vs " + lastVerdict + ")");
        }
        return code;
    }

    private double lastMillis;
    private String lastVerdict = "";

    private int runWith(String name, History h, double parseMillis, String solverName) {
        Verdict best = null;
        double bestMillis = Double.MAX_VALUE;
        long peak = 0;
        for (int i = 0; i < Math.max(1, repeat); i++) {
            System.gc();
            resetPeaks();
            long t0 = System.nanoTime();
            Verdict v = Verifier.check(h, level, CheckOptions.defaults().withTimeout(timeout).withSolver(solverName).withReachability(reachability));
            double ms = (System.nanoTime() - t0) / 1e6;
            peak = Math.max(peak, peakHeap());
            if (ms < bestMillis) { bestMillis = ms; best = v; }
        }
        CheckStats s = best.stats();
        lastMillis = bestMillis;
        lastVerdict = best.outcome().word();
        System.out.printf("%-34s %7d %8.0f %9.0f %8.0f %8.0f %8.0f %9d %9d %7d %8d  %s%n", name, h.size(), parseMillis,
                s.constructMillis(), s.pruneMillis(), s.solveMillis(), parseMillis + bestMillis, s.constraintsBefore,
                s.constraintsAfterPrune, s.constraintsToSolver, peak >> 20,
                best.outcome().word() + (best.certificate() != null ? " (" + best.certificate().kind().displayName() + ")" : "")
                        + (best.certificate() != null && best.certificate().reduction() != null
                            ? String.format(" decided in %.0f ms; certificate %s", s.decisionMillis(), best.certificate().reduction().describe()) : "")
                        + (best.unknownReason() != null ? " (" + best.unknownReason() + ")" : ""));
        return best.outcome().exitCode();
    }

    static void resetPeaks() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) if (p.getType() == MemoryType.HEAP) p.resetPeakUsage();
    }

    /** Sum of the heap pools' peaks since the last reset: an upper bound on the peak heap in use. */
    static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) if (p.getType() == MemoryType.HEAP) sum += p.getPeakUsage().getUsed();
        return sum;
    }
}
