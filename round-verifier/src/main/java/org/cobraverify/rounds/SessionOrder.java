package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.schemas.Transaction;

/**
 * The order a history needs its transactions in: sessions in the order they first appear, each
 * session's transactions by their position in it ({@code sessionIndex}), whatever order they arrived in.
 */
public final class SessionOrder {
    private SessionOrder() {}

    public static List<Transaction> of(List<Transaction> txns) {
        Map<String, Integer> rank = new HashMap<>();
        for (Transaction t : txns) rank.putIfAbsent(t.getSession(), rank.size());
        List<Transaction> out = new ArrayList<>(txns);
        out.sort(Comparator.<Transaction>comparingInt(t -> rank.get(t.getSession())).thenComparingLong(Transaction::getSessionIndex));
        return out;
    }
}
