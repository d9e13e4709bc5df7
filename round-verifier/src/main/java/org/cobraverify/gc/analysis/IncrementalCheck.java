package org.cobraverify.gc.analysis;

import java.util.List;

import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;

/**
 * One round of an incremental verification: the checker on the retained history plus the round's
 * transactions, with the collected past as a {@link Barrier}, then (on accept) {@link GarbageCollection}.
 * Pure, like {@link Checker}.
 *
 * <p>docs/DESIGN.md §7.
 */
public final class IncrementalCheck {
    private IncrementalCheck() {}

    /**
     * The round's verdict; what GC found (null unless the verdict is accept and GC was asked for); and,
     * on accept with a barrier, which transactions the collected past reaches in the facts (null otherwise).
     */
    public record Result(Verdict verdict, GarbageCollection gc, boolean[] fromBarrier, boolean[] included, List<Certificate> moreViolations) {}

    /**
     * Checks {@code h} with {@code barrier} (null: no past collected yet). On accept, when {@code old} is
     * not null, runs garbage collection by {@code rules} with the given old transactions, entry fences and pinned ones.
     * Transactions from {@code synthetic} on stand for frontier writes collected earlier ({@link FrontierAsData}).
     */
    public static Result run(History h, CheckOptions options, Barrier barrier, boolean[] old, int[] entries, boolean[] pinned,
                             GarbageCollection.Rules rules, int synthetic) {
        CheckedRound c = CheckedRound.check(h, options, barrier);
        Verdict v = c.verdict();
        if (!c.accepted()) return new Result(v, null, null, null, c.moreViolations());
        boolean[] reached = barrier == null ? null : c.facts().reachedFrom(h.size(), c.barrierVertex());
        return new Result(v, old == null ? null : GarbageCollection.analyze(c, old, entries, pinned, rules, synthetic), reached, c.included().clone(),
                List.of());
    }
}
