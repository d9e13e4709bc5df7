package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code cobra verify}'s two argument parsers agree: on the same command line, {@link VerifyCommand#fastParse}
 * sets every option and parameter field as picocli does, or declines (and picocli takes over). The command lines
 * are 300 seeded cases ({@link Seeds}: a failure names its seed, {@code -Dcobra.seed=N} reruns it).
 */
class FastArgsTest {
    /** Every option of VerifyCommand, as picocli sees it, with a generator of valid values (null: a flag). */
    static final List<String[]> OPTIONS = List.of(
            new String[] {"--json", null}, new String[] {"--strict", null}, new String[] {"--cobra-timestamps", null}, new String[] {"--all", null},
            new String[] {"--format", "word"}, new String[] {"--witness", "path"}, new String[] {"--dot", "path"}, new String[] {"--html", "path"},
            new String[] {"--timeout", "double"}, new String[] {"--max-heap", "long"}, new String[] {"--drift", "double"},
            new String[] {"--solver", "word"}, new String[] {"--rounds", "int"}, new String[] {"--fence-key", "word"},
            new String[] {"--certificate-budget", "double"}, new String[] {"--gpu", "word"}, new String[] {"--isolation", "word"});

    @Test
    void theFastParserKnowsEveryOptionPicocliKnows() {
        Set<String> picocli = new TreeSet<>();
        for (Field f : VerifyCommand.class.getDeclaredFields()) {
            CommandLine.Option o = f.getAnnotation(CommandLine.Option.class);
            if (o != null) picocli.addAll(Arrays.asList(o.names()));
        }
        picocli.removeAll(Set.of("-h", "--help", "-V", "--version"));
        Set<String> fast = new TreeSet<>();
        for (String[] o : OPTIONS) fast.add(o[0]);
        assertEquals(picocli, fast, "an option added to verify must be added to fastParse (and to this table)");
    }

    @Test
    void helpVersionAndMistakesGoToPicocli() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"-V"}, new String[] {"--json"}, new String[] {"--timeout", "x", "f"},
                new String[] {"--nope", "f"}, new String[] {"--json", "--json", "f"}, new String[] {"--", "f"}, new String[] {"f", "--timeout"}))
            assertNull(VerifyCommand.fastParse(args), String.join(" ", args));
    }

    /**
     * The command line of {@code seed}: up to six distinct options (each as {@code --opt v} or {@code --opt=v}, with
     * a valid value of its type), then one to three paths.
     */
    static List<String> commandLine(long seed) {
        Random rnd = new Random(seed);
        List<String> args = new ArrayList<>();
        Set<String> used = new HashSet<>();
        for (int k = rnd.nextInt(7); k > 0; k--) {
            String[] o = OPTIONS.get(rnd.nextInt(OPTIONS.size()));
            int n = rnd.nextInt(100_001);
            boolean equals = rnd.nextBoolean();
            if (!used.add(o[0])) continue; // each option at most once
            if (o[1] == null) { args.add(o[0]); continue; }
            String v = switch (o[1]) {
                case "double" -> n % 3 == 0 ? Integer.toString(n) : n / 100.0 + "";
                case "long", "int" -> Integer.toString(n);
                case "path" -> "dir" + n + "/file.txt";
                default -> "w" + n;
            };
            if (equals) args.add(o[0] + "=" + v);
            else { args.add(o[0]); args.add(v); }
        }
        for (int p = 0, paths = 1 + rnd.nextInt(3); p < paths; p++) args.add(p % 2 == 0 ? "h" + p + ".jsonl" : "../logs/run" + p);
        return args;
    }

    static LongStream seeds() { return Seeds.of(300); }

    @ParameterizedTest(name = Seeds.NAME)
    @MethodSource("seeds")
    void bothParsersSetTheSameFields(long seed) throws Exception {
        List<String> args = commandLine(seed);
        String[] a = args.toArray(new String[0]);
        VerifyCommand fast = VerifyCommand.fastParse(a);
        assertNotNull(fast, Seeds.rerun(seed) + ": a plain command line: " + args);
        VerifyCommand slow = new VerifyCommand();
        new CommandLine(slow).parseArgs(a);
        for (Field f : VerifyCommand.class.getDeclaredFields()) {
            if (f.getAnnotation(CommandLine.Option.class) == null && f.getAnnotation(CommandLine.Parameters.class) == null) continue;
            f.setAccessible(true);
            assertEquals(f.get(slow), f.get(fast), Seeds.rerun(seed) + ": " + f.getName() + " for " + args);
        }
        assertTrue(fast.paths.size() >= 1);
    }
}
