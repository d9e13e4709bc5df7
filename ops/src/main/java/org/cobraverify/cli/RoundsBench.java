package org.cobraverify.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.rounds.RoundsRun;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.verifier.RoundsOptions;
import org.cobraverify.verifier.Verifier;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;

/**
 * {@code cobra bench --rounds}: verification capacity as the paper defines it (Figure 10): for each
 * workload, a history recorded through the collector on embedded RocksDB (24 clients, a fence every 20
 * commits), verified in rounds with garbage collection at each round size; capacity is transactions per
 * second of summed round time, and the best over the round sizes is the workload's capacity. Also: the
 * retained set (largest, last), peak heap, and the drift of round times (the last 10 rounds against
 * rounds 10 to 19).
 */
final class RoundsBench {
    private final PrintStream out;

    private final ReachabilityEngine reachability;

    /** Deliver transactions through the wire format (as the pipeline does), not as objects sharing the history's strings. */
    private final boolean wire;

    RoundsBench(PrintStream out, ReachabilityEngine reachability, boolean wire) {
        this.out = out;
        this.reachability = reachability;
        this.wire = wire;
    }

    int run(List<String> workloads, List<Path> histories, long txns, List<Integer> roundSizes, int clients, double timeout) throws Exception {
        out.printf("%-12s %8s %6s %6s %10s %9s %8s %8s %9s %9s %8s %7s %8s  %s%n", "history", "txns", "round", "rounds", "capacity", "cpu-cap",
                "avg/ms", "drift", "retMax", "retLast", "heap/MB", "gc/ms", "jvm-gc/ms", "verdict");
        int worst = 0;
        for (String w : workloads) {
            if (w.equalsIgnoreCase("none")) continue;
            Path file = Files.createTempFile("cobra-bench-" + w + "-", ".jsonl");
            try {
                record(w, file, txns, clients);
                worst = Math.max(worst, bench(w, file, roundSizes, timeout));
            } finally {
                Files.deleteIfExists(file);
            }
        }
        for (Path p : histories) worst = Math.max(worst, bench(p.getFileName().toString(), p, roundSizes, timeout));
        out.printf("(%s, %d cores, max heap %d MB; capacity = transactions / summed round time, best round size marked *; cpu-cap = transactions"
                + " / the verifier thread's CPU time in the rounds; gc/ms: the rounds' garbage collection phase, jvm-gc/ms: the JVM's collectors"
                + " in the rounds%s)%n",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, wire ? "; transactions delivered through the wire format" : "");
        return worst;
    }

    private void record(String workload, Path file, long txns, int clients) throws Exception {
        Workload w = Workload.byName(workload, 1.0);
        Path dir = Files.createTempDirectory("cobra-bench-rocksdb");
        try (KvStore s = new RocksDbStore(dir.toString(), false)) {
            Recorder rec = new Recorder(s, new JsonlSink(file), new Recorder.Options(20, Verifier.DEFAULT_FENCE_KEY));
            try {
                WorkloadRunner.run(w, s, rec, clients, txns, 1, new WorkloadRunner.Progress());
            } finally {
                rec.close();
            }
        } finally {
            RecordCommand.deleteTree(dir);
        }
    }

    private int bench(String name, Path file, List<Integer> roundSizes, double timeout) throws Exception {
        History h = HistoryReaders.read(file).history();
        double best = 0;
        int bestSize = 0;
        String[] lines = new String[roundSizes.size()];
        double[] caps = new double[roundSizes.size()];
        int worst = 0;
        for (int i = 0; i < roundSizes.size(); i++) {
            int size = roundSizes.get(i);
            System.gc();
            BenchCommand.resetPeaks();
            RoundsOptions o = RoundsOptions.defaults().withCheck(CheckOptions.defaults().withTimeout(timeout).withReachability(reachability)).withRoundSize(size);
            WireFormat wf = WireFormat.standalone();
            RoundsRun run = Verifier.inRounds(h, o, null, wire ? t -> wf.decode(wf.encode(t), Transaction.class) : t -> t);
            long heap = BenchCommand.peakHeap();
            RoundsSummary sum = RoundsSummary.of(run, h.size());
            caps[i] = sum.capacity();
            if (caps[i] > best) { best = caps[i]; bestSize = i; }
            int n = run.rounds().size();
            double early = 0, late = 0;
            int ec = 0, lc = 0;
            for (int r = 10; r < Math.min(20, n); r++) { early += run.rounds().get(r).millis(); ec++; }
            for (int r = Math.max(0, n - 11); r < n - 1; r++) { late += run.rounds().get(r).millis(); lc++; } // the last round is partial
            String drift = ec > 0 && lc > 0 ? String.format("%.2fx", (late / lc) / Math.max(1e-9, early / ec)) : "-";
            double gc = run.rounds().stream().mapToDouble(r -> r.gcNanos() / 1e6).sum();
            Verdict verdict = sum.verdict(List.of());
            worst = Math.max(worst, verdict.outcome().exitCode());
            lines[i] = String.format("%-12s %8d %6d %6d %10.0f %9.0f %8.0f %8s %9d %9d %8d %7.0f %8d  %s", name, h.size(), size, n, caps[i],
                    sum.cpuCapacity(), run.totalMillis() / Math.max(1, n), drift, run.retainedMax(), run.last().retained(), heap >> 20, gc,
                    sum.collectorMillis(), verdict.outcome().word() + (verdict.unknownReason() != null ? " (" + verdict.unknownReason() + ")" : ""));
        }
        for (int i = 0; i < lines.length; i++) out.println(lines[i] + (i == bestSize ? " *" : ""));
        return worst;
    }

}
