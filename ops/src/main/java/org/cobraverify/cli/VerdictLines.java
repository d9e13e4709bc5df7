package org.cobraverify.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Verdict;

/** How verdicts print: one line each; a rejection adds its certificate's text. */
final class VerdictLines {
    private VerdictLines() {}

    /**
     * The level {@code v} is about: its {@code isolation} field, or, for a verdict written before the field existed, what
     * its {@code strict} flag says.
     */
    static String isolation(Verdict v) {
        if (v.getIsolation() != null) return v.getIsolation().toString();
        return v.getStrict() ? "strict-serializable" : "serializable";
    }

    static String line(Verdict v) {
        String lag = v.getRoundLatestEnd() > 0 ? String.format(", lag %.1f s (%.1f s after the cut)", lagSeconds(v),
                (v.getVerifiedAt() - v.getRoundCutAt()) / 1e3) : "";
        String steps = v.getTotalMs() == 0 ? "decided with a later round" : String.format("%d ms: build %d, construct %d, prune %d, solve %d, gc %d",
                v.getTotalMs(), v.getBuildMs(), v.getConstructMs(), v.getPruneMs(), v.getSolveMs(), v.getGcMs());
        String kept = v.getRetainedTxns() >= 0 ? String.format(", %d retained, %d collected", v.getRetainedTxns(), v.getCollectedTxns()) : "";
        String own = v.getViolations() == 0 || v.getOwnOutcome() == null ? ""
                : v.getNewViolations() > 0 ? String.format(" (%d new violation%s; %d so far, the first in round %d)", v.getNewViolations(),
                        v.getNewViolations() == 1 ? "" : "s", v.getViolations(), v.getFirstViolationRound())
                : String.format(" (this round: %s; %d violation%s so far, the first in round %d)", VerdictsCommand.own(v), v.getViolations(),
                        v.getViolations() == 1 ? "" : "s", v.getFirstViolationRound());
        String unchecked = v.getUncheckedNow() > 0 ? String.format(", %d unchecked (%d so far)", v.getUncheckedNow(), v.getUncheckedTxns()) : "";
        return String.format("round %d: %s%s: %s [epochs %d-%d, %d txns in the round, %d checked, %d pending%s%s; %s%s]",
                v.getRound(), v.getOutcome().name().toLowerCase(), own, v.getReason(), v.getFirstEpoch(), v.getLastEpoch(), v.getRoundTxns(),
                v.getCheckedTxns(), v.getPendingTxns(), unchecked, kept, steps, lag);
    }

    /** How far the verdict trails the workload: from the round's last commit to the verdict. */
    static double lagSeconds(Verdict v) {
        return (v.getVerifiedAt() * 1_000_000L - v.getRoundLatestEnd()) / 1e9;
    }

    static String full(Verdict v) {
        if (v.getCertificate() == null) return line(v);
        StringBuilder b = new StringBuilder(line(v)).append(System.lineSeparator()).append(v.getCertificate().getText());
        for (Certificate c : v.getMoreCertificates()) b.append(System.lineSeparator()).append(c.getText());
        return b.toString();
    }

    /**
     * One verdict as one JSON object on one line, for scripts and alerting: {@code round}, {@code verdict}
     * (accept, reject, unknown), {@code reason}, {@code transactions} (in the round), {@code checked},
     * {@code pending}, {@code retained} (-1: not reported), {@code collected}, {@code millis}, the epochs,
     * {@code lagSeconds} (when known), {@code verifierRestarts}, {@code uncheckedNow} and {@code uncheckedTotal} with the
     * {@code unchecked} transactions named (id, reason) when the round left some, and on a reject the {@code certificate}
     * (anomaly, with {@code adya} and {@code meaning} when it names a known kind; summary, cycle edges, transactions, text).
     */
    static String json(Verdict v) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeNumberField("round", v.getRound());
            g.writeStringField("verdict", v.getOutcome().name().toLowerCase());
            g.writeStringField("reason", v.getReason());
            g.writeNumberField("transactions", v.getRoundTxns());
            g.writeNumberField("checked", v.getCheckedTxns());
            g.writeNumberField("pending", v.getPendingTxns());
            g.writeNumberField("retained", v.getRetainedTxns());
            g.writeNumberField("collected", v.getCollectedTxns());
            g.writeNumberField("millis", v.getTotalMs());
            g.writeNumberField("firstEpoch", v.getFirstEpoch());
            g.writeNumberField("lastEpoch", v.getLastEpoch());
            if (v.getRoundLatestEnd() > 0) g.writeNumberField("lagSeconds", Math.round(lagSeconds(v) * 1000) / 1000.0);
            g.writeNumberField("verifierRestarts", v.getVerifierRestarts());
            if (v.getVerifiedAt() > 0) g.writeNumberField("verifiedAt", v.getVerifiedAt());
            g.writeBooleanField("strict", v.getStrict());
            g.writeStringField("isolation", isolation(v));
            // after a violation: the history stays rejected; what this round's own transactions came to, and the count so far
            g.writeStringField("own", VerdictsCommand.own(v));
            g.writeNumberField("newViolations", v.getOwnOutcome() == null ? (v.getOutcome() == org.cobraverify.schemas.Outcome.REJECT ? 1 : 0) : v.getNewViolations());
            g.writeNumberField("violations", v.getViolations());
            g.writeNumberField("firstViolationRound", v.getFirstViolationRound());
            g.writeNumberField("uncheckedNow", v.getUncheckedNow());
            g.writeNumberField("uncheckedTotal", v.getUncheckedTxns());
            if (!v.getUnchecked().isEmpty()) {
                g.writeArrayFieldStart("unchecked");
                for (org.cobraverify.schemas.UncheckedTxn u : v.getUnchecked()) {
                    g.writeStartObject();
                    g.writeStringField("id", u.getId());
                    g.writeStringField("reason", u.getReason());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (!v.getMoreCertificates().isEmpty()) {
                g.writeArrayFieldStart("moreCertificates");
                for (Certificate m : v.getMoreCertificates()) certificate(g, m);
                g.writeEndArray();
            }
            if (v.getCertificate() != null) {
                g.writeFieldName("certificate");
                certificate(g, v.getCertificate());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    /** A certificate as one JSON object: anomaly (with its Adya class and meaning when it names a known kind), summary, cycle edges, transactions, text. */
    private static void certificate(JsonGenerator g, Certificate c) throws IOException {
        g.writeStartObject();
        g.writeStringField("anomaly", c.getAnomaly());
        AnomalyKind kind = AnomalyKind.named(c.getAnomaly());
        if (kind != null) {
            g.writeStringField("adya", kind.adyaClass());
            g.writeStringField("meaning", kind.meaning());
        }
        g.writeStringField("summary", c.getSummary());
        g.writeArrayFieldStart("cycle");
        for (CycleEdge e : c.getCycle()) {
            g.writeStartObject();
            g.writeStringField("from", e.getFrom());
            g.writeStringField("to", e.getTo());
            g.writeStringField("kind", e.getKind());
            if (e.getKey() != null) g.writeStringField("key", e.getKey());
            if (e.getWhy() != null) g.writeStringField("why", e.getWhy());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("transactions");
        for (CertTxn t : c.getTransactions()) {
            g.writeStartObject();
            g.writeStringField("id", t.getId());
            g.writeStringField("session", t.getSession());
            g.writeStringField("ops", t.getOps());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeStringField("text", c.getText());
        g.writeEndObject();
    }
}
