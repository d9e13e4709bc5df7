package org.cobraverify.rounds;

import org.cobraverify.checker.CheckOptions;
import org.cobraverify.gc.analysis.GarbageCollection;

/**
 * How a verifier in rounds runs ({@link IncrementalVerifier}).
 *
 * @param check              the checker's options (budget, solver, strict mode)
 * @param pendingRoundsLimit rounds a transaction may wait for a write before the verdict is unknown
 * @param maxRetained        retained and waiting transactions past which the state is dropped (verdicts turn unknown)
 * @param gc                 collect garbage (false: keep everything, as a one-shot check would)
 */
public record RoundSettings(CheckOptions check, int pendingRoundsLimit, int maxRetained, boolean gc, GarbageCollection.Rules gcRules) {
    /** A minute per check, 20 rounds of waiting, 250,000 retained, sound garbage collection. */
    public static RoundSettings defaults() { return new RoundSettings(CheckOptions.defaults().withTimeout(60), 20, 250_000, true, GarbageCollection.Rules.SOUND); }

    public RoundSettings withCheck(CheckOptions c) { return new RoundSettings(c, pendingRoundsLimit, maxRetained, gc, gcRules); }

    public RoundSettings withPendingRoundsLimit(int rounds) { return new RoundSettings(check, rounds, maxRetained, gc, gcRules); }

    /** Tests only: {@link GarbageCollection.Rules}' careless rules, to show what the sound ones prevent. */
    public RoundSettings withGcRules(GarbageCollection.Rules rules) { return new RoundSettings(check, pendingRoundsLimit, maxRetained, gc, rules); }
}

