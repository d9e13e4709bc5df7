package org.cobraverify.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cobraverify.rounds.RoundsDifferential;

/**
 * {@code cobra bench --differential N}: {@link RoundsDifferential} over seeds {@code seed .. seed + N − 1}, on every
 * core. Prints the verdicts' totals, the unknown ones by kind, and every history whose rounds disagreed with
 * one-shot checking (with its seed); exit 0 when none did, 1 otherwise.
 */
final class DifferentialCampaign {
    private final PrintStream out;

    DifferentialCampaign(PrintStream out) { this.out = out; }

    int run(int histories, long seed) throws Exception {
        long t0 = System.nanoTime();
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<RoundsDifferential.Result>> results = new ArrayList<>(histories);
        try {
            for (int i = 0; i < histories; i++) {
                long s = seed + i;
                results.add(pool.submit(() -> RoundsDifferential.run(s)));
            }
            long txns = 0, unknown = 0, accepted = 0, rejected = 0, collected = 0;
            Map<String, Integer> reasons = new TreeMap<>();
            List<String> problems = new ArrayList<>();
            for (Future<RoundsDifferential.Result> f : results) {
                RoundsDifferential.Result r = f.get();
                txns += r.transactions();
                unknown += r.unknown();
                accepted += r.accepted();
                rejected += r.rejected();
                if (r.collected()) collected++;
                r.unknownReasons().forEach((k, c) -> reasons.merge(k, c, Integer::sum));
                if (r.problem() != null) problems.add(r.problem());
            }
            long verdicts = unknown + accepted + rejected;
            out.printf("rounds against one-shot: %,d histories (seeds %d..%d, %,d transactions), %,d round verdicts: %,d accept, %,d reject,"
                    + " %,d unknown (%.2f%%); garbage collected in %,d histories; %d disagreements; %.1f s on %d threads%n",
                    histories, seed, seed + histories - 1, txns, verdicts, accepted, rejected, unknown, 100.0 * unknown / Math.max(1, verdicts), collected,
                    problems.size(), (System.nanoTime() - t0) / 1e9, threads);
            reasons.forEach((k, c) -> out.printf("  unknown %,6d x  %s%n", c, k));
            for (String p : problems) out.println("  DISAGREES: " + p);
            return problems.isEmpty() ? 0 : 1;
        } finally {
            pool.shutdownNow();
        }
    }
}
