package org.cobraverify.verifier;

import org.cobraverify.checker.CheckOptions;
import org.cobraverify.rounds.RoundSettings;

/**
 * How rounds are verified: the check's options, the round size, the fence key, and how long a transaction may wait for a
 * write ({@code pendingRounds}). Immutable; start from {@link #defaults}.
 */
public record RoundsOptions(CheckOptions check, int roundSize, String fenceKey, int pendingRounds) {
    /** A minute per check, rounds of 5,000, the default fence key, 20 rounds of waiting. */
    public static RoundsOptions defaults() {
        RoundSettings s = RoundSettings.defaults();
        return new RoundsOptions(s.check(), 5000, Verifier.DEFAULT_FENCE_KEY, s.pendingRoundsLimit());
    }

    public RoundsOptions withCheck(CheckOptions c) { return new RoundsOptions(c, roundSize, fenceKey, pendingRounds); }

    public RoundsOptions withRoundSize(int n) { return new RoundsOptions(check, n, fenceKey, pendingRounds); }

    public RoundsOptions withFenceKey(String k) { return new RoundsOptions(check, roundSize, k, pendingRounds); }

    public RoundsOptions withPendingRounds(int n) { return new RoundsOptions(check, roundSize, fenceKey, n); }

    /** The verifier's settings these options make (sound garbage collection, the default retained bound). */
    public RoundSettings settings() {
        return RoundSettings.defaults().withCheck(check).withPendingRoundsLimit(pendingRounds);
    }
}
