package org.cobraverify.gc.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.junit.jupiter.api.Test;

/**
 * What the sealed past says held a collection back (docs/DESIGN.md §7.11): the first key it could not seal, and why, as the
 * verdicts and {@code verify --rounds} report it for whoever watches the retained set grow.
 */
class SealedPastHeldBackTest {
    /**
     * T0 writes x; T1 reads it and writes x again (x's chain: T0, T1); in another session T3, which is not old, then T2,
     * which reads x ({@code T2read}: T0's version, or with null the initial state). At snapshot isolation T2's read of an
     * older version than T1's is decided only once everything before it goes, and T3 stays: x seals no further than the
     * version T2 read, and the writers after it stay (none may seal when T2 read the initial state). At causal T2's causal
     * past holds no writer of x that stays: x seals with T1 and both go.
     */
    private static History history(String t2Read) {
        HistoryBuilder b = new HistoryBuilder();
        int x = b.key("x"), y = b.key("y");
        int a = b.session("a"), c = b.session("c");
        b.begin("T0", a, History.COMMITTED, 0, 0, 1); b.write(x, b.value("x0")); b.end();
        b.begin("T1", a, History.COMMITTED, 0, 0, 2); b.read(x, b.value("x0")); b.write(x, b.value("x1")); b.end();
        b.begin("T3", c, History.COMMITTED, 0, 0, 3); b.write(y, b.value("y3")); b.end();
        b.begin("T2", c, History.COMMITTED, 0, 0, 4); b.read(x, t2Read == null ? History.NIL : b.value(t2Read)); b.end();
        return b.build();
    }

    @Test
    void aKeySealsNoFurtherThanTheVersionAnUndecidedReadReturned() {
        History h = history("x0");
        boolean[] old = {true, true, false, false};
        GarbageCollection si = analyze(h, old, SealedPast.Premise.SNAPSHOT);
        assertTrue(si.collect[0], "T0's version seals");
        assertFalse(si.collect[1], "T1, whose version T2 did not see, stays");
        assertEquals("key x is sealed no further than T0's version: T2, which stays, reads an older version than T1's, and its read is not"
                + " decided for good: a transaction before it stays", si.heldBack);
        GarbageCollection cc = analyze(h, old, SealedPast.Premise.CAUSAL);
        assertTrue(cc.collect[0] && cc.collect[1], "x seals at causal");
        assertNull(cc.heldBack);
    }

    @Test
    void aKeyIsNotSealedWhenAnUndecidedReadReturnedItsInitialState() {
        History h = history(null);
        GarbageCollection si = analyze(h, new boolean[] {true, true, false, false}, SealedPast.Premise.SNAPSHOT);
        assertFalse(si.collect[0] || si.collect[1], "x's writers stay");
        assertEquals("key x is not sealed: T2, which stays, reads an older version than T1's, and its read is not decided for good:"
                + " a transaction before it stays", si.heldBack);
    }

    private static GarbageCollection analyze(History h, boolean[] old, SealedPast.Premise premise) {
        SealedPast.Round r = SealedPast.prepare(h);
        boolean[] included = r.included();
        for (boolean i : included) assertTrue(i);
        return SealedPast.analyze(r, null, old, new boolean[h.size()], new int[0], new int[] {0, 1, 2, 3}, premise, null).gc();
    }
}
