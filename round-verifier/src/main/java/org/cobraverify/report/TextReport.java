package org.cobraverify.report;

import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;

/** Renders a verdict for a person: one headline, then the certificate's cycle and transactions. */
public final class TextReport {
    private TextReport() {}

    public static String render(String source, Verdict v, int transactions, double millis) {
        return render(source, v, transactions, millis, true);
    }

    /**
     * The headline of a reject decided by search, printed the moment it is decided, before its certificate
     * is shrunk ({@link org.cobraverify.checker.CheckOptions#onDecision}).
     */
    public static String decided(String source, Verdict v, int transactions, double certificateSeconds) {
        return String.format("%s: REJECT: %s (%d transactions, decided in %.0f ms; shrinking the certificate for up to %s s)%n", source,
                v.certificate().kind().displayName(), transactions, v.stats().decisionMillis(), trim(certificateSeconds));
    }

    /** How an accept names the level it satisfies. */
    public static String satisfies(IsolationLevel level) {
        return switch (level) {
            case SERIALIZABLE -> "serializable";
            case STRICT_SERIALIZABLE -> "strictly serializable";
            default -> level.longName().replace('-', ' ');
        };
    }

    private static String trim(double d) { return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d); }

    /** As {@link #render(String, Verdict, int, double)}; without the headline when {@link #decided} already printed it. */
    public static String render(String source, Verdict v, int transactions, double millis, boolean headline) {
        StringBuilder sb = new StringBuilder();
        switch (v.outcome()) {
            case ACCEPT -> sb.append(String.format("%s: ACCEPT: %s (%d transactions, %.0f ms)%n", source,
                    v.stats() == null ? "serializable" : satisfies(v.stats().level()), transactions, millis));
            case UNKNOWN -> sb.append(String.format("%s: UNKNOWN: %s before a decision (%d transactions, %.0f ms)%n", source, v.unknownReason(), transactions, millis));
            case REJECT -> {
                Certificate c = v.certificate();
                if (headline) sb.append(String.format("%s: REJECT: %s (%d transactions, %.0f ms)%n", source, c.kind().displayName(), transactions, millis));
                String reduction = c.reduction() == null ? null
                        : String.format("  decided in %.0f ms; certificate %s%n", v.stats().decisionMillis(), c.reduction().describe());
                sb.append(certificate(c, reduction));
            }
        }
        for (String n : v.notes()) sb.append("  note: ").append(n).append('\n');
        return sb.toString();
    }

    /** A certificate's body: its summary, cycle (with why each derived edge holds), transactions, cases and what else was found. */
    public static String certificate(Certificate c) { return certificate(c, null); }

    private static String certificate(Certificate c, String reduction) {
        StringBuilder sb = new StringBuilder();
        sb.append("  ").append(c.summary()).append('\n');
        if (reduction != null) sb.append(reduction);
        if (!c.cycle().isEmpty()) {
            sb.append("  cycle:\n");
            for (Certificate.Edge e : c.cycle()) {
                sb.append("    ").append(e.from()).append(" -").append(e.label()).append("-> ").append(e.to()).append('\n');
                if (e.derivedBecause() != null) sb.append(e.kind().equals("rt") ? "      (" : "      (derived: ").append(e.derivedBecause()).append(")\n");
            }
        }
        if (!c.transactions().isEmpty()) {
            sb.append("  transactions:\n");
            int shown = 0;
            for (Certificate.Txn t : c.transactions()) {
                if (shown++ == 50) { sb.append("    ... ").append(c.transactions().size() - 50).append(" more\n"); break; }
                sb.append("    ").append(t.label()).append("  session ").append(t.session()).append("  ").append(t.status());
                if (t.line() >= 0) sb.append("  line ").append(t.line());
                sb.append("  ").append(t.ops()).append('\n');
            }
        }
        if (!c.cases().isEmpty()) {
            sb.append("  why, case by case:\n");
            for (String s : c.cases()) sb.append("    ").append(s).append('\n');
        }
        int shown = 0;
        for (String s : c.alsoFound()) {
            if (shown++ == 0) sb.append("  also:\n");
            if (shown > 20) { sb.append("    ... ").append(c.alsoFound().size() - 20).append(" more\n"); break; }
            sb.append("    ").append(s).append('\n');
        }
        return sb.toString();
    }
}
