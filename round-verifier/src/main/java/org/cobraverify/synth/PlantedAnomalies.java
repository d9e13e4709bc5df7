package org.cobraverify.synth;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * Known violations planted into a history, to see a verifier find each one: a history recorded from a serializable
 * database, with a lost update, a write skew, a G1c and a long fork inserted at chosen points, must be rejected with
 * exactly those anomalies, each on its own.
 *
 * <p>Each planted anomaly uses keys of its own (nothing else reads or writes them), starts from their initial state,
 * and puts each of its transactions in a different session, right after that session's transaction at the planting
 * point: the sessions are live there (they ran a fence before), so a verifier in rounds checks the planted transactions
 * against the collected past like any other. Independent by construction: no cycle can join two of them.
 */
public final class PlantedAnomalies {
    private PlantedAnomalies() {}

    /** The anomalies that can be planted, by the number of sessions they need. */
    public enum Kind {
        /** Two transactions read the initial value of a key and both write it. */
        LOST_UPDATE(2),
        /** Two transactions read the initial values of two keys, and each writes a different one. */
        WRITE_SKEW(2),
        /** Two transactions each write a key and read the other's write (circular information flow). */
        G1C(2),
        /** Two writers of two keys, and two readers that see them in opposite orders. */
        LONG_FORK(4);

        final int sessions;

        Kind(int sessions) { this.sessions = sessions; }

        /** {@code lost-update}, {@code write-skew}, {@code g1c}, {@code long-fork}. */
        public String word() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }

