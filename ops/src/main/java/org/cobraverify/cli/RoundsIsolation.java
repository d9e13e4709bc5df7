package org.cobraverify.cli;

import org.cobraverify.checker.IsolationLevel;

/**
 * {@code --isolation} for the commands that verify in rounds ({@code verifier}, {@code replay}, {@code demo},
 * {@code verify --rounds}): the level the rounds check, any of the ladder's (docs/DESIGN.md §11). Serializability and its
 * strict variant are checked as docs/DESIGN.md §7.1–§7.10 say, every weaker level with the sealed past (§7.11).
 */
final class RoundsIsolation {
    private RoundsIsolation() {}

    /** The option's help text. */
    static final String HELP = "The level the rounds check: read-committed (rc), strong-session-read-committed (ssrc), read-atomic (ra),"
            + " causal (cc), snapshot-isolation (si), serializable (ser, the default) or strict-serializable (strict-ser, as --strict).";

    /**
     * The level {@code level} names (null: not given, so serializable, or strict-serializable with {@code strict});
     * {@link IllegalArgumentException} naming the problem when it names no level or contradicts {@code strict}.
     */
    static IsolationLevel level(String level, boolean strict) {
        if (level == null) return strict ? IsolationLevel.STRICT_SERIALIZABLE : IsolationLevel.SERIALIZABLE;
        IsolationLevel l = IsolationLevel.parse(level);
        if (strict && l != IsolationLevel.STRICT_SERIALIZABLE)
            throw new IllegalArgumentException("--strict means --isolation strict-serializable, not " + l.longName() + "; give one of them");
        return l;
    }

    /** Whether {@code level} (null: not given) with {@code strict} asks for strict serializability (as {@link #level}). */
    static boolean strict(String level, boolean strict) { return level(level, strict) == IsolationLevel.STRICT_SERIALIZABLE; }
}
