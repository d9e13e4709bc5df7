package org.cobraverify.checker;

import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Steps 3 and 4: combines writes into chains and infers the edges that chains imply.
 *
 * <p>A slot is one version of a key: a transaction's final write to it, or T⊥'s initial state. A fact
 * "T follows T' on x" (T read-modify-wrote x after reading T''s version, or a list read showed T's
 * appends right after T''s) links two slots; linked slots form a chain, whose writes are consecutive
 * in x's version order. Two successors of one version is a lost update (or, from list reads, an
 * incompatible order). After construction, the known graph holds, for every key: list-order edges
 * between consecutive chain elements (ww); T reads x_i and x_i is followed by x_j in its chain, so
 * T → writer of x_j (rw); and, since T⊥'s chain precedes every other chain of its key, readers of its
 * tail (or the tail itself) → the head of every other chain. Chains other than T⊥'s are listed per key
 * for {@link Constraints}.
 *
 * <p>docs/DESIGN.md §4, steps 3–4.
 */
final class Chains {
    // slots
    final IntVec slotKey, slotTxn;
    private final LongIntMap slotOf;
    int[] readerStart, readers; // CSR: readers of each slot's version
    int[] succ, pred, predFactOp;
    // chains that are not T⊥'s, grouped by key: keyChainStart[k]..keyChainStart[k+1] index chainsByKey
    final IntVec chainKey = new IntVec(), chainHead = new IntVec(), chainTail = new IntVec(), chainTailSlot = new IntVec();
    int[] keyChainStart, chainsByKey;
    // RT(c): readers of chain c's tail version, or the tail itself when it has none
    int[] rtStart, rt;
    boolean[] rtIsTail;

