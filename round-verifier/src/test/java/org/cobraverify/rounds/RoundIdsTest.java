package org.cobraverify.rounds;

import static org.cobraverify.testkit.Txns.txn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.junit.jupiter.api.Test;

/**
 * The ids the rounds' histories share: a transaction held from one round to the next keeps its ids (interned once);
 * every id names its operation's key and value; and the tables do not grow with the key space.
 */
class RoundIdsTest {
    private static void assertNames(RoundIds ids, List<Transaction> order, int[][] x) {
        for (int i = 0; i < order.size(); i++) {
            List<TxnOp> ops = order.get(i).getOps();
            assertEquals(2 * ops.size(), x[i].length);
            for (int j = 0; j < ops.size(); j++) {
                assertEquals(ops.get(j).getKey(), org.cobraverify.schemas.protocol.WireNames.of(ids.keys().name(x[i][2 * j])));
                if (ops.get(j).getValue() == null) assertEquals(History.NIL, x[i][2 * j + 1]);
                else assertEquals(ops.get(j).getValue(), org.cobraverify.schemas.protocol.WireNames.of(ids.values().name(x[i][2 * j + 1])));
            }
        }
    }

    @Test
    void aHeldTransactionKeepsItsIdsAndEveryIdNamesItsOperation() {
        RoundIds ids = new RoundIds();
        Transaction a = txn("a", "s", 1, 0, false, "r x -", "w x 1"), b = txn("b", "s", 2, 0, false, "r x 1", "w y 2");
        List<Transaction> first = List.of(a, b);
        int[][] one = ids.compile(first);
        assertNames(ids, first, one);
        Transaction c = txn("c", "t", 1, 0, false, "r y 2", "w x 3", "r z -");
        List<Transaction> second = List.of(b, c);
        int[][] two = ids.compile(second);
        assertSame(one[1], two[0], "b was held: its ids are reused, not interned again");
        assertNames(ids, second, two);
        // a transaction that left and comes back (a restored snapshot) is interned again, with the same names
        int[][] three = ids.compile(first);
        assertNotSame(one[0], three[0]);
        assertNames(ids, first, three);
    }

    @Test
    void theTablesDoNotGrowWithTheKeySpace() {
        RoundIds ids = new RoundIds();
        int maxKeys = 0;
        for (int round = 0; round < 60; round++) {
            List<Transaction> order = new ArrayList<>();
            for (int t = 0; t < 2_000; t++) // fresh keys every round: an insert-only workload
                order.add(txn("r" + round + "t" + t, "s" + t, round + 1, round, false, "w k" + round + "-" + t + " v", "r hot -"));
            int[][] x = ids.compile(order);
            assertNames(ids, order, x);
            maxKeys = Math.max(maxKeys, ids.keys().size());
        }
        assertTrue(ids.renewals() > 0, "renewed: " + ids.renewals());
        // 2,001 distinct keys a round: the table is replaced before it holds more than twice that plus the slack and a round
        assertTrue(maxKeys <= 2 * 2_001 + RoundIds.SLACK + 2_001, "keys held at most: " + maxKeys);
        assertTrue(ids.values().size() <= 2 * 4_000 + RoundIds.SLACK + 4_000, "values: " + ids.values().size());
    }
}
