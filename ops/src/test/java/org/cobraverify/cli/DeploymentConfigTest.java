package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docker-compose.yml runs the services with command lines this build must accept: every {@code command:}
 * there is parsed by the real command-line parser (without running it). The compose file's YAML itself
 * is checked by {@code docker compose config} in .ci/run where the compose plugin exists.
 */
class DeploymentConfigTest {
    @Test
    void everyServiceCommandLineInTheComposeFileParses() throws Exception {
        Path compose = Path.of("..", "docker-compose.yml");
        assertTrue(Files.exists(compose), "docker-compose.yml at the repository root");
        List<List<String>> commands = new ArrayList<>();
        for (String line : Files.readAllLines(compose)) {
            String t = line.trim();
            if (!t.startsWith("command: [")) continue;
            List<String> args = new ArrayList<>();
            try (JsonParser p = new JsonFactory().createParser(t.substring("command: ".length()))) {
                assertEquals(JsonToken.START_ARRAY, p.nextToken());
                while (p.nextToken() == JsonToken.VALUE_STRING) args.add(p.getText());
            }
            commands.add(args);
        }
        assertEquals(3, commands.size(), "topology, verifier and verdicts");
        List<String> names = new ArrayList<>();
        for (List<String> c : commands) {
            assertEquals(List.of("java", "-jar", "/opt/cobra/cobra.jar"), c.subList(0, 3));
            List<String> args = c.subList(3, c.size());
            CommandLine.ParseResult r = new CommandLine(new CobraCommand()).parseArgs(args.toArray(String[]::new));
            assertTrue(r.hasSubcommand(), "a subcommand: " + args);
            names.add(r.subcommand().commandSpec().name());
        }
        assertEquals(List.of("topology", "verifier", "verdicts"), names);
    }
}
