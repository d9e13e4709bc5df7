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
                          List<String> subHistory, List<String> cases, List<String> alsoFound, Reduction reduction) {

    /** A certificate that search did not produce (an anomaly, or a cycle): nothing to shrink. */
    public Certificate(AnomalyKind kind, String summary, List<Edge> cycle, List<Txn> transactions,
                       List<String> subHistory, List<String> cases, List<String> alsoFound) {
        this(kind, summary, cycle, transactions, subHistory, cases, alsoFound, null);
    }

    /**
     * The ids of the transactions at fault, which a verifier sets aside after this violation (docs/DESIGN.md §7.10): those
     * {@link AnomalyKind#blamed} names among {@link #transactions}, and for a shape of several transactions
     * ({@link AnomalyKind.Blame#EVERY}) its cycle's and its refuted sub-history's too. May repeat an id.
     */
    public java.util.List<String> atFault() {
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i : kind.blamed(transactions.size())) ids.add(transactions.get(i).id());
        if (kind.blame() == AnomalyKind.Blame.EVERY) {
            for (Edge e : cycle) { ids.add(e.from()); ids.add(e.to()); }
            ids.addAll(subHistory);
        }
        return ids;
    }

    /**
     * How a sub-history refuted by search was shrunk, within the certificate's own budget. {@code before}: the
     * transactions of the refutation as the solver left it; {@code after}: of the certificate; {@code checks}:
     * sub-histories checked while shrinking.
     */
    public record Reduction(Status status, int before, int after, long nanos, int checks, String note) {
        public enum Status {
            /** Proved 1-minimal: removing any one transaction (with those that read from it) leaves a serializable history. */
            MINIMAL("minimal"),
            /** Smaller than the solver's refutation, perhaps not minimal: the certificate budget ran out first. */
            REDUCED("reduced"),
            /** The solver's refutation as it is: shrinking was skipped (budget 0, or a collected past). */
            AS_FOUND("as found");

            public final String word;

            Status(String word) { this.word = word; }
        }

        public double millis() { return nanos / 1e6; }

        /** One line for people: what was achieved, with sizes. */
        public String describe() {
            return switch (status) {
                case MINIMAL -> "minimal: " + after + " transactions (from " + before + "), proved 1-minimal in "
                        + String.format("%.0f ms", millis()) + " (" + checks + " sub-histories checked)";
                case REDUCED -> "reduced from " + before + " to " + after + " transactions, not proved minimal ("
                        + (note == null ? "the certificate budget ran out" : note) + ")";
                case AS_FOUND -> after + " transactions, as the solver refuted them, not shrunk" + (note == null ? "" : " (" + note + ")");
            };
        }
    }

    /** One edge of a cycle: {@code from -label(key)-> to}, with the reason when it was derived, not observed. */
    public record Edge(String from, String to, String kind, String key, String derivedBecause) {
        public String label() { return key == null ? kind : kind + "(" + key + ")"; }
    }

    /**
     * One transaction of the certificate, as the history recorded it; {@code start} and {@code end} are its times in
     * the history's clock (nanoseconds), {@link #NO_TIME} where the history has none.
     */
    public record Txn(String id, String session, String status, String ops, int line, long start, long end) {
        /** No time recorded. */
        public static final long NO_TIME = Long.MIN_VALUE;

        /** A transaction without times. */
        public Txn(String id, String session, String status, String ops, int line) { this(id, session, status, ops, line, NO_TIME, NO_TIME); }

        /** Whether both its start and its end are known. */
        public boolean timed() { return start != NO_TIME && end != NO_TIME && end >= start; }

        /** {@code T17} for a numeric id, the id itself otherwise (as cycles name transactions). */
        public String label() {
            return !id.isEmpty() && (Character.isDigit(id.charAt(0)) || id.charAt(0) == '-') ? "T" + id : id;
        }
    }
}
