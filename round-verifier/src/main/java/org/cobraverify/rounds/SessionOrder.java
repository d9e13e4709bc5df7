package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.schemas.Transaction;

/**
 * The order a history needs its transactions in: sessions in the order they first appear, each
 * session's transactions by their position in it ({@code sessionIndex}), whatever order they arrived in.
 *
 * <p>Assumption A2: docs/DESIGN.md §7.1.
 */
public final class SessionOrder {
    private SessionOrder() {}

    public static List<Transaction> of(List<Transaction> txns) {
        // one map lookup per transaction (not two per comparison): sort indexes by (session rank, sessionIndex)
        Map<String, Integer> rank = new HashMap<>();
        int n = txns.size();
        long[] sessionIndex = new long[n];
        int[] sessionRank = new int[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            Transaction t = txns.get(i);
            Integer r = rank.putIfAbsent(t.getSession(), rank.size());
            sessionRank[i] = r == null ? rank.size() - 1 : r;
            sessionIndex[i] = t.getSessionIndex();
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> sessionRank[a] != sessionRank[b] ? Integer.compare(sessionRank[a], sessionRank[b])
                : Long.compare(sessionIndex[a], sessionIndex[b]));
        List<Transaction> out = new ArrayList<>(n);
        for (Integer i : order) out.add(txns.get(i));
        return out;
    }
}
