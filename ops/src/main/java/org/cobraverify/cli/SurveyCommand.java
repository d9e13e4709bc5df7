package org.cobraverify.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.cobraverify.checker.CheckOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra survey --db NAME}: what a database really gives at each isolation level it offers ({@link Survey}). Exit 0
 * when every level kept its documented promise, 1 when a recording contradicted one (a finding, with its certificate), 2
 * when the survey could not run.
 */
@Command(name = "survey", mixinStandardHelpOptions = true, header = "Surveys what isolation a database really gives at each level it offers.",
        description = {"Records workloads built to provoke each anomaly at every isolation level a database offers, checks each",
                "recording at every level of the ladder, and prints, per level, what was promised, the strongest level observed and",
                "every anomaly seen (with a certificate page). A survey shows that an anomaly happens, never that it cannot.",
                "Exit codes: 0 every promise kept, 1 a promise broken, 2 the survey could not run."})
public final class SurveyCommand implements Callable<Integer> {
    @Option(names = "--db", required = true, description = "postgres, mariadb, or the embedded h2, sqlite, hsqldb, hsqldb-mvcc, derby, rocksdb, rocksdb-optimistic.")
    String db;

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "Default: the local server (jdbc:postgresql://127.0.0.1:5432/test or jdbc:mariadb://127.0.0.1:3306/test).")
    String jdbcUrl;

    @Option(names = "--user", description = "Database user (default: postgres for PostgreSQL, root for MariaDB).")
    String user;

    @Option(names = "--password-env", paramLabel = "VAR", description = "The environment variable that holds the password (default: ${DEFAULT-VALUE}; unset: none).")
    String passwordEnv = "COBRA_DB_PASSWORD";

    @Option(names = "--levels", split = ",", paramLabel = "LEVEL", description = "Only these of the database's levels (SQL names, e.g. read-committed,serializable).")
    List<String> levels;

    @Option(names = "--workloads", split = ",", paramLabel = "W", description = "Workloads to record at each level (default: write-skew,counter,dirty-read,tpcc,blindw-rw).")
    List<String> workloads = Survey.DEFAULT_WORKLOADS;

    @Option(names = "--txns", description = "Transactions per level, split among the workloads (default: ${DEFAULT-VALUE}).")
    long txns = 20_000;

    @Option(names = "--clients", description = "Concurrent sessions (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--seed", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the recordings and certificate pages go (default: survey-DB).")
    Path out;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Per recording and level checked: give up with 'unknown' after this long (default: ${DEFAULT-VALUE}).")
    double timeout = 60;

    @Option(names = "--json", description = "Print the survey as one JSON object.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write the survey as one web page: the table, each anomaly linked to its certificate page.")
    Path html;

    @Override
    public Integer call() {
        List<Survey.Offered> offered;
        try {
            offered = chosen(Survey.levelsOf(db));
        } catch (IllegalArgumentException e) {
            System.err.println("cobra survey: " + e.getMessage());
            return 2;
        }
        if (txns < workloads.size() || clients < 1) {
            System.err.println("cobra survey: --txns must give each workload a transaction, and --clients must be positive");
            return 2;
        }
        Path dir = out != null ? out : Paths.get("survey-" + db);
        String refused = OutputFiles.refusal(html, OutputFiles.Kind.PAGE);
        if (refused != null) {
            System.err.println("cobra survey: " + refused);
            return 2;
        }
        Survey s = new Survey(new Survey.Target(db, jdbcUrl, user, System.getenv(passwordEnv)), clients, seed, dir,
                CheckOptions.defaults().withTimeout(timeout), line -> System.err.println(line));
        List<Survey.Row> rows = new ArrayList<>();
        long t0 = System.nanoTime();
        boolean failed = false;
        for (Survey.Offered level : offered) {
            System.err.printf("cobra survey: %s at %s, %d transactions over %s%n", db, level.sqlName(), txns, String.join(", ", workloads));
            try {
                rows.add(s.survey(level, workloads, txns));
            } catch (Exception e) {
                // the levels surveyed so far are still reported; the survey stops (a stalled database may hold its locks)
                System.err.println("cobra survey: " + db + " at " + level.sqlName() + " could not be surveyed: " + e.getMessage());
                failed = true;
                break;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.print(json ? json(rows, seconds) : text(rows, seconds, dir));
        if (html != null) {
            try {
                Path parent = html.toAbsolutePath().getParent();
                if (parent != null) Files.createDirectories(parent);
                Files.writeString(html, SurveyPage.render(db, LocalDate.now().toString(), seconds, commandLine(), rows, html), StandardCharsets.UTF_8);
                System.err.println("cobra survey: the page is " + html.toAbsolutePath());
            } catch (IOException e) {
                System.err.println("cobra survey: cannot write " + html + ": " + e.getMessage());
                return 2;
            }
        }
        return failed ? 2 : rows.stream().anyMatch(Survey.Row::contradicts) ? 1 : 0;
    }

    /** The command that makes this survey again (no password: that comes from the environment). */
    private String commandLine() {
        StringBuilder c = new StringBuilder("cobra survey --db ").append(db);
        if (jdbcUrl != null) c.append(" --jdbc-url ").append(jdbcUrl);
        if (levels != null) c.append(" --levels ").append(String.join(",", levels));
        if (!workloads.equals(Survey.DEFAULT_WORKLOADS)) c.append(" --workloads ").append(String.join(",", workloads));
        c.append(" --txns ").append(txns).append(" --clients ").append(clients);
        if (seed != 1) c.append(" --seed ").append(seed);
        return c.toString();
    }

    private List<Survey.Offered> chosen(List<Survey.Offered> all) {
        if (levels == null) return all;
        List<Survey.Offered> r = new ArrayList<>();
        for (String l : levels) {
            String n = l.trim().toLowerCase(Locale.ROOT).replace('-', ' ').replace('_', ' ');
            Survey.Offered found = all.stream().filter(o -> o.sqlName().equals(n)).findFirst().orElse(null);
            if (found == null) {
                List<String> names = all.stream().map(Survey.Offered::sqlName).toList();
                throw new IllegalArgumentException(db + " offers no level '" + l + "': it offers " + String.join(", ", names));
            }
            r.add(found);
        }
        return r;
    }

    private String text(List<Survey.Row> rows, double seconds, Path dir) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s: %d level(s) surveyed in %.0f s; recordings and certificate pages in %s%n",
                rows.isEmpty() || rows.get(0).database().isEmpty() ? db : rows.get(0).database(), rows.size(), seconds, dir));
        b.append(String.format(Locale.ROOT, "  %-18s %-20s %-29s %9s  %s%n", "level", "promised", "strongest observed", "txns", "anomalies seen"));
        for (Survey.Row r : rows) {
            String anomalies = r.anomalies().isEmpty() ? "none in " + r.transactions() + " transactions"
                    : String.join("; ", r.anomalies().stream().map(a -> a.anomaly() + " (" + a.recordings() + " recording(s), breaks "
                    + a.breaks().longName() + ")").toList());
            b.append(String.format(Locale.ROOT, "  %-18s %-20s %-29s %9d  %s%n", r.level().sqlName(),
                    r.level().promised() == null ? "(no rung)" : r.level().promised().longName(),
                    r.strongest() == null ? "none" : r.strongest().longName(), r.transactions(), anomalies));
        }
        for (Survey.Row r : rows) {
            if (r.contradicts())
                b.append(String.format(Locale.ROOT, "FINDING: %s %s promises %s; the recordings give %s%n", db, r.level().sqlName(),
                        r.level().promised().longName(), r.strongest() == null ? "not even read committed" : "only " + r.strongest().longName()));
            for (Survey.Seen a : r.anomalies()) b.append("  ").append(r.level().sqlName()).append(", ").append(a.anomaly()).append(": ").append(a.page()).append('\n');
            for (String u : r.undecided()) b.append("  undecided: ").append(r.level().sqlName()).append(", ").append(u).append('\n');
        }
        return b.toString();
    }

    private String json(List<Survey.Row> rows, double seconds) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("db", db);
            g.writeStringField("database", rows.isEmpty() ? "" : rows.get(0).database());
            g.writeNumberField("seconds", Math.round(seconds));
            g.writeArrayFieldStart("levels");
            for (Survey.Row r : rows) {
                g.writeStartObject();
                g.writeStringField("level", r.level().sqlName());
                if (r.level().promised() == null) g.writeNullField("promised"); else g.writeStringField("promised", r.level().promised().longName());
                if (r.strongest() == null) g.writeNullField("strongest"); else g.writeStringField("strongest", r.strongest().longName());
                g.writeBooleanField("promiseKept", !r.contradicts());
                g.writeNumberField("transactions", r.transactions());
                g.writeArrayFieldStart("anomalies");
                for (Survey.Seen a : r.anomalies()) {
                    g.writeStartObject();
                    g.writeStringField("anomaly", a.anomaly());
                    g.writeStringField("adya", a.kind().adyaClass());
                    g.writeStringField("meaning", a.kind().meaning());
                    g.writeStringField("breaks", a.breaks().longName());
                    g.writeNumberField("recordings", a.recordings());
                    g.writeStringField("certificate", a.page().toString());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeArrayFieldStart("undecided");
                for (String u : r.undecided()) g.writeString(u);
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w + "\n";
    }
}
