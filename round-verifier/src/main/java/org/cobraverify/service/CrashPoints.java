package org.cobraverify.service;

/**
 * The test hook of {@link VerifierService}: the {@link VerifierService.CrashPoint} installed (none until one is), which
 * the loop calls for each round after its verdict is sent and before its transaction commits. An exception thrown there
 * ends {@link VerifierService#run} with the transaction open, as a crash at that point would.
 *
 * <p>Contract: {@link #install} may be called from any thread at any time; each {@link #reached} uses the point installed
 * when it is called.
 */
final class CrashPoints {
    private volatile VerifierService.CrashPoint point = round -> {};

    /** Installs a crash point (replacing the one before). */
    void install(VerifierService.CrashPoint p) { this.point = p; }

    /** Round {@code round}'s verdict is sent and its transaction not yet committed. */
    void reached(long round) { point.reached(round); }
}
