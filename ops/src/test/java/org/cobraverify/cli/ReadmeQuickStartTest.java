package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, command by command as it is written there (every {@code $ ops/cobra ...} line of the
 * section), run in-process: the repository's {@code examples/} are read where they are, and the files the commands write
 * go to a temporary directory instead of the working one. Each command must end in a verdict (exit 0 or 1, never 2 or 3),
 * and where the README shows the verdict line after a command, the verdict must be the one it shows.
 */
class ReadmeQuickStartTest {
    @TempDir
    Path dir;

    @Test
    void theQuickStartRunsAsWritten() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("..", "README.md"));
        int from = lines.indexOf("## Quick start");
        assertTrue(from >= 0, "README.md has a quick start");
        List<String[]> commands = new ArrayList<>();
        List<String> shown = new ArrayList<>();
        for (int i = from + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            String l = lines.get(i);
            if (!l.startsWith("$ ops/cobra ")) continue;
            String cmd = l.substring("$ ops/cobra ".length()).replaceAll("\\s+#.*$", "").trim();
            commands.add(cmd.split("\\s+"));
            String next = i + 1 < lines.size() ? lines.get(i + 1) : "";
            shown.add(next.contains(": ACCEPT") ? "ACCEPT" : next.contains(": REJECT") ? "REJECT" : null);
        }
        assertTrue(commands.size() >= 6, "the quick start's commands: " + commands.size());
        String previous = System.getProperty("cobra.demo.serveAfterSeconds");
        System.setProperty("cobra.demo.serveAfterSeconds", "0"); // the demo's page goes with its summary
        // the README's record --db postgres creates cobra's default table, which a second run refuses without --recreate-table:
        // one an earlier run of this test left goes first (only if cobra created it: a table without its marker stays, and the
        // command then ends in exit 2, which the assertion below reports)
        if (postgresUp()) new org.cobraverify.collector.JdbcStore("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", "cobra_kv",
                org.cobraverify.collector.JdbcStore.Isolation.SERIALIZABLE, org.cobraverify.collector.JdbcStore.Table.EXISTING).dropTable();
        try {
            for (int c = 0; c < commands.size(); c++) {
                String[] args = place(commands.get(c));
                String line = String.join(" ", commands.get(c));
                if (line.contains("--db postgres") && !postgresUp()) continue; // (PostgreSQL runs wherever .ci/run does)
                if (line.contains("skew.jsonl") && line.startsWith("verify") && !Files.exists(dir.resolve("skew.jsonl"))) continue;
                VerifyCommandTest.Run r = VerifyCommandTest.cobra(args);
                if (r.exit() == 3 && line.startsWith("demo")) {
                    // once in three CI runs the demo's verifier consumed no round within its 30 s wait in this long-lived test
                    // JVM (exit 3: no verdict, which is what it must say then); not yet understood, so kept in the log and run again
                    System.out.println("ReadmeQuickStartTest: the demo reached no verdict; its output, then a second run:\n" + r.out() + r.err());
                    r = VerifyCommandTest.cobra(args);
                }
                assertTrue(r.exit() == 0 || r.exit() == 1, "ops/cobra " + line + " ended in " + r.exit() + ":\n" + r.out() + r.err());
                if (shown.get(c) != null)
                    assertTrue(r.out().contains(": " + shown.get(c)), "ops/cobra " + line + ": the README shows " + shown.get(c) + ", it printed:\n" + r.out());
                assertFalse(r.err().contains("Exception"), "ops/cobra " + line + ":\n" + r.err());
            }
        } finally {
            if (previous == null) System.clearProperty("cobra.demo.serveAfterSeconds");
            else System.setProperty("cobra.demo.serveAfterSeconds", previous);
        }
        assertTrue(Files.readString(dir.resolve("on-call.html")).contains("<h1>Not serializable"), "the certificate page");
    }

    /** The command's paths: the repository's examples where they are, every file it names otherwise in the temporary directory. */
    private String[] place(String[] args) {
        String[] r = args.clone();
        for (int i = 0; i < r.length; i++) {
            if (r[i].startsWith("examples/")) r[i] = Path.of("..").resolve(r[i]).toString();
            else if (!r[i].startsWith("-") && (r[i].endsWith(".jsonl") || r[i].endsWith(".html"))) r[i] = dir.resolve(r[i]).toString();
        }
        return r;
    }

    private static boolean postgresUp() {
        try (var c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }
}
