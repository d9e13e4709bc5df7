package org.cobraverify.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.cobraverify.workloads.LostWriteLedger.LostWrite;
import org.junit.jupiter.api.Test;

/**
 * {@link LostWriteLedger}: a lost update is a later committed write of the key over the version the lost write's
 * transaction had read; a write over another version, or a blind one, closes the lost write without one.
 */
class LostWriteLedgerTest {
    @Test
    void aLaterWriteOverTheSameVersionIsALostUpdateAndClosesTheKey() {
        LostWriteLedger l = new LostWriteLedger();
        l.committed(List.of(new LostWrite("x", "v1", "u", true)), List.of(new LostWrite("y", "y1", null, false)));
        l.committed(List.of(), List.of(new LostWrite("x", "v2", "u", true)));
        // x now holds v2: a third writer over u is not another lost update of v1's
        l.committed(List.of(), List.of(new LostWrite("x", "v3", "u", true)));
        assertEquals(1, l.lostCount());
        assertEquals(1, l.updateCount());
        assertEquals("v1", l.updates().get(0).lost().value());
        assertEquals("v2", l.updates().get(0).value());
    }

    @Test
    void aBlindWriteOrOneOverAnotherVersionIsNone() {
        LostWriteLedger l = new LostWriteLedger();
        l.committed(List.of(new LostWrite("x", "v1", "u", true), new LostWrite("z", "z1", null, false)), List.of());
        l.committed(List.of(), List.of(new LostWrite("x", "v2", "w", true), new LostWrite("z", "z2", null, true)));
        l.committed(List.of(new LostWrite("k", "k1", null, true)), List.of());
        l.committed(List.of(), List.of(new LostWrite("k", "k2", null, false))); // blind: it read nothing
        assertEquals(3, l.lostCount());
        assertEquals(0, l.updateCount());
    }

    @Test
    void theInitialStateIsAVersionToo() {
        LostWriteLedger l = new LostWriteLedger();
        l.committed(List.of(new LostWrite("x", "v1", null, true)), List.of());
        l.committed(List.of(), List.of(new LostWrite("x", "v2", null, true)));
        assertEquals(1, l.updateCount());
    }
}
