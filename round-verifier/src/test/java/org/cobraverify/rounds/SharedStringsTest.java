package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.junit.jupiter.api.Test;

/**
 * The string sharing that keeps one object per key and transaction, and a read's strings the writer's: an operation
 * on the key the one before it named takes that one's key string ({@link IncrementalVerifier#shareKeys}); a read whose
 * writer the index holds takes the writer's value string, and its key string unless the next operation shares it
 * ({@link WriterIndex#getSharing}). Strings are built apart here (equal, never the same object), as decoded records are.
 */
class SharedStringsTest {
    private static String s(String x) { return new String(x.toCharArray()); }

    private static TxnOp op(boolean write, String key, String value) { return new TxnOp(write, key == null ? null : s(key), value == null ? null : s(value)); }

    @Test
    void consecutiveOperationsOnOneKeyShareItsString() {
        List<TxnOp> ops = new ArrayList<>(List.of(op(false, "x", "v0"), op(true, "x", "v1"), op(true, "y", "w1"), op(false, "x", "v1"),
                op(false, "y", null), op(true, "y", "w2")));
        IncrementalVerifier.shareKeys(ops);
        assertSame(ops.get(0).getKey(), ops.get(1).getKey(), "a read-modify-write names its key once");
        assertNotSame(ops.get(1).getKey(), ops.get(3).getKey(), "only the operation just before is looked at");
        assertSame(ops.get(4).getKey(), ops.get(5).getKey());
        assertEquals(List.of("x", "x", "y", "x", "y", "y"), ops.stream().map(TxnOp::getKey).toList(), "the keys themselves are unchanged");
        assertEquals("v1", ops.get(1).getValue());
    }

    @Test
    void theVerifierSharesTheKeysOfATransactionItTakes() {
        // as the wire format delivers it: a string per operation
        List<TxnOp> ops = new ArrayList<>(List.of(op(false, "x", null), op(true, "x", "a"), op(true, "y", "b")));
        Transaction t = Transaction.newBuilder().setId("t1").setSession("s").setStatus(org.cobraverify.schemas.TxnStatus.COMMITTED)
                .setStart(0).setEnd(0).setOps(ops).setSessionIndex(0).setFence(false).setEpoch(-1).build();
        assertNotSame(t.getOps().get(0).getKey(), t.getOps().get(1).getKey());
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new org.cobraverify.gc.InMemoryCollectedWrites())) {
            v.add(t);
        }
        assertSame(t.getOps().get(0).getKey(), t.getOps().get(1).getKey(), "taken by the verifier, a read-modify-write names its key once");
        assertEquals(List.of("x", "x", "y"), t.getOps().stream().map(TxnOp::getKey).toList());
    }

    @Test
    void aReadOfAHeldWriteTakesTheWritersStrings() {
        WriterIndex index = new WriterIndex();
        Transaction writer = new Transaction(), other = new Transaction();
        TxnOp w = op(true, "x", "v1"), w2 = op(true, "y", "w1");
        index.putIfAbsent(w.getKey(), w.getValue(), writer);
        index.putIfAbsent(w2.getKey(), w2.getValue(), other);
        // a lone read: both strings become the writer's
        List<TxnOp> lone = List.of(op(false, "x", "v1"));
        assertSame(writer, index.getSharing(lone, 0));
        assertSame(w.getKey(), lone.get(0).getKey());
        assertSame(w.getValue(), lone.get(0).getValue());
        // a read-modify-write: the value becomes the writer's, the key stays the one the write shares
        List<TxnOp> rmw = new ArrayList<>(List.of(op(false, "y", "w1"), op(true, "y", "w2")));
        IncrementalVerifier.shareKeys(rmw);
        String own = rmw.get(0).getKey();
        assertSame(other, index.getSharing(rmw, 0));
        assertSame(w2.getValue(), rmw.get(0).getValue());
        assertSame(own, rmw.get(0).getKey(), "the key its write shares is kept");
        assertSame(own, rmw.get(1).getKey());
        // a read whose writer is not held: nothing changes
        TxnOp absent = op(false, "x", "v9");
        String k = absent.getKey(), v = absent.getValue();
        assertNull(index.getSharing(List.of(absent), 0));
        assertSame(k, absent.getKey());
        assertSame(v, absent.getValue());
    }
}
