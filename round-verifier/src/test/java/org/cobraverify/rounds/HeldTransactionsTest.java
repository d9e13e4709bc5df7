package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.cobraverify.schemas.Transaction;
import org.junit.jupiter.api.Test;

/** {@link HeldTransactions}: its operations keep the invariants it states, and its check of them has teeth. */
class HeldTransactionsTest {
    private static Transaction txn(String id, String session, long index, String... ops) { return RoundVerifierTest.txn(id, session, index, ops); }

    @Test
    void operationsKeepTheInvariantsInEveryOrderTried() {
        long seed = 20261206;
        Random rnd = new Random(seed);
        for (int trial = 0; trial < 200; trial++) {
            HeldTransactions held = new HeldTransactions();
            int n = 2 + rnd.nextInt(30);
            for (int i = 0; i < n; i++) {
                // each writes its own key, and reads an earlier one's (or one never written: it waits)
                String read = rnd.nextInt(4) == 0 ? "r k" + (n + i) + " v" : "r k" + rnd.nextInt(i + 1) + " v" + rnd.nextInt(i + 1);
                Transaction t = txn("t" + i, "s" + rnd.nextInt(3), i, "w k" + i + " v" + i, read);
                assertNull(held.recordWrites(t), "seed " + seed);
                held.arrive(t, trial);
                assertTrue(held.invariantsHold(), "seed " + seed + ", after arriving " + t.getId());
            }
            // admit a random half, retain them, then collect some and set aside others
            List<Transaction> admitted = new java.util.ArrayList<>();
            for (Transaction t : held.waiting()) if (rnd.nextBoolean()) admitted.add(t);
            held.stopWaiting(admitted);
            held.retain(admitted, id -> false);
            assertTrue(held.invariantsHold(), "seed " + seed + ", after retaining");
            Set<String> gone = new java.util.HashSet<>(), aside = new java.util.HashSet<>();
            for (Transaction t : admitted) if (rnd.nextInt(3) == 0) gone.add(t.getId());
            for (Transaction t : held.waiting()) if (rnd.nextInt(4) == 0) aside.add(t.getId());
            held.forget(gone);
            held.setAside(aside);
            assertTrue(held.invariantsHold(), "seed " + seed + ", after collecting and setting aside");
            for (String id : gone) { assertFalse(held.holds(id)); assertNull(held.writerOf("k" + id.substring(1), "v" + id.substring(1))); }
            for (String id : aside) assertFalse(held.holds(id));
            HeldTransactions copy = held.copy();
            assertTrue(copy.invariantsHold());
            assertEquals(held.size(), copy.size());
        }
    }

    @Test
    void theViewsCannotChangeTheState() {
        HeldTransactions held = new HeldTransactions();
        Transaction t = txn("a", "s", 0, "w x 1");
        held.recordWrites(t);
        held.arrive(t, 0);
        assertThrows(UnsupportedOperationException.class, () -> held.waiting().clear());
        assertThrows(UnsupportedOperationException.class, () -> held.ids().clear());
        assertThrows(UnsupportedOperationException.class, () -> held.unknownSince().clear());
        assertEquals(1, held.waitingCount());
    }

    @Test
    void aCheckpointThatNamesATransactionItDoesNotHoldBreaksTheInvariants() {
        HeldTransactions held = new HeldTransactions();
        held.restoreHeld(txn("a", "s", 0, "w x 1"), -1, -1, true, java.util.List.of());
        held.finishRestore(List.of("ghost")); // an unincluded transaction the checkpoint does not hold
        assertFalse(held.invariantsHold());
        HeldTransactions fine = new HeldTransactions();
        fine.restoreHeld(txn("a", "s", 0, "w x 1"), -1, -1, true, java.util.List.of());
        fine.restoreHeld(txn("b", "s", 1, "r x 1", "r y 7"), 3, -1, true, java.util.List.of());
        fine.finishRestore(List.of());
        assertTrue(fine.invariantsHold());
        assertNotNull(fine.writerOf("x", "1"));
        assertEquals(1, fine.waitingCount());
        fine.setAside(Set.of("b"));
        assertTrue(fine.invariantsHold());
        assertEquals(0, fine.waitingCount());
        assertFalse(fine.holds("b"));
    }
}
