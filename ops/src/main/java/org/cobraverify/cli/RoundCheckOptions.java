package org.cobraverify.cli;

import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.verifier.RoundsOptions;
import picocli.CommandLine.Option;

/** How rounds are checked: the options {@code cobra verifier} and {@code cobra replay} share (a picocli mixin). */
final class RoundCheckOptions {
    @Option(names = "--strict", description = "Check strict serializability.")
    boolean strict;

    @Option(names = "--isolation", paramLabel = "LEVEL", description = RoundsIsolation.HELP)
    String isolation;

    /** The level resolved from {@code --isolation} and {@code --strict} ({@link #resolveIsolation}). */
    private IsolationLevel level = IsolationLevel.SERIALIZABLE;

    /** Applies {@code --isolation}; {@link IllegalArgumentException} naming the problem when it names no level or contradicts {@code --strict}. */
    void resolveIsolation() {
        level = RoundsIsolation.level(isolation, strict);
        strict = level == IsolationLevel.STRICT_SERIALIZABLE;
    }

    /** The level the rounds check. */
    IsolationLevel level() { return level; }

    @Option(names = "--drift", paramLabel = "MS", description = "Clock drift allowed in strict mode (default: ${DEFAULT-VALUE}).")
    long driftMs = 100;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Budget per round; past it the verdict is unknown (default: ${DEFAULT-VALUE}).")
    double timeout = 60;

    @Option(names = "--pending-rounds", description = "Rounds a read may wait for its write before verdicts turn unknown (default: ${DEFAULT-VALUE}).")
    int pendingRounds = 20;

    /** The checker's options, starting from {@code base}. */
    CheckOptions check(CheckOptions base) {
        CheckOptions co = base.withTimeout(timeout);
        return strict ? co.withStrict(driftMs * 1_000_000L) : co;
    }

    /** The rounds' options: these check options, and {@code --pending-rounds}. */
    RoundsOptions options(CheckOptions base) { return RoundsOptions.defaults().withCheck(check(base)).withPendingRounds(pendingRounds).withLevel(level); }

    /** The verifier's settings the options make (for the service). */
    RoundSettings settings(CheckOptions base) { return options(base).settings(); }
}
