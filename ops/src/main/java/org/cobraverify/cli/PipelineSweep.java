package org.cobraverify.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code cobra bench --pipeline}: the whole pipeline in one process ({@code cobra demo}: an in-process
 * broker, the topology, the verifier, a workload on RocksDB through the collector) once per offered rate,
 * and one line per rate: what the workload achieved, the end-to-end rate of verdicts, the verdict lag
 * percentiles (a round's last commit to its verdict) and how long after the workload the last verdict came.
 * Rate 0 is "as fast as the clients go". The capacity of the pipeline on a machine is the highest rate whose
 * lags stay flat.
 */
final class PipelineSweep {
    private final PrintStream out;

    PipelineSweep(PrintStream out) { this.out = out; }

    int run(List<Double> rates, long txns, String workload, int clients, int roundSize) throws Exception { return run(rates, txns, workload, clients, roundSize, null); }

    /**
     * As above; with {@code registry} (a schema registry's URL), each rate runs twice, one after the other: records
     * single-object encoded with the catalog topic, then in the Confluent wire format through the registry.
     */
    int run(List<Double> rates, long txns, String workload, int clients, int roundSize, String registry) throws Exception {
        out.printf("%9s %8s %8s %10s %10s %8s %8s %8s %9s %7s  %s%n", "offered", "wire", "txns", "workload", "verdicts", "lag p50", "lag p99", "lag max", "last/s", "rounds", "verdicts");
        int worst = 0;
        for (double rate : rates) {
            for (String wire : registry == null ? new String[] {null} : new String[] {null, registry}) {
                DemoCommand d = new DemoCommand();
                d.kafkaOptions.schemaRegistry = wire;
                d.txns = txns;
                d.rate = rate;
                d.workload = workload;
                d.clients = clients;
                d.roundSize = roundSize;
                d.quiet = true;
                d.printSummary = false;
                int code = d.call();
                worst = Math.max(worst, code);
                DemoCommand.Result r = d.result;
                String how = wire == null ? "catalog" : "registry";
                if (r == null) { out.printf("%9s %8s  (did not run: exit %d)%n", label(rate), how, code); continue; }
                out.printf("%9s %8s %8d %8.0f/s %8.0f/s %7.2fs %7.2fs %7.2fs %8.1fs %7d  %d accepted, %d rejected, %d unknown%s%n", label(rate), how, r.recorded(),
                        r.workloadPerSecond(), r.endToEndPerSecond(), r.lagQuantile(0.5), r.lagQuantile(0.99), r.lagQuantile(1.0), r.lastVerdictAfterEnd(),
                        r.rounds(), r.accepts(), r.rejects(), r.unknowns(), r.complete() ? "" : " (verdicts did not cover every transaction)");
            }
        }
        out.printf("(%s %s, %d cores; %s, %d clients, rounds of %d; lags per round)%n", System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), workload, clients, roundSize);
        return worst;
    }

    private static String label(double rate) { return rate <= 0 ? "max" : String.format("%.0f/s", rate); }
}
