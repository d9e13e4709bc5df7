package org.cobraverify.topology;

/**
 * What the topology can be tuned with.
 *
 * @param fenceKey the key fence transactions read and write
 * @param roundSize a round is cut once at least this many transactions of closed epochs wait (whole epochs only)
 * @param sessionTimeoutMs a session silent this long is retired: its waiting transactions are released
 *     and it stops holding back epoch_agree, until it speaks again
 * @param idleCutMs when nothing new arrived for this long, the closed epochs waiting are cut even if fewer than a round
 * @param fenceGapTimeoutMs fences that wait this long with none reading the chain's head: the oldest root is chained anyway
 * @param punctuateMs how often the wall-clock checks above run
 * @param maxEarlyOps operations a session may have waiting ahead of a gap before the gap is declared lost
 * @param maxBufferedTxns transactions a session may hold waiting for a fence before they are released with its last epoch
 *     (50,000: at 10,000 a session running 600 txn/s whose fence waited 16 s behind a lagging assembler task had 10,000
 *     transactions released with an old epoch; they read writes of later epochs, waited in the verifier, and its retained
 *     set climbed from 4k to 140k: the "pending storms" of overloaded runs). The cutter holds them in memory, so the
 *     bound is memory: about 50,000 transactions' bytes per session at worst
 */
public record TopologySettings(String fenceKey, int roundSize, long sessionTimeoutMs, long idleCutMs, long fenceGapTimeoutMs,
                               long punctuateMs, int maxEarlyOps, int maxBufferedTxns) {
    public TopologySettings {
        if (roundSize < 1) throw new IllegalArgumentException("round size must be at least 1");
        if (punctuateMs < 1) throw new IllegalArgumentException("punctuation interval must be positive");
    }

    /**
     * An ended session leaves the assembler's state this long after its last operation (until then, a late
     * operation of it is dead-lettered as "after the session ended"; after, it would start a new session).
     */
    public long forgetEndedMs() { return Math.max(10 * sessionTimeoutMs, 300_000); }

    /**
     * A retired (silent) session leaves the assembler's state after this much silence: a client silent for
     * longer that comes back starts afresh, its first operations waiting as a gap (up to {@code maxEarlyOps}).
     */
    public long forgetSilentMs() { return Math.max(100 * sessionTimeoutMs, 86_400_000L); }

    /**
     * A session that has sent transactions but run no fence for this long (the fence-gap timeout) is unfenced: what it sent
     * and sends until it fences is released at once, stamped unfenced (EpochRules rule 5). A client of ours runs its opening
     * fence first, so this only ever waits for another's.
     */
    public long unfencedAfterMs() { return fenceGapTimeoutMs; }

    public static TopologySettings defaults() {
        return new TopologySettings("EPOCH", 5000, 30_000, 2_000, 10_000, 500, 10_000, 50_000);
    }

    public TopologySettings withRoundSize(int n) {
        return new TopologySettings(fenceKey, n, sessionTimeoutMs, idleCutMs, fenceGapTimeoutMs, punctuateMs, maxEarlyOps, maxBufferedTxns);
    }

    public TopologySettings withSessionTimeoutMs(long ms) {
        return new TopologySettings(fenceKey, roundSize, ms, idleCutMs, fenceGapTimeoutMs, punctuateMs, maxEarlyOps, maxBufferedTxns);
    }

    public TopologySettings withIdleCutMs(long ms) {
        return new TopologySettings(fenceKey, roundSize, sessionTimeoutMs, ms, fenceGapTimeoutMs, punctuateMs, maxEarlyOps, maxBufferedTxns);
    }

    public TopologySettings withFenceGapTimeoutMs(long ms) {
        return new TopologySettings(fenceKey, roundSize, sessionTimeoutMs, idleCutMs, ms, punctuateMs, maxEarlyOps, maxBufferedTxns);
    }
}
