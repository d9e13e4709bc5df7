package org.cobraverify.cli;

import java.io.PrintStream;
import java.util.Map;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.report.JsonReport;
import org.cobraverify.report.TextReport;
import org.cobraverify.verifier.Verifier;

/**
 * {@code cobra verify --isolation LEVEL} for the levels below serializability, and {@code --isolation all}: checks one
 * history and prints what it found. Exit codes: one level, today's (0 the level holds, 1 it does not, 3 undecided);
 * {@code all}, those of the strongest level (0 every level holds, 1 some level is broken, 3 none is broken and some is
 * undecided).
 */
final class IsolationVerification {
    private final PrintStream out;
    private final boolean json;

    IsolationVerification(PrintStream out, boolean json) {
        this.out = out;
        this.json = json;
    }

    /** One level: the verdict, and on reject the weakest level the history breaks. */
    record LevelResult(Verdict verdict, IsolationLevel weakest) {}

    LevelResult one(String name, String format, History h, IsolationLevel level, CheckOptions options, long t0, long t1) {
        Verdict v = Verifier.check(h, level, options);
        IsolationLevel weakest = v.outcome() == Verdict.Outcome.REJECT ? Verifier.weakestViolated(h, level, options) : null;
        double millis = (System.nanoTime() - t0) / 1e6;
        if (json) out.println(JsonReport.renderLevel(name, format, v, weakest, h.size(), millis, (t1 - t0) / 1e6));
        else {
            if (v.outcome() == Verdict.Outcome.REJECT) {
                out.printf("%s: REJECT: %s: not %s%s (%d transactions, %.0f ms)%n", name, v.certificate().kind().displayName(), TextReport.satisfies(level),
                        weakest == null ? "" : weakest == level ? "; every weaker level holds" : "; not even " + TextReport.satisfies(weakest),
                        h.size(), millis);
                out.print(TextReport.render(name, v, h.size(), millis, false));
            } else out.print(TextReport.render(name, v, h.size(), millis));
        }
        return new LevelResult(v, weakest);
    }

    /** Every level, with the strongest satisfied; returns the ladder (its weakest violated level's certificate is the page's). */
    Isolation.Ladder all(String name, String format, History h, CheckOptions options, long t0, long t1) {
        Isolation.Ladder ladder = Verifier.checkAll(h, options);
        double millis = (System.nanoTime() - t0) / 1e6;
        if (json) {
            out.println(JsonReport.renderLadder(name, format, ladder, h.size(), millis, (t1 - t0) / 1e6));
            return ladder;
        }
        IsolationLevel strongest = ladder.strongest();
        out.printf("%s: %s (%d transactions, %.0f ms)%n", name, strongest == null ? "satisfies no level, not even read committed"
                : "strongest level satisfied: " + strongest.longName(), h.size(), millis);
        for (Map.Entry<IsolationLevel, Verdict> e : ladder.verdicts().entrySet()) {
            Verdict v = e.getValue();
            String what = switch (v.outcome()) {
                case ACCEPT -> "accept";
                case REJECT -> "REJECT   " + v.certificate().kind().displayName();
                case UNKNOWN -> "unknown  " + v.unknownReason();
            };
            out.printf("  %-29s %s%n", e.getKey().longName(), what);
        }
        IsolationLevel weakest = ladder.weakestViolated();
        if (weakest != null) {
            out.printf("  the weakest level broken, %s:%n", weakest.longName());
            out.print(TextReport.render(name, ladder.verdicts().get(weakest), h.size(), millis, false));
        }
        return ladder;
    }

    /** The exit code of {@code --isolation all}: the strongest level's, read off the ladder. */
    static int exitCode(Isolation.Ladder ladder) {
        if (ladder.weakestViolated() != null) return Verdict.Outcome.REJECT.exitCode();
        for (Verdict v : ladder.verdicts().values()) if (v.outcome() == Verdict.Outcome.UNKNOWN) return Verdict.Outcome.UNKNOWN.exitCode();
        return 0;
    }
}
