package org.cobraverify.rounds;

import java.util.IdentityHashMap;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.Interner;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.protocol.WireNames;

/**
 * The int ids of keys and values that the rounds' histories share, so that a transaction held for many rounds has its
 * operations interned once, not once per round: each round's {@link org.cobraverify.history.HistoryBuilder} interns into
 * these two tables, and each transaction of the round keeps its operations' ids ({@link #compile}) for the next round.
 *
 * <p>Invariant: {@code ids(t)[2i]} and {@code ids(t)[2i + 1]}, as {@link #compile} returns them, are the ids, in the
 * current tables, of operation {@code i}'s key and value ({@link History#NIL} for a read of the initial value), for every transaction of the last round compiled.
 * Bound: the tables are replaced by empty ones (and every transaction compiled again) when a round starts with more
 * keys than twice the distinct keys of the last round, or more values than twice its operations, plus 65,536 each; so
 * they hold what the held transactions and a few rounds of their predecessors touch, never the key space. A round's
 * per-key arrays are sized by the key table. Derived state: never checkpointed, rebuilt from the held transactions.
 */
final class RoundIds {
    static final int SLACK = 1 << 16;

    private Interner keys, values;
    private IdentityHashMap<Transaction, int[]> compiled = new IdentityHashMap<>();
    private int lastDistinctKeys = -1, lastOps = -1;
    /** How many times the tables were replaced (for tests). */
    private int renewals;
    /** Scratch per key id, for one pass of a round ({@link #beginPass}): reused across rounds. */
    private int[] keyStamp = new int[0], keySlot = new int[0];
    private int stamp;

    /**
     * Interns the operations of {@code order} (reusing the ids of transactions compiled in the last round) and returns
     * them, in order; forgets the transactions of the last round that are not in {@code order}.
     */
    int[][] compile(List<Transaction> order) {
        if (keys == null || keys.size() > 2L * lastDistinctKeys + SLACK || values.size() > 2L * lastOps + SLACK) {
            // sized for all they may hold until the next renewal: they never grow (growing copied the name lists and
            // rehashed the tables)
            // texts as the wire carries them (WireNames), each reported as the name it stands for
            keys = new Interner(Math.max(1024, 2 * Math.max(0, lastDistinctKeys) + SLACK), WireNames::name);
            values = new Interner(Math.max(1024, 2 * Math.max(0, lastOps) + SLACK), WireNames::name);
            compiled = new IdentityHashMap<>();
            if (lastOps >= 0) renewals++;
        }
        IdentityHashMap<Transaction, int[]> next = new IdentityHashMap<>(order.size() * 2);
        int[][] out = new int[order.size()][];
        int ops = 0;
        for (int i = 0; i < out.length; i++) {
            Transaction t = order.get(i);
            int[] ids = compiled.get(t);
            if (ids == null) ids = compile(t);
            next.put(t, ids);
            out[i] = ids;
            ops += ids.length / 2;
        }
        compiled = next;
        lastOps = ops;
        // the distinct keys of the round (one stamp pass): what the key table needs
        beginPass();
        int distinct = 0;
        for (int[] ids : out)
            for (int j = 0; j < ids.length; j += 2) if (mark(ids[j])) distinct++;
        lastDistinctKeys = distinct;
        return out;
    }

    private int[] compile(Transaction t) {
        List<TxnOp> ops = t.getOps();
        int[] ids = new int[ops.size() * 2];
        for (int i = 0; i < ops.size(); i++) {
            TxnOp o = ops.get(i);
            ids[2 * i] = keys.of(o.getKey());
            ids[2 * i + 1] = o.getValue() == null ? History.NIL : values.of(o.getValue());
        }
        return ids;
    }

    /** {@code t}'s operations' ids as the last {@link #compile} gave them, or null if it did not compile {@code t}. */
    int[] compiled(Transaction t) { return compiled.get(t); }

    /** The key table the round's history builder interns into. */
    Interner keys() { return keys; }

    /** The value table the round's history builder interns into. */
    Interner values() { return values; }

    int renewals() { return renewals; }

    /** Starts a pass over key ids: no key is marked. */
    void beginPass() {
        if (keyStamp.length < keys.size()) {
            int n = Math.max(keys.size(), keyStamp.length * 3 / 2);
            keyStamp = new int[n];
            keySlot = new int[n];
            stamp = 0;
        }
        if (++stamp == Integer.MAX_VALUE) {
            java.util.Arrays.fill(keyStamp, 0);
            stamp = 1;
        }
    }

    /** Marks key {@code k} in this pass; whether it was unmarked. Requires {@code k} interned before {@link #beginPass}. */
    boolean mark(int k) {
        if (keyStamp[k] == stamp) return false;
        keyStamp[k] = stamp;
        return true;
    }

    boolean marked(int k) { return k < keyStamp.length && keyStamp[k] == stamp; }

    /** A slot per marked key, for the pass's own use. */
    void slot(int k, int s) { keySlot[k] = s; }

    int slot(int k) { return keySlot[k]; }
}
