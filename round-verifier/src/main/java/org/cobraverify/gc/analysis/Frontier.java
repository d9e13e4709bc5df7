package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;

/**
 * The frontier of each key among the old transactions of an accepted round, and the superseded transactions
 * (docs/DESIGN.md §7.2): the frontier of key x is the old writers of x that reach, in the facts, no other old writer of x
 * (the writes a later transaction may still legally read; with blind writes there can be several); a transaction is
 * superseded when it is old, on the frontier of no key, and reached only from old transactions.
 *
 * <p>Contract: over the chain cover of a {@link CheckedRound.Reach} of the round's facts, a final write of an old included
 * transaction is a frontier write iff no old final write of its key lies on a chain at a position its writer reaches;
 * a writer on no chain (a satellite) reaches only itself.
 */
final class Frontier {
    private Frontier() {}

    /**
     * Marks in {@code frontierWrite} (per operation) the frontier writes and in {@code superseded} (per transaction) the
     * superseded transactions, both all false on entry; returns how many are superseded. {@code old[t]}: t's epoch is
     * closed (and t reaches every entry fence); {@code bad[v]}: v is reached from an included transaction that is not old.
     */
    static int find(CheckedRound c, CheckedRound.Reach r, boolean[] old, boolean[] bad, boolean[] frontierWrite, boolean[] superseded) {
        History h = c.history();
        boolean[] included = c.included(), finalWrite = c.finalWrite();
        int[] chainOf = r.chainOf(), pos = r.positions(), reach = r.reachTable();
        int n = h.size(), chains = r.chains();
        // per key, per chain of the cover: the latest old final write on that chain
        // (counted first: grown by doubling, these four were 3.5% of a TPC-C check's allocation)
        int finals = 0;
        for (int t = 0; t < n; t++) {
            if (!old[t] || !included[t] || chainOf[t] < 0) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (finalWrite[op]) finals++;
        }
        IntVec wKey = new IntVec(finals), wChain = new IntVec(finals), wPos = new IntVec(finals), wTxn = new IntVec(finals);
        for (int t = 0; t < n; t++) {
            if (!old[t] || !included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!finalWrite[op] || chainOf[t] < 0) continue; // a satellite: nothing else reaches it
                wKey.add(h.key(op)); wChain.add(chainOf[t]); wPos.add(pos[t]); wTxn.add(t);
            }
        }
        int m = wKey.size();
        // grouped by key (a primitive sort of key and index), then per chain the latest position (a stamped scratch row)
        long[] byKey = new long[m];
        for (int i = 0; i < m; i++) byKey[i] = ((long) wKey.get(i) << 32) | i;
        Arrays.sort(byKey);
        int keys = h.keyCount();
        int[] keyStart = new int[keys + 1];
        IntVec gChain = new IntVec(m), gPos = new IntVec(m);
        int[] chainStamp = new int[Math.max(1, chains)], chainLatest = new int[Math.max(1, chains)];
        IntVec chainsSeen = new IntVec();
        for (int a = 0, group = 0; a < m; group++) {
            int key = (int) (byKey[a] >>> 32), z = a;
            chainsSeen.clear();
            for (; z < m && (int) (byKey[z] >>> 32) == key; z++) {
                int w = (int) byKey[z], ch = wChain.get(w), p = wPos.get(w);
                if (chainStamp[ch] != group + 1) { chainStamp[ch] = group + 1; chainLatest[ch] = p; chainsSeen.add(ch); }
                else if (p > chainLatest[ch]) chainLatest[ch] = p;
            }
            for (int j = 0; j < chainsSeen.size(); j++) {
                gChain.add(chainsSeen.get(j));
                gPos.add(chainLatest[chainsSeen.get(j)]);
                keyStart[key + 1]++;
            }
            a = z;
        }
        for (int k = 0; k < keys; k++) keyStart[k + 1] += keyStart[k];
        // frontier: old writers of x that reach no other old writer of x
        int supersededCount = 0;
        for (int t = 0; t < n; t++) {
            if (!old[t] || !included[t]) continue;
            boolean sup = !bad[t];
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!finalWrite[op]) continue;
                int k = h.key(op);
                boolean reachesLater = false;
                for (int j = keyStart[k]; j < keyStart[k + 1] && !reachesLater; j++) {
                    int ch = gChain.get(j), mp = gPos.get(j);
                    reachesLater = ch == chainOf[t] ? mp > pos[t] : reach[t * chains + ch] <= mp;
                }
                if (!reachesLater) { frontierWrite[op] = true; sup = false; }
            }
            superseded[t] = sup;
            if (sup) supersededCount++;
        }
        return supersededCount;
    }
}
