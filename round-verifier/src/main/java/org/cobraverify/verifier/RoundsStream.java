package org.cobraverify.verifier;

import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundsRun;
import org.cobraverify.rounds.StreamingRounds;
import org.cobraverify.schemas.Transaction;

/**
 * Verification in rounds of transactions offered one at a time ({@link Verifier#streamRounds}): {@link #offer} each in
 * file order, then {@link #finish}; {@link #close} frees the temporary store of collected writes.
 */
public final class RoundsStream implements AutoCloseable {
    private final IncrementalVerifier verifier;
    private final StreamingRounds rounds;

    RoundsStream(IncrementalVerifier verifier, StreamingRounds rounds) {
        this.verifier = verifier;
        this.rounds = rounds;
    }

    /** Offers the next transaction; false once verification has stopped (nothing more needs to be read). */
    public boolean offer(Transaction t) { return rounds.offer(t); }

    /** Ends the last round and returns every round's result. */
    public RoundsRun finish() { return rounds.finish(); }

    @Override
    public void close() { verifier.close(); }
}
