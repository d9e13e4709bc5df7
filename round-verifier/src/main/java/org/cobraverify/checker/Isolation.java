package org.cobraverify.checker;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.cobraverify.history.History;
import org.cobraverify.solver.Budget;

/**
 * Checks a history at any level of the ladder ({@link IsolationLevel}; docs/DESIGN.md §11). Pure: a history in, a
 * verdict out. Read committed, read atomic and causal are decided by saturation ({@link SaturationCheck}), snapshot
 * isolation on the start/commit graph with the acyclicity solver ({@link SnapshotIsolationCheck}), serializability and
 * its strict variant by the {@link Checker}. Aborted transactions never count; a transaction of unknown outcome counts
 * as committed exactly when a counted read observed its write; a transaction may read a key several times and read its
 * own writes, with the meaning §11.1 gives at each level.
 */
public final class Isolation {
    private Isolation() {}

    /**
     * The verdict at {@code level}: accept (with a witness commit order), reject with a certificate, or unknown when the
     * options' budget runs out. The strict level uses the options' clock drift; every other level ignores real time.
     */
    public static Verdict check(History h, IsolationLevel level, CheckOptions options) {
        Verdict v = switch (level) {
            case READ_COMMITTED, STRONG_SESSION_READ_COMMITTED, READ_ATOMIC, CAUSAL -> SaturationCheck.check(h, level, budget(options));
            case SNAPSHOT_ISOLATION -> SnapshotIsolationCheck.check(h, options, budget(options));
            case SERIALIZABLE -> Checker.check(h, options.withoutStrict());
            case STRICT_SERIALIZABLE -> Checker.check(h, options.strict() ? options : options.withStrict(options.driftNanos()));
        };
        if (v.stats() != null) v.stats().level = level;
        return v;
    }

    /**
     * Every level, weakest first, each under the options' budget. By the ladder property a level can hold only if every
     * weaker one does; each level is checked all the same, so that each failing one has its own certificate.
     */
    public static Ladder checkAll(History h, CheckOptions options) {
        Map<IsolationLevel, Verdict> verdicts = new EnumMap<>(IsolationLevel.class);
        for (IsolationLevel l : IsolationLevel.values()) verdicts.put(l, check(h, l, options));
        return new Ladder(verdicts);
    }

    /**
     * The weakest level that a history rejected at {@code level} violates: the levels below it are checked, weakest
     * first, until one rejects. Returns {@code level} itself when every weaker level accepts, and null when a weaker
     * level's check was unknown before any rejected (the anomaly may or may not break it).
     */
    public static IsolationLevel weakestViolated(History h, IsolationLevel level, CheckOptions options) {
        for (IsolationLevel l : IsolationLevel.values()) {
            if (l == level) return level;
            Verdict v = check(h, l, options);
            if (v.outcome() == Verdict.Outcome.REJECT) return l;
            if (v.outcome() == Verdict.Outcome.UNKNOWN) return null;
        }
        return level;
    }

    /**
     * Runs one level's check into {@code stats} (the history's sizes and the time to the decision filled in): its verdict,
     * or unknown with the reason when the budget ran out.
     */
    static Verdict decide(History h, CheckStats stats, Function<CheckStats, Verdict> check) {
        stats.transactions = h.size();
        stats.keys = h.keyCount();
        stats.sessions = h.sessionCount();
        long t0 = System.nanoTime();
        try {
            Verdict v = check.apply(stats);
            stats.decisionNanos = System.nanoTime() - t0;
            return v;
        } catch (Budget.Exhausted e) {
            return new Verdict(Verdict.Outcome.UNKNOWN, null, null, e.getMessage(), stats, List.of());
        }
    }

    private static Budget budget(CheckOptions options) { return Budget.of(options.timeoutSeconds(), options.maxHeapBytes()); }

    /** The verdict at every level, and what they say together. */
    public record Ladder(Map<IsolationLevel, Verdict> verdicts) {
        /** The strongest level such that it and every weaker level accept; null when read committed does not. */
        public IsolationLevel strongest() {
            IsolationLevel best = null;
            for (IsolationLevel l : IsolationLevel.values()) {
                if (verdicts.get(l).outcome() != Verdict.Outcome.ACCEPT) break;
                best = l;
            }
            return best;
        }

        /** The weakest level rejected, or null when none is. */
        public IsolationLevel weakestViolated() {
            for (IsolationLevel l : IsolationLevel.values()) if (verdicts.get(l).outcome() == Verdict.Outcome.REJECT) return l;
            return null;
        }

        /**
         * Whether the verdicts contradict the ladder (a level accepted above a rejected one): a checker bug, never a property
         * of the history.
         */
        public boolean consistent() {
            IsolationLevel rejected = weakestViolated();
            if (rejected == null) return true;
            for (IsolationLevel l : IsolationLevel.values())
                if (l.ordinal() > rejected.ordinal() && verdicts.get(l).outcome() == Verdict.Outcome.ACCEPT) return false;
            return true;
        }
    }
}
