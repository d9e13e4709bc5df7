package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * The certificate of a read of a collected write that {@link StaleReads} judged a violation: G1a (the writer
 * aborted), G1b (an intermediate value), or a stale read ({@code reader -rw-> superseding writer -past-> reader}).
 * The collected writer appears by id only: its operations are gone. docs/DESIGN.md §7.5.
 */
final class StaleReadCertificates {
    private StaleReadCertificates() {}

    /** Requires: {@code s}'s fate is not {@link CollectedWrites.Fate#UNKNOWN_OUTCOME}. {@code held}: a held transaction by id, or null. */
    static Certificate of(StaleReads.StaleRead s, Function<String, Transaction> held) {
        Transaction f = s.reader();
        String key = WireText.shown(s.op().getKey()), val = WireText.shown(s.op().getValue()), w = s.entry().writer(), by = s.entry().supersededBy();
        String fl = label(f.getId()), wl = label(w);
        List<Certificate.Txn> txns = new ArrayList<>();
        txns.add(new Certificate.Txn(f.getId(), f.getSession(), "committed", describe(f), -1));
        switch (s.entry().fate()) {
            case ABORTED -> {
                String text = fl + " read " + key + " = " + val + ", written by " + wl + ", which aborted";
                txns.add(0, new Certificate.Txn(w, "?", "aborted", "(collected)", -1)); // writer, then reader, as the checker lists them
                return new Certificate(AnomalyKind.G1A, text, List.of(), txns, List.of(), List.of(), List.of());
            }
            case INTERMEDIATE -> {
                String text = fl + " read " + key + " = " + val + ", an intermediate value: " + wl + " overwrote it before committing";
                txns.add(0, new Certificate.Txn(w, "?", "committed", "(collected)", -1));
                return new Certificate(AnomalyKind.G1B, text, List.of(), txns, List.of(), List.of(), List.of());
            }
            default -> {
                String bl = label(by);
                Transaction byTxn = held.apply(by);
                if (!w.equals(StaleReads.INITIAL)) txns.add(new Certificate.Txn(w, "?", "committed", "(collected: w(" + key + ")=" + val + ")", -1));
                txns.add(new Certificate.Txn(by, byTxn == null ? "?" : byTxn.getSession(), "committed", byTxn != null ? describe(byTxn)
                        : s.supersedingValue() == null ? "(collected)" : "(collected: w(" + key + ")=" + WireText.shown(s.supersedingValue()) + ")", -1));
                List<Certificate.Edge> cycle = List.of(
                        new Certificate.Edge(fl, bl, "rw", key, fl + " read " + wl + "'s version of " + key + ", and " + bl
                                + " wrote " + key + " after " + wl + " (" + wl + " reaches " + bl + " in the known graph)"),
                        new Certificate.Edge(bl, fl, "past", null, bl + " is in an epoch garbage collection closed, and " + fl
                                + " follows a fence that every transaction of those epochs precedes (the fences chain through their read-modify-writes)"));
                String text = "stale read: " + fl + " read " + key + " = " + val + ", written by " + wl + ", which " + bl
                        + " had superseded (" + wl + " was garbage-collected): " + fl + " -rw(" + key + ")-> " + bl + " -past-> " + fl;
                return new Certificate(AnomalyKind.STALE_READ, text, cycle, txns, List.of(), List.of(), List.of());
            }
        }
    }

    /**
     * The certificate of a read {@code s} of a superseded version by a reader that saw the superseding writer through its read
     * {@code saw} ({@link StaleReads.OldVersions#sawSuperseder}): {@code reader -rw(k)-> superseder -wr-> reader}, a fractured
     * read at read atomic, a non-monotonic read below it (the read that saw the superseder came first).
     */
    static Certificate ofSuperseder(StaleReads.StaleRead s, TxnOp saw, StaleReads.OldVersions old) {
        Transaction f = s.reader();
        String key = WireText.shown(s.op().getKey()), val = WireText.shown(s.op().getValue()), w = s.entry().writer(), by = s.entry().supersededBy();
        String fl = label(f.getId()), wl = label(w), bl = label(by);
        AnomalyKind kind = old.earlierReadsOnly() ? AnomalyKind.NON_MONOTONIC_READ : AnomalyKind.FRACTURED_READ;
        List<Certificate.Txn> txns = new ArrayList<>();
        txns.add(new Certificate.Txn(f.getId(), f.getSession(), "committed", describe(f), -1));
        if (!w.equals(StaleReads.INITIAL)) txns.add(new Certificate.Txn(w, "?", "committed", "(collected: w(" + key + ")=" + val + ")", -1));
        String sawKey = WireText.shown(saw.getKey()), sawValue = WireText.shown(saw.getValue());
        txns.add(new Certificate.Txn(by, "?", "committed", "(collected: w(" + sawKey + ")=" + sawValue
                + (s.supersedingValue() == null ? "" : " w(" + key + ")=" + WireText.shown(s.supersedingValue())) + ")", -1));
        String because = fl + (old.earlierReadsOnly() ? " had already read " : " read ") + sawKey + " = " + sawValue + ", written by " + bl;
        List<Certificate.Edge> cycle = List.of(
                new Certificate.Edge(fl, bl, "rw", key, fl + " read " + wl + "'s version of " + key + ", and " + bl + " wrote " + key
                        + " after " + wl + " in every order (" + wl + " reaches " + bl + " through session order and reads: garbage collection"
                        + " found the version superseded by " + bl + ")"),
                new Certificate.Edge(bl, fl, "wr", sawKey, because));
        String version = w.equals(StaleReads.INITIAL) ? key + "'s initial state" : key + " = " + val + ", written by " + wl;
        String text = kind.displayName() + ": " + because + ", yet read " + version + ", which " + bl
                + " had superseded: at " + old.level() + " " + bl + "'s write of " + key + " must then come before " + wl + "'s, and it comes after: "
                + fl + " -rw(" + key + ")-> " + bl + " -wr(" + sawKey + ")-> " + fl;
        return new Certificate(kind, text, cycle, txns, List.of(), List.of(), List.of());
    }

    static String label(String id) {
        return id != null && !id.isEmpty() && (Character.isDigit(id.charAt(0)) || id.charAt(0) == '-') ? "T" + id : String.valueOf(id);
    }

    static String describe(Transaction t) {
        StringBuilder sb = new StringBuilder("[");
        for (TxnOp o : t.getOps()) {
            if (sb.length() > 1) sb.append(' ');
            sb.append(o.getWrite() ? "w(" : "r(").append(WireText.shown(o.getKey())).append(")=").append(WireText.shown(o.getValue()));
        }
        return sb.append(']').toString();
    }
}
