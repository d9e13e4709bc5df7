package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.testkit.Txns;
import org.junit.jupiter.api.Test;

/**
 * {@link UncheckedTransactions#unjudgeableReaders}: which readers of collected writes the sealed past leaves unchecked
 * (docs/DESIGN.md §7.11): a reader of an unordered version or of an unknown-outcome writer collection set aside, at every
 * level; a reader of a superseded version only where a transaction may read an older version (read committed, read
 * atomic); never one outside the checked history, nor one with a read that is a violation at the level (of an aborted
 * write; at causal, of a superseded version): that read is judged and rejected.
 */
class UnjudgeableReadersTest {
    private static StaleReads.StaleRead read(Transaction reader, CollectedWrites.Fate fate) {
        return new StaleReads.StaleRead(reader, reader.getOps().get(0), new CollectedWrites.Entry("W", "L", fate, 2, 1));
    }

    @Test
    void theReadersTheSealedPastCannotJudge() {
        Transaction unordered = Txns.txn("U", "s1", 3, 1, false, "r x 1"), unknownWriter = Txns.txn("K", "s2", 3, 1, false, "r y 2"),
                superseded = Txns.txn("S", "s3", 3, 1, false, "r z 3"), alsoAborted = Txns.txn("A", "s4", 3, 1, false, "r q 4", "r p 5"),
                outside = Txns.txn("O", "s5", 3, 1, false, "r x 6");
        List<StaleReads.StaleRead> stale = List.of(read(unordered, CollectedWrites.Fate.UNORDERED), read(unknownWriter, CollectedWrites.Fate.UNKNOWN_OUTCOME),
                read(superseded, CollectedWrites.Fate.SUPERSEDED), read(alsoAborted, CollectedWrites.Fate.UNORDERED),
                read(alsoAborted, CollectedWrites.Fate.ABORTED), read(outside, CollectedWrites.Fate.UNORDERED));
        Map<String, Integer> index = Map.of("U", 0, "K", 1, "S", 2, "A", 3, "O", 4);
        boolean[] included = {true, true, true, true, false};

        Map<String, String> causal = UncheckedTransactions.unjudgeableReaders(stale, index, included, null);
        assertEquals(List.of("U", "K"), List.copyOf(causal.keySet()));
        // at causal a superseded read is a violation: a reader with one stays, to be rejected for it
        Transaction both = Txns.txn("B", "s6", 3, 1, false, "r x 7", "r y 8");
        List<StaleReads.StaleRead> withViolation = List.of(read(both, CollectedWrites.Fate.UNORDERED),
                new StaleReads.StaleRead(both, both.getOps().get(1), new CollectedWrites.Entry("W", "L", CollectedWrites.Fate.SUPERSEDED, 2, 1)));
        assertEquals(Map.of(), UncheckedTransactions.unjudgeableReaders(withViolation, Map.of("B", 0), new boolean[] {true}, null));
        assertEquals(List.of("B"), List.copyOf(UncheckedTransactions.unjudgeableReaders(withViolation, Map.of("B", 0), new boolean[] {true},
                new StaleReads.OldVersions("read-atomic", false, o -> null)).keySet()));
        // ... unless B saw the superseding writer (it read its write of x): then the superseded read is a violation at read atomic
        assertEquals(Map.of(), UncheckedTransactions.unjudgeableReaders(withViolation.subList(1, 2), Map.of("B", 0), new boolean[] {true},
                new StaleReads.OldVersions("read-atomic", false, o -> o.getKey().equals("x") ? "L" : null)));
        // ... and at read committed only if that read came first (x is read before y: it did)
        assertEquals(Map.of(), UncheckedTransactions.unjudgeableReaders(withViolation.subList(1, 2), Map.of("B", 0), new boolean[] {true},
                new StaleReads.OldVersions("read-committed", true, o -> o.getKey().equals("x") ? "L" : null)));
        Transaction after = Txns.txn("C", "s7", 3, 1, false, "r y 8", "r x 7");
        List<StaleReads.StaleRead> seenAfter = List.of(new StaleReads.StaleRead(after, after.getOps().get(0),
                new CollectedWrites.Entry("W", "L", CollectedWrites.Fate.SUPERSEDED, 2, 1)));
        assertEquals(List.of("C"), List.copyOf(UncheckedTransactions.unjudgeableReaders(seenAfter, Map.of("C", 0), new boolean[] {true},
                new StaleReads.OldVersions("read-committed", true, o -> o.getKey().equals("x") ? "L" : null)).keySet()));
        assertTrue(causal.get("U").contains("left unordered with the one it kept for the key (L)"), causal.get("U"));
        assertTrue(causal.get("K").contains("whose outcome was unknown"), causal.get("K"));

        Map<String, String> rc = UncheckedTransactions.unjudgeableReaders(stale, index, included, new StaleReads.OldVersions("read-committed", true, o -> null));
        assertEquals(List.of("U", "K", "S"), List.copyOf(rc.keySet()));
        assertTrue(rc.get("S").contains("superseded by L, a transaction it read nothing from before: at read-committed it may read an older version"),
                rc.get("S"));
    }
}
