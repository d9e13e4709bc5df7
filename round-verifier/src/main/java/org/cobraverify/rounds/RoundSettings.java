package org.cobraverify.rounds;

import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.gc.analysis.GarbageCollection;

/**
 * How a verifier in rounds runs ({@link IncrementalVerifier}).
 *
 * @param check              the checker's options (budget, solver, strict mode)
 * @param pendingRoundsLimit rounds a transaction may wait for a write before the verdict is unknown
 * @param maxRetained        retained and waiting transactions past which the state is dropped (verdicts turn unknown)
 * @param gc                 collect garbage (false: keep everything, as a one-shot check would)
 * @param level              the level the rounds check (docs/DESIGN.md §11): serializable (strict when {@code check} is), or a
 *                           weaker one, checked with the sealed past of §7.11
 */
public record RoundSettings(CheckOptions check, int pendingRoundsLimit, int maxRetained, boolean gc, GarbageCollection.Rules gcRules,
                            IsolationLevel level) {
    public RoundSettings {
        if (level == null) level = IsolationLevel.SERIALIZABLE;
        if (level == IsolationLevel.STRICT_SERIALIZABLE && !check.strict()) check = check.withStrict(check.driftNanos());
        if (check.strict() && level != IsolationLevel.STRICT_SERIALIZABLE) {
            if (level != IsolationLevel.SERIALIZABLE) throw new IllegalArgumentException("strict mode is serializability's; " + level + " has no strict variant");
            level = IsolationLevel.STRICT_SERIALIZABLE;
        }
    }

    /** As the canonical constructor, at serializability (strict when {@code check} is). */
    public RoundSettings(CheckOptions check, int pendingRoundsLimit, int maxRetained, boolean gc, GarbageCollection.Rules gcRules) {
        this(check, pendingRoundsLimit, maxRetained, gc, gcRules, null);
    }

    /** A minute per check, 20 rounds of waiting, 250,000 retained, sound garbage collection, serializability. */
    public static RoundSettings defaults() { return new RoundSettings(CheckOptions.defaults().withTimeout(60), 20, 250_000, true, GarbageCollection.Rules.SOUND); }

    /** {@code c}, at this level (a weaker level drops a strict flag {@code c} has: there is no strict variant below serializability). */
    public RoundSettings withCheck(CheckOptions c) {
        if (sealed() && c.strict()) c = c.withoutStrict();
        IsolationLevel l = level == IsolationLevel.STRICT_SERIALIZABLE && !c.strict() ? IsolationLevel.SERIALIZABLE : level;
        return new RoundSettings(c, pendingRoundsLimit, maxRetained, gc, gcRules, l);
    }

    public RoundSettings withPendingRoundsLimit(int rounds) { return new RoundSettings(check, rounds, maxRetained, gc, gcRules, level); }

    /** Tests only: {@link GarbageCollection.Rules}' careless rules, to show what the sound ones prevent. */
    public RoundSettings withGcRules(GarbageCollection.Rules rules) { return new RoundSettings(check, pendingRoundsLimit, maxRetained, gc, rules, level); }

    /** At {@code l}: serializability and its strict variant as §7.1–§7.10 say, every weaker level with the sealed past (§7.11). */
    public RoundSettings withLevel(IsolationLevel l) {
        CheckOptions c = l == IsolationLevel.STRICT_SERIALIZABLE ? (check.strict() ? check : check.withStrict(check.driftNanos()))
                : check.strict() ? check.withoutStrict() : check;
        return new RoundSettings(c, pendingRoundsLimit, maxRetained, gc, gcRules, l);
    }

    /** How verdicts say that a history has the level: "serializable" (and "(strictly)"), "snapshot isolated", "read committed", ... */
    public String satisfied() {
        return switch (level) {
            case READ_COMMITTED -> "read committed";
            case STRONG_SESSION_READ_COMMITTED -> "strong session read committed";
            case READ_ATOMIC -> "read atomic";
            case CAUSAL -> "causally consistent";
            case SNAPSHOT_ISOLATION -> "snapshot isolated";
            case SERIALIZABLE -> "serializable";
            case STRICT_SERIALIZABLE -> "serializable (strictly)";
        };
    }

    /** Whether the level is one the sealed past serves (every level below serializability, docs/DESIGN.md §7.11). */
    public boolean sealed() { return !level.implies(IsolationLevel.SERIALIZABLE); }

    /**
     * The level's name where a transaction may read an older version than one another session wrote before it, so that a
     * read of a version collection superseded may be legal (read committed, read atomic); null where it is a violation
     * (docs/DESIGN.md §7.11, "Stale reads below serializability").
     */
    public String mayReadOld() { return level.implies(IsolationLevel.CAUSAL) ? null : level.longName(); }
}
