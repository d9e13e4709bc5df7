package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every command's {@code --help} prints its usage and nothing else: no warning (picocli warns on a bad format string, such as a bare %). */
class HelpTextTest {
    static Stream<String> commands() {
        List<String> names = new ArrayList<>(new CommandLine(new CobraCommand()).getSubcommands().keySet());
        names.add(""); // cobra --help itself
        return names.stream();
    }

    @ParameterizedTest(name = "cobra {0} --help")
    @MethodSource("commands")
    void helpPrintsUsageAndNoWarning(String command) {
        VerifyCommandTest.Run r = command.isEmpty() ? VerifyCommandTest.cobra("--help") : VerifyCommandTest.cobra(command, "--help");
        String all = r.out() + r.err();
        assertEquals(0, r.exit(), all);
        assertTrue(r.out().contains("Usage: cobra"), all);
        assertFalse(all.contains("WARN"), "cobra " + command + " --help warns:\n" + all);
    }
}
