package org.cobraverify.verifier;

import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.rounds.RoundSettings;

/**
 * How rounds are verified: the check's options, the round size, the fence key, how long a transaction may wait for a
 * write ({@code pendingRounds}), and the level checked (null: serializability, strict when the check's options are).
 * Immutable; start from {@link #defaults}.
 */
public record RoundsOptions(CheckOptions check, int roundSize, String fenceKey, int pendingRounds, IsolationLevel level) {
    public RoundsOptions(CheckOptions check, int roundSize, String fenceKey, int pendingRounds) { this(check, roundSize, fenceKey, pendingRounds, null); }

    /** A minute per check, rounds of 5,000, the default fence key, 20 rounds of waiting, serializability. */
    public static RoundsOptions defaults() {
        RoundSettings s = RoundSettings.defaults();
        return new RoundsOptions(s.check(), 5000, Verifier.DEFAULT_FENCE_KEY, s.pendingRoundsLimit());
    }

    public RoundsOptions withCheck(CheckOptions c) { return new RoundsOptions(c, roundSize, fenceKey, pendingRounds, level); }

    public RoundsOptions withRoundSize(int n) { return new RoundsOptions(check, n, fenceKey, pendingRounds, level); }

    public RoundsOptions withFenceKey(String k) { return new RoundsOptions(check, roundSize, k, pendingRounds, level); }

    public RoundsOptions withPendingRounds(int n) { return new RoundsOptions(check, roundSize, fenceKey, n, level); }

    /** At {@code l} (docs/DESIGN.md §11; below serializability, with the sealed past of §7.11). */
    public RoundsOptions withLevel(IsolationLevel l) { return new RoundsOptions(check, roundSize, fenceKey, pendingRounds, l); }

    /** The verifier's settings these options make (sound garbage collection, the default retained bound). */
    public RoundSettings settings() {
        RoundSettings s = RoundSettings.defaults().withCheck(check).withPendingRoundsLimit(pendingRounds);
        return level == null ? s : s.withLevel(level);
    }
}
