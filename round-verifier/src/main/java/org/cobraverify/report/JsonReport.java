package org.cobraverify.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckStats;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;

/**
 * Renders a verdict as one JSON object (one line): at least {@code verdict}, {@code transactions} and
 * {@code millis}, as {@code docs/history-format.md} requires, plus the certificate on reject: its {@code kind} and
 * {@code anomaly} (the {@link org.cobraverify.checker.AnomalyKind} and its name), the anomaly's {@code adya} class and
 * {@code meaning}, the summary, cycle and transactions.
 */
public final class JsonReport {
    private static final JsonFactory JSON = new JsonFactory();

    private JsonReport() {}

    public static String render(String file, String format, Verdict v, int transactions, double millis, double parseMillis) {
        return write(g -> {
            headline(g, file, format, v, transactions, millis);
            stats(g, v.stats(), parseMillis);
            if (v.certificate() != null) certificate(g, v.certificate());
            strings(g, "notes", v.notes());
        });
    }

    /**
     * A check at one isolation level: as {@link #render}, with {@code weakestViolated} on reject (the weakest level of the
     * ladder the history breaks; omitted when a weaker level's check was undecided).
     */
    public static String renderLevel(String file, String format, Verdict v, IsolationLevel weakest, int transactions, double millis, double parseMillis) {
        return write(g -> {
            headline(g, file, format, v, transactions, millis);
            if (weakest != null) g.writeStringField("weakestViolated", weakest.longName());
            stats(g, v.stats(), parseMillis);
            if (v.certificate() != null) certificate(g, v.certificate());
            strings(g, "notes", v.notes());
        });
    }

    /**
     * Every level of the ladder: {@code verdict} is the strongest level's (accept only when every level holds; reject, with
     * the weakest violated level's certificate, when any level fails), {@code strongest} the strongest level satisfied
     * (null: not even read committed), and {@code levels} maps each level's name to its own verdict object.
     */
    public static String renderLadder(String file, String format, Isolation.Ladder ladder, int transactions, double millis, double parseMillis) {
        IsolationLevel weakest = ladder.weakestViolated();
        Verdict top = weakest != null ? ladder.verdicts().get(weakest) : ladder.verdicts().get(IsolationLevel.STRICT_SERIALIZABLE);
        boolean undecided = weakest == null && ladder.verdicts().values().stream().anyMatch(v -> v.outcome() == Verdict.Outcome.UNKNOWN);
        return write(g -> {
            g.writeStringField("file", file);
            if (format != null) g.writeStringField("format", format);
            g.writeStringField("verdict", weakest != null ? "reject" : undecided ? "unknown" : "accept");
            g.writeStringField("isolation", "all");
            IsolationLevel strongest = ladder.strongest();
            if (strongest == null) g.writeNullField("strongest"); else g.writeStringField("strongest", strongest.longName());
            if (weakest != null) g.writeStringField("weakestViolated", weakest.longName());
            g.writeNumberField("transactions", transactions);
            g.writeNumberField("millis", Math.round(millis));
            g.writeNumberField("parseMillis", Math.round(parseMillis));
            if (weakest != null) certificate(g, top.certificate());
            g.writeObjectFieldStart("levels");
            for (Map.Entry<IsolationLevel, Verdict> e : ladder.verdicts().entrySet()) {
                Verdict v = e.getValue();
                g.writeObjectFieldStart(e.getKey().longName());
                g.writeStringField("verdict", v.outcome().word());
                if (v.stats() != null) g.writeNumberField("millis", Math.round((v.stats().decisionNanos > 0 ? v.stats().decisionNanos
                        : v.stats().constructNanos + v.stats().pruneNanos + v.stats().solveNanos) / 1e6));
                if (v.unknownReason() != null) g.writeStringField("reason", v.unknownReason());
                if (v.certificate() != null) certificate(g, v.certificate());
                strings(g, "notes", v.notes());
                g.writeEndObject();
            }
            g.writeEndObject();
        });
    }