    Chains(History h, ReadFromIndex rf, KnownGraph g, List<Anomaly> anomalies) {
        // slots for every final write of an included transaction (counted first: grown by doubling, the slots' vectors and
        // map were 3% of a TPC-C check's allocation)
        int finals = 0; // (at most: the initial value's slots are one per key)
        for (int t = 0; t < h.size(); t++) {
            if (!rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (rf.finalWrite[op]) finals++;
        }
        for (int i = 0; i < rf.readKey.size(); i++) if (rf.readWriter.get(i) == ReadFromIndex.INIT) finals++;
        for (int i = 0; i < rf.factKey.size(); i++) if (rf.factPred.get(i) == ReadFromIndex.INIT) finals++;
        slotKey = new IntVec(finals);
        slotTxn = new IntVec(finals);
        slotOf = new LongIntMap(finals);
        for (int t = 0; t < h.size(); t++) {
            if (!rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (rf.finalWrite[op]) slot(h.key(op), t);
        }
        for (int i = 0; i < rf.readKey.size(); i++) if (rf.readWriter.get(i) == ReadFromIndex.INIT) slot(rf.readKey.get(i), ReadFromIndex.INIT);
        for (int i = 0; i < rf.factKey.size(); i++) if (rf.factPred.get(i) == ReadFromIndex.INIT) slot(rf.factKey.get(i), ReadFromIndex.INIT);
        int slots = slotKey.size();

        // readers per slot (CSR)
        readerStart = new int[slots + 1];
        int[] readSlot = new int[rf.readKey.size()];
        for (int i = 0; i < readSlot.length; i++) {
            int s = slotOf.get(slotId(rf.readKey.get(i), rf.readWriter.get(i)));
            readSlot[i] = s;
            readerStart[s + 1]++;
        }
        for (int s = 0; s < slots; s++) readerStart[s + 1] += readerStart[s];
        readers = new int[readSlot.length];
        int[] fill = Arrays.copyOf(readerStart, slots);
        for (int i = 0; i < readSlot.length; i++) readers[fill[readSlot[i]]++] = rf.readTxn.get(i);

        // link slots by facts
        succ = new int[slots];
        pred = new int[slots];
        predFactOp = new int[slots];
        Arrays.fill(succ, -1);
        Arrays.fill(pred, -1);
        int[] succKind = new int[slots];
        for (int i = 0; i < rf.factKey.size(); i++) {
            int k = rf.factKey.get(i);
            int a = slotOf.get(slotId(k, rf.factPred.get(i))), b = slotOf.get(slotId(k, rf.factSucc.get(i)));
            int kindOfFact = rf.factKind.get(i);
            if (succ[a] == b) continue;
            if (succ[a] != -1) {
                int other = slotTxn.get(succ[a]), me = slotTxn.get(b);
                boolean lost = kindOfFact == ReadFromIndex.FACT_RMW && succKind[a] == ReadFromIndex.FACT_RMW;
                String ver = slotTxn.get(a) == ReadFromIndex.INIT ? "the initial value" : "the value written by " + h.label(slotTxn.get(a));
                anomalies.add(new Anomaly(lost ? AnomalyKind.LOST_UPDATE : AnomalyKind.INCOMPATIBLE_ORDER,
                        lost ? h.label(other) + " and " + h.label(me) + " both read " + ver + " of key " + History.show(h.keyName(k))
                                + " and both overwrote it: one of the updates is lost"
                             : "reads disagree on what follows " + ver + " of key " + History.show(h.keyName(k)) + ": "
                                + h.label(other) + " or " + h.label(me),
                        slotTxn.get(a) == ReadFromIndex.INIT ? new int[] {other, me} : new int[] {slotTxn.get(a), other, me},
                        new int[] {predFactOp[succ[a]], rf.factOp.get(i)}));
                continue;
            }
            if (pred[b] != -1) {
                anomalies.add(new Anomaly(AnomalyKind.INCOMPATIBLE_ORDER, "reads disagree on what precedes " + h.label(slotTxn.get(b))
                        + "'s version of key " + History.show(h.keyName(k)), new int[] {slotTxn.get(b)}, new int[] {predFactOp[b], rf.factOp.get(i)}));
                continue;
            }
            succ[a] = b;
            pred[b] = a;
            predFactOp[b] = rf.factOp.get(i);
            succKind[a] = kindOfFact;
            int u = slotTxn.get(a), v = slotTxn.get(b);
            if (kindOfFact != ReadFromIndex.FACT_RMW && u != ReadFromIndex.INIT) g.add(u, v, KnownGraph.WW, k);
        }

        // walk chains from their heads; slots on a cycle of facts are never reached (the wr/ww edges
        // already form a cycle in the known graph, which step 6 reports)
        IntVec[] perKey = null;
        int keys = h.keyCount();
        int[] keyCount = new int[keys + 1];
        IntVec tmpChains = new IntVec();
        for (int s = 0; s < slots; s++) {
            if (pred[s] != -1) continue;
            int k = slotKey.get(s);
            int tail = s;
            while (succ[tail] != -1) {
                int nxt = succ[tail];
                int nt = slotTxn.get(nxt);
                for (int r = readerStart[tail]; r < readerStart[tail + 1]; r++)
                    if (readers[r] != nt) g.add(readers[r], nt, KnownGraph.RW, k);
                tail = nxt;
            }
            if (slotTxn.get(s) == ReadFromIndex.INIT) continue; // T⊥'s chain: handled below, never a constraint
            chainKey.add(k);
            chainHead.add(slotTxn.get(s));
            chainTail.add(slotTxn.get(tail));
            chainTailSlot.add(tail);
            keyCount[k + 1]++;
        }
        int chains = chainKey.size();
        keyChainStart = new int[keys + 1];
        for (int k = 0; k < keys; k++) keyChainStart[k + 1] = keyChainStart[k] + keyCount[k + 1];
        chainsByKey = new int[chains];
        int[] kf = Arrays.copyOf(keyChainStart, keys);
        for (int c = 0; c < chains; c++) chainsByKey[kf[chainKey.get(c)]++] = c;

        rtStart = new int[chains + 1];
        IntVec rtv = new IntVec(chains * 2);
        IntVec tailFlag = new IntVec(chains * 2);
        for (int c = 0; c < chains; c++) {
            int ts = chainTailSlot.get(c);
            if (readerStart[ts] == readerStart[ts + 1]) { rtv.add(chainTail.get(c)); tailFlag.add(1); }
            else for (int r = readerStart[ts]; r < readerStart[ts + 1]; r++) { rtv.add(readers[r]); tailFlag.add(0); }
            rtStart[c + 1] = rtv.size();
        }
        rt = rtv.toArray();
        rtIsTail = new boolean[rt.length];
        for (int i = 0; i < rt.length; i++) rtIsTail[i] = tailFlag.get(i) == 1;

        // T⊥'s chain comes first in its key's version order
        for (int s = 0; s < slots; s++) {
            if (pred[s] != -1 || slotTxn.get(s) != ReadFromIndex.INIT) continue;
            int k = slotKey.get(s);
            int tail = s;
            while (succ[tail] != -1) tail = succ[tail];
            int tailTxn = slotTxn.get(tail);
            boolean hasReaders = readerStart[tail] < readerStart[tail + 1];
            for (int i = keyChainStart[k]; i < keyChainStart[k + 1]; i++) {
                int head = chainHead.get(chainsByKey[i]);
                if (hasReaders) {
                    for (int r = readerStart[tail]; r < readerStart[tail + 1]; r++) if (readers[r] != head) g.add(readers[r], head, KnownGraph.RW, k);
                } else if (tailTxn != ReadFromIndex.INIT) g.add(tailTxn, head, KnownGraph.WW, k);
            }
        }
    }

    private static long slotId(int key, int txn) { return ((long) key << 32) | ((txn + 1) & 0xffffffffL); }

    private int slot(int key, int txn) {
        long id = slotId(key, txn);
        int s = slotOf.get(id);
        if (s == LongIntMap.MISSING) {
            s = slotKey.size();
            slotOf.put(id, s);
            slotKey.add(key);
            slotTxn.add(txn);
        }
        return s;
    }

    int chainCount() { return chainKey.size(); }
}
