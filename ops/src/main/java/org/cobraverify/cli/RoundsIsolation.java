package org.cobraverify.cli;

import org.cobraverify.checker.IsolationLevel;

/**
 * {@code --isolation} for the commands that verify in rounds ({@code verifier}, {@code replay}, {@code demo}): the level
 * the rounds check. Rounds check serializability and strict serializability; the weaker levels are checked one shot
 * ({@code cobra verify --isolation}), and a command asked for one in rounds refuses before it starts, saying so.
 */
final class RoundsIsolation {
    private RoundsIsolation() {}

    /** The option's help text. */
    static final String HELP = "The level the rounds check: serializable (the default) or strict-serializable (as --strict); the weaker levels"
            + " are checked one shot, with cobra verify --isolation.";

    /**
     * Whether {@code level} (null: not given) asks for strict serializability; {@link IllegalArgumentException} naming the
     * problem when it names no level, or a level rounds do not check, or contradicts {@code strict}.
     */
    static boolean strict(String level, boolean strict) {
        if (level == null) return strict;
        IsolationLevel l = IsolationLevel.parse(level);
        if (l != IsolationLevel.SERIALIZABLE && l != IsolationLevel.STRICT_SERIALIZABLE)
            throw new IllegalArgumentException("--isolation " + l.longName() + ": rounds check serializable and strict-serializable; "
                    + l.longName() + " is checked one shot (cobra verify --isolation " + l.shortName() + " FILE)");
        if (strict && l == IsolationLevel.SERIALIZABLE)
            throw new IllegalArgumentException("--strict means --isolation strict-serializable, not " + l.longName() + "; give one of them");
        return l == IsolationLevel.STRICT_SERIALIZABLE;
    }
}
