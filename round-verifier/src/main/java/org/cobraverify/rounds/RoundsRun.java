package org.cobraverify.rounds;

import java.util.List;

/** The outcome of a whole run in rounds: one result per round, and the overall verdict (that of the last round). */
public record RoundsRun(List<RoundResult> rounds, int fences) {
    public RoundResult last() { return rounds.get(rounds.size() - 1); }

    public int retainedMax() { return rounds.stream().mapToInt(RoundResult::retained).max().orElse(0); }

    public double totalMillis() { return rounds.stream().mapToDouble(RoundResult::millis).sum(); }

    /** Transactions checked per second of summed round time. */
    public double capacity(int transactions) { return transactions / Math.max(1e-9, totalMillis() / 1000); }
}