    /** A violation found: the round that found it (-1: a one-shot check), and its certificate. */
    public record Found(long round, Certificate certificate) {}

    /** As {@link #render}, with the figures of verification in rounds (numbers, arrays of numbers or of strings, objects of numbers or arrays of numbers, and lists of objects of numbers and strings). */
    public static String renderRounds(String file, String format, Verdict v, int transactions, double millis, double parseMillis,
                                      Map<String, Object> rounds) {
        return renderRounds(file, format, v, transactions, millis, parseMillis, rounds, List.of());
    }

    /**
     * As above, with every violation found ({@code violations}: one object per violation, in the order found, with its round,
     * anomaly and certificate); the verdict's own {@code certificate} is the first one's.
     */
    public static String renderRounds(String file, String format, Verdict v, int transactions, double millis, double parseMillis,
                                      Map<String, Object> rounds, List<Found> violations) {
        return write(g -> {
            headline(g, file, format, v, transactions, millis);
            for (Map.Entry<String, Object> e : rounds.entrySet()) {
                if (e.getValue() instanceof long[] a) {
                    g.writeArrayFieldStart(e.getKey());
                    for (long x : a) g.writeNumber(x);
                    g.writeEndArray();
                } else if (e.getValue() instanceof String[] a) { // strings, null where there is none
                    g.writeArrayFieldStart(e.getKey());
                    for (String x : a) { if (x == null) g.writeNull(); else g.writeString(x); }
                    g.writeEndArray();
                } else if (e.getValue() instanceof Map<?, ?> m) { // an object of numbers
                    g.writeObjectFieldStart(e.getKey());
                    for (Map.Entry<?, ?> f : m.entrySet()) {
                        if (f.getValue() instanceof long[] a) {
                            g.writeArrayFieldStart(String.valueOf(f.getKey()));
                            for (long x : a) g.writeNumber(x);
                            g.writeEndArray();
                        } else g.writeNumberField(String.valueOf(f.getKey()), ((Number) f.getValue()).longValue());
                    }
                    g.writeEndObject();
                } else if (e.getValue() instanceof List<?> l) { // a list of objects of numbers and strings
                    g.writeArrayFieldStart(e.getKey());
                    for (Object o : l) {
                        g.writeStartObject();
                        for (Map.Entry<?, ?> f : ((Map<?, ?>) o).entrySet()) {
                            if (f.getValue() instanceof Number n) g.writeNumberField(String.valueOf(f.getKey()), n.longValue());
                            else g.writeStringField(String.valueOf(f.getKey()), String.valueOf(f.getValue()));
                        }
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                } else if (e.getValue() instanceof Number n) g.writeNumberField(e.getKey(), n.longValue());
                else g.writeStringField(e.getKey(), String.valueOf(e.getValue()));
            }
            if (v.certificate() != null) certificate(g, v.certificate());
            g.writeArrayFieldStart("violations");
            for (Found f : violations) {
                g.writeStartObject();
                if (f.round() >= 0) g.writeNumberField("round", f.round());
                g.writeStringField("anomaly", f.certificate().kind().displayName());
                g.writeStringField("kind", f.certificate().kind().name());
                certificate(g, f.certificate());
                g.writeEndObject();
            }
            g.writeEndArray();
            strings(g, "notes", v.notes());
        });
    }

    /** The fields every verdict object starts with. */
    private static void headline(JsonGenerator g, String file, String format, Verdict v, int transactions, double millis) throws IOException {
        g.writeStringField("file", file);
        if (format != null) g.writeStringField("format", format);
        g.writeStringField("verdict", v.outcome().word());
        if (v.stats() != null) {
            g.writeStringField("mode", v.stats().level().longName());
            g.writeStringField("isolation", v.stats().level().longName());
        }
        g.writeNumberField("transactions", transactions);
        g.writeNumberField("millis", Math.round(millis));
        if (v.unknownReason() != null) g.writeStringField("reason", v.unknownReason());
    }

    public static String error(String file, String message) {
        return write(g -> {
            g.writeStringField("file", file);
            g.writeStringField("verdict", "error");
            g.writeStringField("error", message);
        });
    }

    private interface Body { void write(JsonGenerator g) throws IOException; }

    private static String write(Body body) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            body.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void stats(JsonGenerator g, CheckStats s, double parseMillis) throws IOException {
        if (s == null) return;
        g.writeObjectFieldStart("stats");
        g.writeNumberField("included", s.included);
        g.writeNumberField("keys", s.keys);
        g.writeNumberField("sessions", s.sessions);
        g.writeNumberField("parseMillis", Math.round(parseMillis));
        g.writeNumberField("constructMillis", Math.round(s.constructMillis()));
        g.writeNumberField("pruneMillis", Math.round(s.pruneMillis()));
        g.writeNumberField("solveMillis", Math.round(s.solveMillis()));
        if (s.decisionNanos > 0) g.writeNumberField("decisionMillis", Math.round(s.decisionMillis()));
        if (s.certificateNanos > 0) g.writeNumberField("certificateMillis", Math.round(s.certificateMillis()));
        g.writeNumberField("constraintsBefore", s.constraintsBefore);
        g.writeNumberField("pruneRounds", s.pruneRounds);
        g.writeNumberField("constraintsAfterPrune", s.constraintsAfterPrune);
        g.writeNumberField("constraintsToSolver", s.constraintsToSolver);
        g.writeNumberField("components", s.components);
        g.writeNumberField("conflicts", s.conflicts);
        g.writeStringField("solver", s.solver);
        if (!s.reachability.isEmpty()) g.writeStringField("reachability", s.reachability);
        g.writeEndObject();
    }

    private static void certificate(JsonGenerator g, Certificate c) throws IOException {
        g.writeObjectFieldStart("certificate");
        g.writeStringField("kind", c.kind().name());
        g.writeStringField("anomaly", c.kind().displayName());
        g.writeStringField("adya", c.kind().adyaClass());
        g.writeStringField("meaning", c.kind().meaning());
        g.writeStringField("summary", c.summary());
        g.writeArrayFieldStart("cycle");
        for (Certificate.Edge e : c.cycle()) {
            g.writeStartObject();
            g.writeStringField("from", e.from());
            g.writeStringField("to", e.to());
            g.writeStringField("kind", e.kind());
            if (e.key() != null) g.writeStringField("key", e.key());
            if (e.derivedBecause() != null) g.writeStringField("derivedBecause", e.derivedBecause());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("transactions");
        for (Certificate.Txn t : c.transactions()) {
            g.writeStartObject();
            g.writeStringField("id", t.id());
            g.writeStringField("session", t.session());
            g.writeStringField("status", t.status());
            g.writeStringField("ops", t.ops());
            if (t.line() >= 0) g.writeNumberField("line", t.line());
            g.writeEndObject();
        }
        g.writeEndArray();
        if (c.reduction() != null) {
            g.writeObjectFieldStart("reduction");
            g.writeStringField("status", c.reduction().status().word);
            g.writeNumberField("before", c.reduction().before());
            g.writeNumberField("after", c.reduction().after());
            g.writeNumberField("millis", Math.round(c.reduction().millis()));
            g.writeNumberField("checks", c.reduction().checks());
            if (c.reduction().note() != null) g.writeStringField("note", c.reduction().note());
            g.writeEndObject();
        }
        strings(g, "subHistory", c.subHistory());
        strings(g, "cases", c.cases());
        strings(g, "alsoFound", c.alsoFound());
        g.writeEndObject();
    }

    private static void strings(JsonGenerator g, String name, List<String> xs) throws IOException {
        if (xs == null || xs.isEmpty()) return;
        g.writeArrayFieldStart(name);
        for (String s : xs) g.writeString(s);
        g.writeEndArray();
    }
}
