package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import picocli.CommandLine;

/**
 * {@code cobra verify}'s two argument parsers agree: on the same command line, {@link VerifyCommand#fastParse}
 * sets every option and parameter field as picocli does, or declines (and picocli takes over).
 */
class FastArgsTest {
    /** Every option of VerifyCommand, as picocli sees it, with a generator of valid values (null: a flag). */
    static final List<String[]> OPTIONS = List.of(
            new String[] {"--json", null}, new String[] {"--strict", null}, new String[] {"--cobra-timestamps", null},
            new String[] {"--format", "word"}, new String[] {"--witness", "path"}, new String[] {"--dot", "path"},
            new String[] {"--timeout", "double"}, new String[] {"--max-heap", "long"}, new String[] {"--drift", "double"},
            new String[] {"--solver", "word"}, new String[] {"--rounds", "int"}, new String[] {"--fence-key", "word"},
            new String[] {"--certificate-budget", "double"}, new String[] {"--gpu", "word"});

    @Example
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

    @Example
    void helpVersionAndMistakesGoToPicocli() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"-V"}, new String[] {"--json"}, new String[] {"--timeout", "x", "f"},
                new String[] {"--nope", "f"}, new String[] {"--json", "--json", "f"}, new String[] {"--", "f"}, new String[] {"f", "--timeout"}))
            assertNull(VerifyCommand.fastParse(args), String.join(" ", args));
    }

    @Provide
    Arbitrary<List<String>> commandLines() {
        Arbitrary<Integer> picks = Arbitraries.integers().between(0, OPTIONS.size() - 1);
        Arbitrary<List<String>> one = Combinators.combine(picks, Arbitraries.integers().between(0, 100_000), Arbitraries.of(true, false))
                .as((i, n, equals) -> {
                    String[] o = OPTIONS.get(i);
                    if (o[1] == null) return List.of(o[0]);
                    String v = switch (o[1]) {
                        case "double" -> n % 3 == 0 ? Integer.toString(n) : n / 100.0 + "";
                        case "long", "int" -> Integer.toString(n);
                        case "path" -> "dir" + n + "/file.txt";
                        default -> "w" + n;
                    };
                    return equals ? List.of(o[0] + "=" + v) : List.of(o[0], v);
                });
        return one.list().ofMaxSize(6).uniqueElements(l -> l.get(0).split("=")[0])
                .flatMap(opts -> Arbitraries.integers().between(1, 3).map(paths -> {
                    List<String> args = new ArrayList<>();
                    for (List<String> o : opts) args.addAll(o);
                    for (int p = 0; p < paths; p++) args.add(p % 2 == 0 ? "h" + p + ".jsonl" : "../logs/run" + p);
                    return args;
                }));
    }

    @Property(tries = 300)
    void bothParsersSetTheSameFields(@ForAll("commandLines") List<String> args) throws Exception {
        String[] a = args.toArray(new String[0]);
        VerifyCommand fast = VerifyCommand.fastParse(a);
        assertNotNull(fast, "a plain command line: " + args);
        VerifyCommand slow = new VerifyCommand();
        new CommandLine(slow).parseArgs(a);
        for (Field f : VerifyCommand.class.getDeclaredFields()) {
            if (f.getAnnotation(CommandLine.Option.class) == null && f.getAnnotation(CommandLine.Parameters.class) == null) continue;
            f.setAccessible(true);
            assertEquals(f.get(slow), f.get(fast), f.getName() + " for " + args);
        }
        assertTrue(fast.paths.size() >= 1);
    }
}
