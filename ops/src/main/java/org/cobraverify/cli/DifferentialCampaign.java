package org.cobraverify.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.rounds.RoundsDifferential;
import org.cobraverify.verifier.Verifier;

/**
 * {@code cobra bench --differential N}: {@link RoundsDifferential} over seeds {@code seed .. seed + N − 1}, on every
 * core. Prints the verdicts' totals, the unknown ones by kind, and every history whose rounds disagreed with
 * one-shot checking (with its seed); exit 0 when none did, 1 otherwise.
 */
final class DifferentialCampaign {
    private final PrintStream out;

    DifferentialCampaign(PrintStream out) { this.out = out; }

    int run(int histories, long seed, String rules) throws Exception { return run(histories, seed, rules, IsolationLevel.SERIALIZABLE); }

    /** As above, with rounds and one-shot checking at {@code level}. */
    int run(int histories, long seed, String rules, IsolationLevel level) throws Exception {
        long t0 = System.nanoTime();
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<RoundsDifferential.Result>> results = new ArrayList<>(histories);
        try {
            for (int i = 0; i < histories; i++) {
                long s = seed + i;
                results.add(pool.submit(() -> {
                    try {
                        return level == IsolationLevel.SERIALIZABLE ? Verifier.differential(s, rules) : Verifier.differential(s, rules, level);
                    } catch (RuntimeException e) { // a history the verifier cannot get through is a disagreement, named by its seed
                        throw new IllegalStateException("seed " + s + ": " + e, e);
                    }
                }));
            }
            RoundsDifferential.Totals all = new RoundsDifferential.Totals();
            for (Future<RoundsDifferential.Result> f : results) {
                try {
                    all.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    all.problems.add(String.valueOf(e.getCause().getMessage())); // (the campaign goes on: every seed is reported)
                }
            }
            out.printf("rounds against one-shot" + (level == IsolationLevel.SERIALIZABLE ? "" : " at " + level.longName())
                    + (rules.equals("SOUND") ? "" : " (" + rules + ")") + ": %,d histories (seeds %d..%d, %,d transactions), %,d round verdicts: %,d accept, %,d reject,"
                    + " %,d unknown (%.2f%%); garbage collected in %,d histories; frontier keys isolated: %,d in %,d histories (by the chain rule: %,d in %,d); %d disagreements;"
                    + " %.1f s on %d threads%n",
                    histories, seed, seed + histories - 1, all.transactions, all.verdicts(), all.accepted, all.rejected, all.unknown,
                    100 * all.unknownShare(), all.collected, all.isolatedKeys, all.isolatedIn, all.chainedKeys, all.chainedIn, all.problems.size(), (System.nanoTime() - t0) / 1e9, threads);
            out.printf("  left unchecked (a session's transactions that follow no fence, or that came back after its fences were collected"
                    + (level.implies(IsolationLevel.SERIALIZABLE) ? "" : level.implies(IsolationLevel.CAUSAL) ? ", or that read a version the sealed past left unordered"
                            : ", or that read a version the sealed past left unordered or superseded") + "): %,d transactions in %,d histories%n",
                    all.unchecked, all.uncheckedIn);
            out.printf("  certificates audited against the whole history (edges justified, the cycle a cycle, the anomaly the one its edges make): %,d, every one valid%s%n",
                    all.certificates, all.problems.stream().anyMatch(p -> p.contains("invalid certificate")) ? " but those below" : "");
            if (!level.implies(IsolationLevel.SERIALIZABLE))
                out.printf("  violations found among transactions that do not follow the past, before they were left unchecked: %,d in %,d histories%n",
                        all.withoutPast, all.withoutPastIn);
            all.shapes.forEach((k, c) -> out.printf("  shape %-10s %,d histories%n", k, c));
            all.unknownReasons.forEach((k, c) -> out.printf("  unknown %,6d x  %s%n", c, k));
            for (String p : all.problems) out.println("  DISAGREES: " + p);
            return all.problems.isEmpty() ? 0 : 1;
        } finally {
            pool.shutdownNow();
        }
    }
}
