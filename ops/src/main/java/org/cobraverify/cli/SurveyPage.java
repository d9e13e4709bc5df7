package org.cobraverify.cli;

import static org.cobraverify.report.HtmlReport.esc;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.cobraverify.report.HtmlReport;

/**
 * The survey as one self-contained web page: a table, one row per isolation level, what its documentation promises,
 * the strongest level observed, and each anomaly seen linked to its certificate page (relative links, so the page and
 * its certificates move together). A broken promise is marked as a finding. The page loads nothing.
 */
final class SurveyPage {
    private SurveyPage() {}

    /** The page for {@code rows}, to be written at {@code file} (links are made relative to its directory). */
    static String render(String db, String date, double seconds, String command, List<Survey.Row> rows, Path file) {
        Path base = file.toAbsolutePath().normalize().getParent();
        String database = rows.isEmpty() ? db : rows.get(0).database();
        StringBuilder b = new StringBuilder(8192);
        HtmlReport.head(b, "cobra survey: " + database, CSS);
        b.append("<h1>What ").append(esc(database.isEmpty() ? db : database)).append(" really gives</h1>\n");
        b.append("<p class=\"note\">Surveyed ").append(esc(date)).append(String.format(Locale.ROOT, " in %.0f s", seconds))
                .append(" with <code>").append(esc(command)).append("</code>. Each level's recordings were checked at every level of the ladder "
                        + "(read committed, read atomic, causal, snapshot isolation, serializable, strict serializable). A survey shows that an "
                        + "anomaly happens, never that it cannot: \u201cnone\u201d means none in that many transactions.</p>\n");
        b.append("<table class=\"survey\"><thead><tr><th>level</th><th>promised</th><th>strongest observed</th><th>transactions</th>"
                + "<th>anomalies seen (recordings; a certificate each)</th><th>promise</th></tr></thead><tbody>\n");
        for (Survey.Row r : rows) {
            b.append("<tr").append(r.contradicts() ? " class=\"broken\"" : "").append("><td>").append(esc(r.level().sqlName())).append("</td><td>")
                    .append(r.level().promised() == null ? "<span class=\"none\">no level of the ladder</span>" : esc(r.level().promised().longName()))
                    .append("</td><td>").append(r.strongest() == null ? "not even read committed" : esc(r.strongest().longName()))
                    .append(String.format(Locale.ROOT, "</td><td class=\"n\">%,d</td><td>", r.transactions()));
            if (r.anomalies().isEmpty()) b.append("none");
            else {
                b.append("<ul>");
                for (Survey.Seen a : r.anomalies())
                    b.append("<li><a href=\"").append(esc(link(base, a.page()))).append("\" title=\"").append(esc(a.kind().meaning()))
                            .append("\">").append(esc(a.anomaly())).append("</a> (").append(a.recordings()).append("; breaks ")
                            .append(esc(a.breaks().longName())).append(")</li>");
                b.append("</ul>");
            }
            for (String u : r.undecided()) b.append("<p class=\"undecided\">undecided: ").append(esc(u)).append("</p>");
            b.append("</td><td>").append(r.level().promised() == null ? "\u2014" : r.contradicts() ? "<strong>broken</strong>" : "kept").append("</td></tr>\n");
        }
        b.append("</tbody></table>\n");
        for (Survey.Row r : rows)
            if (r.contradicts())
                b.append("<p class=\"finding\"><strong>Finding:</strong> ").append(esc(database.isEmpty() ? db : database)).append(" at ").append(esc(r.level().sqlName())).append(" promises ")
                        .append(esc(r.level().promised().longName())).append("; the recordings give ")
                        .append(esc(r.strongest() == null ? "not even read committed" : "only " + r.strongest().longName())).append(".</p>\n");
        b.append("<footer>Written by cobra. This page loads nothing.</footer>\n</body></html>\n");
        return b.toString();
    }

    /** {@code page} relative to {@code base}, with forward slashes (a URL path). */
    private static String link(Path base, Path page) {
        Path p = page.toAbsolutePath().normalize();
        return (base == null ? p : base.relativize(p)).toString().replace('\\', '/');
    }

    private static final String CSS = """
            body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1150px; padding: 0 1em; color: #222; }
            h1 { font-size: 1.5em; } .note, footer { color: #555; } footer { margin-top: 3em; font-size: .85em; }
            table.survey { border-collapse: collapse; width: 100%; } .survey th, .survey td { border: 1px solid #ddd; padding: .35em .6em; text-align: left; vertical-align: top; }
            .survey td.n { text-align: right; font-variant-numeric: tabular-nums; } .survey ul { margin: 0; padding-left: 1.1em; }
            tr.broken td { background: #fdecea; } .finding { color: #a40000; } .none { color: #777; } .undecided { color: #8a6d00; margin: .2em 0; }
            """;
}
