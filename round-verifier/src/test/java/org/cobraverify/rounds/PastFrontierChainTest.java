package org.cobraverify.rounds;

import static org.cobraverify.testkit.Txns.txn;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * The chain rule of {@link PastFrontier} (docs/DESIGN.md §7.9, "Chains from a frontier value"), case by case: key {@code x}'s
 * log names {@code vF} (written by the collected {@code F}) as its latest value, after {@code vOld}; the round's history is the
 * transactions given, every one held (so a read of a value one of them wrote has a held writer). The key is isolated by the
 * rule, with no synthetic writer and listed among {@link PastFrontier#chainKeys}, only when one transaction reads {@code vF},
 * as its first operation on the key, every other read of the key is of a value written in the round, every transaction's
 * first operation on the key is a read, and none is of unknown outcome. Each case is checked with the transactions in both
 * orders (the rule does not depend on the order the round lists them in).
 */
class PastFrontierChainTest {
    static final Predicate<CollectedWrites.FrontierEntry> ALL = e -> true;

    /** What the round made of key x: a synthetic writer (current), the head's read isolated, and x among the chain keys. */
    record Seen(boolean current, boolean headIsolated, boolean chained) {}

    static Seen round(Transaction head, Transaction... others) {
        Seen first = null;
        for (boolean reversed : new boolean[] {false, true}) {
            List<Transaction> order = new ArrayList<>();
            order.add(head);
            order.addAll(List.of(others));
            if (reversed) java.util.Collections.reverse(order);
            InMemoryCollectedWrites log = new InMemoryCollectedWrites();
            log.appendFrontier("x", new CollectedWrites.FrontierEntry("vOld", "E", 1, 0), ALL, 2);
            log.appendFrontier("x", new CollectedWrites.FrontierEntry("vF", "F", 2, 0), ALL, 2);
            HeldTransactions held = new HeldTransactions();
            for (Transaction t : order) assertNull(held.recordWrites(t));
            PastFrontier f = PastFrontier.of(order, log, held, ALL, t -> false, t -> t.getStatus() != TxnStatus.UNKNOWN, t -> false);
            Seen s = new Seen(f.isCurrent("x", "vF"), f.readsIsolated(head, "x", "vF"), f.chainKeys().length == 1);
            if (first == null) first = s;
            else assertEquals(first, s, "the same in both orders");
        }
        return first;
    }

    static final Seen CHAINED = new Seen(false, true, true), KEPT = new Seen(true, false, false);

    static Transaction with(Transaction t, TxnStatus s) { Transaction c = Transaction.newBuilder(t).build(); c.setStatus(s); return c; }

    @Test
    void readModifyWritesOfEachOthersValuesFromTheFrontierValueAreAChain() {
        Transaction t = txn("T", "a", 1, 5, false, "r x vF", "w x v1");
        assertEquals(CHAINED, round(t, txn("U", "b", 1, 5, false, "r x v1", "w x v2")));
        // with readers of the chain's values, one that reads its own write, and an aborted link
        assertEquals(CHAINED, round(t, txn("U", "b", 1, 5, false, "r x v1", "w x v2", "r x v2"), txn("R", "c", 1, 5, false, "r x v2"),
                with(txn("A", "d", 1, 5, false, "r x v1", "w x a1"), TxnStatus.ABORTED)));
        // a head alone on x is isolated by the rule for lone readers, not listed as a chain (no other writer to log for)
        assertEquals(new Seen(false, true, false), round(txn("T", "a", 1, 5, false, "r x vF", "w y 1"), txn("R", "c", 1, 5, false, "r y 1")));
    }

    @Test
    void aBlindWriterOrAReaderOfTheInitialValueKeepsTheSyntheticWriter() {
        Transaction t = txn("T", "a", 1, 5, false, "r x vF", "w x v1");
        assertEquals(KEPT, round(t, txn("W", "b", 1, 5, false, "w x w1")));
        assertEquals(KEPT, round(t, txn("W", "b", 1, 5, false, "w x w1", "r x w1")));
        assertEquals(KEPT, round(t, txn("N", "b", 1, 5, false, "r x -")));
        assertEquals(KEPT, round(t, txn("U", "b", 1, 5, false, "r x v1", "w x v2"), txn("N", "c", 1, 5, false, "r x -", "w x n1")));
    }

    @Test
    void aSecondReadOfAValueWrittenOutsideTheRoundKeepsTheSyntheticWriter() {
        Transaction t = txn("T", "a", 1, 5, false, "r x vF", "w x v1");
        // a second reader of vF (it must be ordered before T's write: an edge the synthetic writer carries)
        assertEquals(KEPT, round(t, txn("U", "b", 1, 5, false, "r x vF")));
        // the head reading vF again, after its write or before it
        assertEquals(KEPT, round(txn("T", "a", 1, 5, false, "r x vF", "w x v1", "r x vF"), txn("U", "b", 1, 5, false, "r x v1", "w x v2")));
        assertEquals(KEPT, round(txn("T", "a", 1, 5, false, "r x vF", "r x vF", "w x v1"), txn("U", "b", 1, 5, false, "r x v1", "w x v2")));
        // a read of the superseded vOld by another transaction (a stale read, judged on its own): not a chain of vF
        assertEquals(KEPT, round(t, txn("U", "b", 1, 5, false, "r x vOld")));
        // a head whose first operation on x is its own write
        assertEquals(KEPT, round(txn("T", "a", 1, 5, false, "w x own", "r x vF"), txn("U", "b", 1, 5, false, "r x own")));
    }

    @Test
    void aTransactionOfUnknownOutcomeOnTheKeyKeepsTheSyntheticWriter() {
        Transaction t = txn("T", "a", 1, 5, false, "r x vF", "w x v1");
        assertEquals(KEPT, round(t, with(txn("U", "b", 1, 5, false, "r x v1", "w x v2"), TxnStatus.UNKNOWN)));
        assertEquals(KEPT, round(with(t, TxnStatus.UNKNOWN), txn("U", "b", 1, 5, false, "r x v1", "w x v2")));
    }
}
