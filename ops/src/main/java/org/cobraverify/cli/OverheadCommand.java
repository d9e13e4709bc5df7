package org.cobraverify.cli;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * alternating and repeating, and prints throughput, p90 latency and the bytes the collector adds.
 */
@Command(name = "overhead", mixinStandardHelpOptions = true,
        description = "Measures the collector's cost: throughput and p90 latency with and without it, and the bytes it adds per transaction.")
public final class OverheadCommand implements Callable<Integer> {
    @Option(names = "--db", split = ",", description = "Stores to measure (default: rocksdb,postgres).")
    List<String> dbs = List.of("rocksdb", "postgres");

    @Option(names = "--workload", description = "Workload (default: ${DEFAULT-VALUE}, as in the paper's C8).")
    String workload = "twitter";

    @Option(names = "--clients", description = "Concurrent sessions (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--txns", description = "Transactions per run (default: ${DEFAULT-VALUE}).")
    long txns = 20_000;

    @Option(names = "--repeat", description = "Bare and recorded runs, alternating, per store; the best of each is reported (default: ${DEFAULT-VALUE}).")
    int repeat = 3;

    @Override
    public Integer call() throws Exception {
        System.out.printf("%-22s %-10s %12s %10s %12s %10s %11s %11s%n", "store", "workload", "bare txn/s", "bare p90", "cobra txn/s", "cobra p90",
                "throughput", "bytes/txn");
        for (String db : dbs) {
            double bestBare = 0, bestRec = 0, p90Bare = Double.MAX_VALUE, p90Rec = Double.MAX_VALUE, bytes = 0;
            String name = db;
            for (int i = 0; i < repeat; i++) {
                for (boolean recorded : new boolean[] {false, true}) {
                    Path tmp = Files.createTempDirectory("cobra-overhead");
                    try (KvStore store = RecordCommand.openStore(db, tmp, null, null, "", "cobra_overhead", JdbcStore.Isolation.SERIALIZABLE)) {
                        name = store.name();
                        Workload w = Workload.byName(workload, 1);
                        Path file = tmp.resolve("h.jsonl");
                        Recorder rec = recorded ? new Recorder(store, new JsonlSink(file), Recorder.Options.defaults()) : null;
                        WorkloadRunner.Result r;
                        try {
                            r = WorkloadRunner.run(w, store, rec, clients, txns, 1 + i, new WorkloadRunner.Progress());
                        } finally {
                            if (rec != null) rec.close();
                        }
                        if (recorded) {
                            bestRec = Math.max(bestRec, r.throughput());
                            p90Rec = Math.min(p90Rec, r.percentileMillis(90));
                            bytes = r.addedBytes() / (double) Math.max(1, r.committed() + r.aborted());
                        } else {
                            bestBare = Math.max(bestBare, r.throughput());
                            p90Bare = Math.min(p90Bare, r.percentileMillis(90));
                        }
                    } finally {
                        RecordCommand.deleteTree(tmp);
                    }
                }
            }
            System.out.printf("%-22s %-10s %12.0f %8.2fms %12.0f %8.2fms %+10.1f%% %11.1f%n", name, workload, bestBare, p90Bare, bestRec, p90Rec,
                    100.0 * (bestRec - bestBare) / bestBare, bytes);
        }
        System.out.printf("(%d clients, %d transactions per run, best of %d alternating runs; bytes/txn: write ids in stored values plus fence transactions)%n",
                clients, txns, repeat);
        return 0;
    }
}
