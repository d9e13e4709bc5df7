package org.cobraverify.rounds;

import java.util.List;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.schemas.Transaction;

/**
 * What one round's check found. {@code verdict} is the checker's own answer on the round's history (null if none ran).
 * {@code batchCounts}: when the round closed a batch of rounds decided with one check ({@link IncrementalVerifier#add(Transaction, long)}),
 * for each round of the batch in order, the checked-transaction total and the number waiting that deciding the rounds
 * one by one would report (before any collection between them); null for a single round. {@code keptBy}: when
 * garbage collection analysed the round, how many transactions stayed for each {@link GarbageCollection.Kept}
 * reason (indexed by ordinal); null otherwise. {@code violations}: those this round found (each with its certificate;
 * {@code certificate} is the first), {@code violationsTotal} and {@code firstViolationRound}: the history's so far
 * (-1: none yet); {@code own}: what the round's own transactions came to (a reject when it found a violation), while
 * {@code outcome} is the verdict on the history as a whole, a reject from the first violation on (docs/DESIGN.md §7.10).
 * {@code unchecked}: the transactions this round left out of the checked history because nothing shows that they follow
 * the collected past (docs/DESIGN.md §7.6), and {@code uncheckedTotal} how many so far: an accept speaks of the rest.
 * {@code rest}: what the round's own transactions less its new violations' came to ({@code own} is a reject when it found one).
 */
public record RoundResult(long round, Verdict.Outcome outcome, String reason, Certificate certificate, Verdict verdict, CheckStats stats,
                          int roundTxns, long checkedTxns, int pendingTxns, int historySize, int retained, int collectedNow,
                          long collectedTotal, long buildNanos, long checkNanos, long gcNanos, String gcNote, int superseded, int old,
                          int settled, long[][] batchCounts, int[] keptBy, List<Certificate> violations, long violationsTotal,
                          long firstViolationRound, Verdict.Outcome own, long cpuNanos, long collectorMillis, List<Unchecked> unchecked,
                          long uncheckedTotal, Verdict.Outcome rest) {
    public double millis() { return (buildNanos + checkNanos + gcNanos) / 1e6; }

    /** Whether the round's own transactions were verified, with no new violation (whatever the history had before). */
    public boolean clean() { return own == Verdict.Outcome.ACCEPT; }
}

