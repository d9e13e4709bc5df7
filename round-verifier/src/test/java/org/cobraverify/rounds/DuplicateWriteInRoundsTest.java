package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.testkit.Txns;
import org.junit.jupiter.api.Test;

/**
 * A transaction that repeats a held transaction's write (or its own) breaks unique writes (A1). Before, the
 * round's history builder threw outside the verifier's error handling, so the service stopped, and stopped again
 * at the same round after every restart. Now the transaction is left out, the verifier goes on, no later round is
 * accepted, and a violation after it is still rejected.
 */
class DuplicateWriteInRoundsTest {
    private static Transaction txn(String id, String session, long index, String... ops) {
        return Txns.txn(id, session, index, -1, false, ops);
    }

    @Test
    void aRepeatedWriteIsLeftOutAndNoLaterRoundIsAccepted() {
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            v.add(txn("a", "A", 1, "w x 1"));
            RoundResult r0 = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.ACCEPT, r0.outcome(), r0.reason());
            v.add(txn("b", "B", 1, "w x 1")); // a's write again
            v.add(txn("c", "C", 1, "w y 1", "w y 1")); // its own, twice
            RoundResult r1 = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.UNKNOWN, r1.outcome(), r1.reason());
            assertTrue(r1.reason().contains("b writes x = 1, which a wrote too"), r1.reason());
            v.add(txn("d", "A", 2, "r x 1"));
            RoundResult r2 = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.UNKNOWN, r2.outcome(), "no accept after a history that is not the one checked: " + r2.reason());
            // lost update: two read-modify-writes of one version
            for (Transaction t : List.of(txn("e", "A", 3, "r x 1", "w x 2"), txn("f", "B", 2, "r x 1", "w x 3")))
                v.add(t);
            RoundResult r3 = v.endRound(-1, s -> false);
            assertEquals(Verdict.Outcome.REJECT, r3.outcome(), "a violation after it is still found: " + r3.reason());
        }
    }
}
