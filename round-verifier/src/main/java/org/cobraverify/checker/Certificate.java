package org.cobraverify.checker;

import java.util.List;

/**
 * The proof of a rejection, self-contained (names, not indexes): the anomaly, a one-line summary, the
 * cycle of labelled dependency edges where there is one, and every transaction it involves with its
 * operations. For a violation proved by search, {@link #subHistory} lists a minimal set of
 * transactions (closed under read-from) that is already not serializable, and {@link #cases} explains
 * why: whichever way each open write order goes, a cycle closes.
 */
public record Certificate(AnomalyKind kind, String summary, List<Edge> cycle, List<Txn> transactions,
                          List<String> subHistory, List<String> cases, List<String> alsoFound) {

    /** One edge of a cycle: {@code from -label(key)-> to}, with the reason when it was derived, not observed. */
    public record Edge(String from, String to, String kind, String key, String derivedBecause) {
        public String label() { return key == null ? kind : kind + "(" + key + ")"; }
    }

    /** One transaction of the certificate, as the history recorded it. */
    public record Txn(String id, String session, String status, String ops, int line) {
        /** {@code T17} for a numeric id, the id itself otherwise (as cycles name transactions). */
        public String label() {
            return !id.isEmpty() && (Character.isDigit(id.charAt(0)) || id.charAt(0) == '-') ? "T" + id : id;
        }
    }
}