        public static Kind of(String word) {
            for (Kind k : values()) if (k.word().equals(word)) return k;
            throw new IllegalArgumentException("unknown anomaly " + word + " (known: lost-update, write-skew, g1c, long-fork)");
        }
    }

    /** An anomaly to plant {@code at} a fraction (0 to 1) of the history's transactions. */
    public record Plant(Kind kind, double at) {
        public Plant {
            if (!(at >= 0 && at <= 1)) throw new IllegalArgumentException("a planting point is a fraction from 0 to 1, not " + at);
        }

        /** {@code kind@fraction}, e.g. {@code lost-update@0.2}. */
        public static Plant parse(String s) {
            int i = s.indexOf('@');
            if (i < 0) throw new IllegalArgumentException("an anomaly to plant is KIND@FRACTION (lost-update@0.2), not " + s);
            return new Plant(Kind.of(s.substring(0, i)), Double.parseDouble(s.substring(i + 1)));
        }
    }

    /**
     * {@code history} (in delivery order: each session's transactions in session order) with {@code plants} inserted.
     * Throws {@link IllegalArgumentException} when a planting point has fewer live sessions before it than the anomaly needs.
     */
    public static List<Transaction> plant(List<Transaction> history, List<Plant> plants) { return plant(history, plants, 0); }

    /**
     * As {@link #plant(List, List)}; with {@code readAgain} positive, the keys of each anomaly are used again later, as a
     * hot row is: {@code readAgain} transactions after it, a transaction of a live session reads each planted key's planted
     * write and writes the key anew (ids {@code planted:P:KIND:F1}), and {@code 4 × readAgain} transactions after it another
     * reads those new writes ({@code :F2}). Neither is a violation: the first reads writes of transactions a verifier sets
     * aside (its reads of them are not checked), the second reads writes made after the violation, which a verifier checks
     * as usual (docs/DESIGN.md §7.10), by then collected.
     */
    public static List<Transaction> plant(List<Transaction> history, List<Plant> plants, int readAgain) {
        int n = history.size();
        List<List<Transaction>> after = new ArrayList<>(n);
        for (int i = 0; i < n; i++) after.add(null);
        for (int p = 0; p < plants.size(); p++) {
            Plant plant = plants.get(p);
            int at = (int) Math.min(n - 1, Math.floor(plant.at() * n));
            // the latest transaction of each of the last sessions seen up to the planting point
            Set<String> sessions = new LinkedHashSet<>();
            List<Integer> positions = new ArrayList<>();
            for (int i = at; i >= 0 && sessions.size() < plant.kind().sessions; i--) {
                Transaction t = history.get(i);
                if (t.getStatus() == TxnStatus.COMMITTED && sessions.add(t.getSession())) positions.add(i);
            }
            if (positions.size() < plant.kind().sessions)
                throw new IllegalArgumentException(plant.kind().word() + " needs " + plant.kind().sessions + " sessions before transaction " + at
                        + "; only " + positions.size() + " have committed a transaction by then");
            String prefix = "planted:" + p + ":" + plant.kind().word();
            List<Transaction> txns = transactions(plant.kind(), prefix);
            for (int j = 0; j < txns.size(); j++) {
                int i = positions.get(j);
                Transaction near = history.get(i);
                Transaction t = txns.get(j);
                t.setSession(near.getSession());
                if (after.get(i) == null) after.set(i, new ArrayList<>());
                after.get(i).add(t);
            }
            if (readAgain <= 0) continue;
            // the planted keys, each with one planted write of it
            java.util.Map<String, String> planted = new java.util.LinkedHashMap<>();
            for (Transaction t : txns) for (TxnOp o : t.getOps()) if (o.getWrite()) planted.putIfAbsent(o.getKey(), o.getValue());
            List<TxnOp> first = new ArrayList<>(), second = new ArrayList<>();
            for (java.util.Map.Entry<String, String> e : planted.entrySet()) {
                String again = prefix + ":F1:" + e.getKey().substring(e.getKey().lastIndexOf(':') + 1);
                first.add(r(e.getKey(), e.getValue()));
                first.add(w(e.getKey(), again));
                second.add(r(e.getKey(), again));
            }
            placeAfter(history, after, at + readAgain, Transaction.newBuilder().setId(prefix + ":F1").setSession("?").setStatus(TxnStatus.COMMITTED)
                    .setStart(0).setEnd(0).setOps(first).build());
            placeAfter(history, after, at + 4 * readAgain, Transaction.newBuilder().setId(prefix + ":F2").setSession("?").setStatus(TxnStatus.COMMITTED)
                    .setStart(0).setEnd(0).setOps(second).build());
        }
        List<Transaction> out = new ArrayList<>(n + 4 * plants.size());
        for (int i = 0; i < n; i++) {
            out.add(history.get(i));
            if (after.get(i) != null) out.addAll(after.get(i));
        }
        return out;
    }

    /**
     * Puts {@code t} in the session of the last committed transaction at or before {@code at} (clamped to the history), right
     * after it, with that transaction's times.
     */
    private static void placeAfter(List<Transaction> history, List<List<Transaction>> after, int at, Transaction t) {
        int i = Math.min(history.size() - 1, at);
        while (i > 0 && history.get(i).getStatus() != TxnStatus.COMMITTED) i--;
        Transaction near = history.get(i);
        t.setSession(near.getSession());
        t.setStart(near.getEnd());
        t.setEnd(near.getEnd());
        if (after.get(i) == null) after.set(i, new ArrayList<>());
        after.get(i).add(t);
    }

    /** The anomaly's transactions, on keys {@code prefix:*}, ids {@code prefix:T*}, sessions to be set. */
    static List<Transaction> transactions(Kind kind, String prefix) {
        String x = prefix + ":x", y = prefix + ":y";
        return switch (kind) {
            case LOST_UPDATE -> List.of(txn(prefix, 1, r(x, null), w(x, "a")), txn(prefix, 2, r(x, null), w(x, "b")));
            case WRITE_SKEW -> List.of(txn(prefix, 1, r(x, null), r(y, null), w(x, "a")), txn(prefix, 2, r(x, null), r(y, null), w(y, "b")));
            case G1C -> List.of(txn(prefix, 1, w(x, "a"), r(y, prefix + ":b")), txn(prefix, 2, w(y, prefix + ":b"), r(x, "a")));
            case LONG_FORK -> List.of(txn(prefix, 1, w(x, "a")), txn(prefix, 2, w(y, "b")),
                    txn(prefix, 3, r(x, "a"), r(y, null)), txn(prefix, 4, r(x, null), r(y, "b")));
        };
    }

    private static Transaction txn(String prefix, int i, TxnOp... ops) {
        List<TxnOp> l = new ArrayList<>(ops.length);
        for (TxnOp o : ops) l.add(o.getValue() == null || o.getValue().startsWith(prefix) ? o : new TxnOp(o.getWrite(), o.getKey(), prefix + ":" + o.getValue()));
        return Transaction.newBuilder().setId(prefix + ":T" + i).setSession("?").setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0).setOps(l).build();
    }

    private static TxnOp r(String key, String value) { return new TxnOp(false, key, value); }

    private static TxnOp w(String key, String value) { return new TxnOp(true, key, value); }
}
