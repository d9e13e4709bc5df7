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
        assertFalse(java.util.regex.Pattern.compile("\\bnull\\b").matcher(all).find(), "cobra " + command + " --help prints null:\n" + all);
        if (!command.isEmpty() && !command.equals("help"))
            assertTrue(all.matches("(?s).*Exit( codes:|:| 0| 1).*"), "cobra " + command + " --help gives no exit codes:\n" + all);
    }

    /** Every {@code cobra COMMAND ... --option} a help text recommends names a command that exists and an option it has. */
    @ParameterizedTest(name = "cobra {0} --help")
    @MethodSource("commands")
    void everyCommandAHelpRecommendsExists(String command) {
        VerifyCommandTest.Run r = command.isEmpty() ? VerifyCommandTest.cobra("--help") : VerifyCommandTest.cobra(command, "--help");
        String text = r.out().replaceAll("[ \\t]+", " "); // a recommendation is read within its line
        CommandLine cobra = new CommandLine(new CobraCommand());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cobra ([a-z]+)((?: (?:--[a-z-]+|[A-Z_]+|[0-9]+))*)").matcher(text);
        while (m.find()) {
            String sub = m.group(1);
            CommandLine c = cobra.getSubcommands().get(sub);
            if (c == null) continue; // prose ("cobra is ..."), not a command line
            java.util.regex.Matcher o = java.util.regex.Pattern.compile("--[a-z-]+").matcher(m.group(2));
            while (o.find())
                assertTrue(c.getCommandSpec().findOption(o.group()) != null,
                        "cobra " + command + " --help recommends 'cobra " + sub + " " + o.group() + "', which does not exist");
        }
    }

    /** The line {@code cobra --help} lists for each command (its header, else its description's first line) is a whole sentence. */
    @org.junit.jupiter.api.Test
    void eachCommandIsListedWithAWholeSentence() {
        for (var e : new CommandLine(new CobraCommand()).getSubcommands().entrySet()) {
            var u = e.getValue().getCommandSpec().usageMessage();
            String first = u.header().length > 0 ? u.header()[0] : u.description().length > 0 ? u.description()[0] : "";
            assertTrue(first.trim().endsWith("."), "cobra " + e.getKey() + " is listed as '" + first + "'");
        }
    }
}
