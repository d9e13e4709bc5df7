package org.cobraverify.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra overhead}: the paper's C8/C9 on our collector. Runs the same workload on the same store
 * bare (the adapter alone) and through the collector (write ids, fences, recording to a file),
 * alternating and repeating after a discarded warm-up pair, and prints the median throughput and p90
 * latency of each (with the range, since runs on a busy two-core machine vary), and the bytes added.
 */
@Command(name = "overhead", mixinStandardHelpOptions = true, footer = "Exit codes: 0 measured, 2 could not run (bad options, a store unreachable).",
        description = "Measures the collector's cost: throughput and p90 latency with and without it, and the bytes it adds per transaction.")
public final class OverheadCommand implements Callable<Integer> {
    @Option(names = "--db", split = ",", description = "Stores to measure (default: rocksdb,postgres).")
    List<String> dbs = List.of("rocksdb", "postgres");

    @Option(names = "--workload", description = "Workload (default: ${DEFAULT-VALUE}, as in the paper's C8).")
    String workload = "twitter";

    @Option(names = "--clients", description = "Concurrent sessions (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--txns", description = {"Transactions per run (default: 20,000 on a database server, 200,000 on RocksDB, a few seconds",
            "each on two cores: RocksDB runs 20,000 in a quarter of a second, too short to measure anything but noise)."})
    Long txns;

    @Option(names = "--repeat", description = "Bare and recorded runs, alternating, per store, after one discarded warm-up pair;"
            + " the median of each is reported, with the spread (default: ${DEFAULT-VALUE}).")
    int repeat = 5;

    @Option(names = "--fence-every", description = "Fence period of the collector (default: ${DEFAULT-VALUE}).")
    int fenceEvery = 20;

    @Option(names = "--max-fence-every", paramLabel = "N", description = {"Longest fence period the collector adapts to while fences cost more than 2%%",
            "of a session's time; N = --fence-every: fixed (default: 10 times --fence-every)."})
    Integer maxFenceEvery;

    @Override
    public Integer call() throws Exception {
        System.out.printf("%-22s %-10s %12s %10s %12s %10s %11s %11s%n", "store", "workload", "bare txn/s", "bare p90", "cobra txn/s", "cobra p90",
                "throughput", "bytes/txn");
        Recorder.Options periods = Recorder.Options.adaptive(fenceEvery, maxFenceEvery);
        for (String db : dbs) {
            long txns = this.txns != null ? this.txns : db.equalsIgnoreCase("rocksdb") ? 200_000 : 20_000;
            double[] bare = new double[repeat], rec = new double[repeat], p90Bare = new double[repeat], p90Rec = new double[repeat];
            double bytes = 0;
            long[] aborts = new long[2], commits = new long[2]; // bare, recorded (fences not counted)
            long fences = 0;
            String name = db;
            for (int i = -1; i < repeat; i++) { // i = -1: a warm-up pair, not counted
                for (boolean recorded : new boolean[] {false, true}) {
                    Path tmp = Files.createTempDirectory("cobra-overhead");
                    try (KvStore store = RecordCommand.openStore(db, tmp, null, null, "", "cobra_overhead", JdbcStore.Isolation.SERIALIZABLE, JdbcStore.Table.RECREATE_OWN)) {
                        name = store.name();
                        Workload w = Workload.byName(workload, 1);
                        Recorder r0 = recorded ? new Recorder(store, new JsonlSink(tmp.resolve("h.jsonl")), periods) : null;
                        WorkloadRunner.Result r;
                        try {
                            r = WorkloadRunner.run(w, store, r0, clients, txns, 2 + i, new WorkloadRunner.Progress());
                        } finally {
                            if (r0 != null) r0.close();
                        }
                        if (i < 0) continue;
                        aborts[recorded ? 1 : 0] += r.aborted();
                        commits[recorded ? 1 : 0] += r.committed();
                        fences += r.fences();
                        if (recorded) {
                            rec[i] = r.throughput();
                            p90Rec[i] = r.percentileMillis(90);
                            bytes = r.addedBytes() / (double) Math.max(1, r.committed() + r.aborted());
                        } else {
                            bare[i] = r.throughput();
                            p90Bare[i] = r.percentileMillis(90);
                        }
                    } finally {
                        RecordCommand.deleteTree(tmp);
                    }
                }
            }
            double mb = median(bare), mr = median(rec);
            // each recorded run against the bare run just before it: slow phases of the machine hit both alike
            double[] paired = new double[repeat];
            for (int i = 0; i < repeat; i++) paired[i] = 100.0 * (rec[i] - bare[i]) / bare[i];
            System.out.printf("%-22s %-10s %12.0f %8.2fms %12.0f %8.2fms %+10.1f%% %11.1f   (paired %+.1f%%; bare %.0f..%.0f, cobra %.0f..%.0f txn/s;"
                            + " aborts per 1,000 commits: bare %.1f, cobra %.1f; fences per 1,000 commits %.1f)%n",
                    name, workload, mb, median(p90Bare), mr, median(p90Rec), 100.0 * (mr - mb) / mb, bytes, median(paired),
                    Arrays.stream(bare).min().orElse(0), Arrays.stream(bare).max().orElse(0), Arrays.stream(rec).min().orElse(0), Arrays.stream(rec).max().orElse(0),
                    1000.0 * aborts[0] / Math.max(1, commits[0]), 1000.0 * aborts[1] / Math.max(1, commits[1]),
                    1000.0 * fences / Math.max(1, commits[1]));
        }
        System.out.printf("(fences every %d commits%s; %d clients, %s transactions per run, median of %d alternating runs after a warm-up pair; paired: the median of each"
                + " recorded run against the bare run before it; bytes/txn: write ids in stored values plus fence transactions)%n",
                fenceEvery, periods.adaptive() ? ", up to every " + periods.maxFenceEvery() + " while they cost more than 2% of a session's time" : ", fixed",
                clients, txns == null ? "20,000 (200,000 on RocksDB)" : String.format("%,d", txns), repeat);
        return 0;
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length == 0 ? 0 : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
