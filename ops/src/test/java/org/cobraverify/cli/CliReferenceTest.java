package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code docs/cli.md}, the reference of every command, is generated from the commands themselves (picocli's usage
 * text) and must be current: this test renders it and compares. {@code -Dcobra.writeCliReference=true} writes it.
 * Paths that depend on the machine (the user's home) are written as {@code ~}.
 */
class CliReferenceTest {
    static final Path FILE = Path.of("..", "docs", "cli.md");

    static String render() {
        CommandLine cobra = new CommandLine(new CobraCommand());
        cobra.setUsageHelpWidth(110);
        StringBuilder b = new StringBuilder();
        b.append("# The command line\n\n");
        b.append("Every command's `--help`, as `ops/cobra` prints it (generated from the commands by `CliReferenceTest`;\n");
        b.append("`mvn -pl ops test -Dtest=CliReferenceTest -Dcobra.writeCliReference=true` writes it anew).\n\n");
        b.append("```\n").append(cobra.getUsageMessage()).append("```\n");
        for (var e : cobra.getSubcommands().entrySet()) {
            if (e.getKey().equals("help")) continue;
            CommandLine c = e.getValue();
            c.setUsageHelpWidth(110);
            b.append("\n## cobra ").append(e.getKey()).append("\n\n```\n").append(c.getUsageMessage()).append("```\n");
        }
        // the state directory's default follows the environment (COBRA_STATE_DIR, XDG_STATE_HOME): written as without them
        String state = StateDirectory.of("x").getParent().toString();
        return b.toString().replace(state, "~/.local/state/cobra").replace(System.getProperty("user.home"), "~");
    }

    @Test
    void theReferenceIsCurrent() throws Exception {
        String now = render();
        if (Boolean.getBoolean("cobra.writeCliReference")) Files.writeString(FILE, now, StandardCharsets.UTF_8);
        assertEquals(now, Files.readString(FILE, StandardCharsets.UTF_8),
                "docs/cli.md is not what the commands print: run mvn -pl ops test -Dtest=CliReferenceTest -Dcobra.writeCliReference=true");
    }
}
