package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class {@code docs/DESIGN.md} names exists, and every member it names ({@code `Class.member`} or
 * {@code `Class#member`}) is declared in that class's source: a proof that points at the code enforcing its assumptions points at
 * code that is there. A name is a backticked identifier with two capitals or more ({@code `RoundCutter`},
 * {@code `GarbageCollection.Rules`}) or an Avro record of the schemas; the names of other projects' classes are listed below.
 */
class DesignNamesTest {
    /** Classes of other projects that DESIGN names. */
    static final Set<String> ELSEWHERE = Set.of("StandardAuthorizer", "TransactionDB", "OptimisticTransactionDB", "TopologyTestDriver",
            "ProducerFencedException", "CommitFailedException", "KafkaStreams", "StreamsBuilder", "MonoSAT");

    private static final Pattern NAME = Pattern.compile("`([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?:[.#]([A-Za-z_][A-Za-z0-9_]*))?[^`]*`");

    /**
     * Whether {@code source} declares {@code member}: a method, a field, a parameter or record component, an enum constant,
     * a nested type, or an Avro field (a name that is merely mentioned, in a call or a comment, is not enough).
     */
    static boolean declares(String source, String member) {
        String m = Pattern.quote(member);
        String type = "(?<![\\w.$])(?!(?:return|new|throw|else|case|yield|assert)\\b)[\\w$.]+(?:<[^()=;{}]*>)?(?:\\[\\])*\\s+";
        for (String p : new String[] {type + m + "\\s*\\(", type + m + "\\s*[=;,)]", "^\\s*" + m + "\\s*[,(;{]",
                "(?:class|record|interface|enum)\\s+" + m + "\\b", "\"name\"\\s*:\\s*\"" + m + "\""})
            if (Pattern.compile(p, Pattern.MULTILINE).matcher(source).find()) return true;
        return false;
    }

    @Test
    void declaresIsNotFooledByAMention() {
        String source = "final class X {\n    private int kept;\n    void run() { helper(); } // helper does it\n    static long helper() { return 0; }\n}";
        assertTrue(declares(source, "kept") && declares(source, "helper") && declares(source, "run") && declares(source, "X"));
        assertTrue(!declares("final class Y { void run() { other(); } }", "other"), "a call is not a declaration");
        assertTrue(!declares("final class Z { int f() { return other(); } }", "other"), "nor a returned call");
        assertTrue(declares("final class W { Map<String, List<Long>> nested() { return null; } }", "nested"), "a generic return type");
    }

    @Test
    void everyClassAndMemberDesignNamesExists() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Path design = root.resolve("docs/DESIGN.md");
        assertTrue(Files.exists(design), "no " + design);
        // every source file by class name, and every nested type with the file that declares it
        Map<String, List<Path>> files = new HashMap<>();
        Map<String, List<Path>> nested = new HashMap<>();
        Pattern decl = Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z]\\w*)");
        Pattern avroRecord = Pattern.compile("\"name\"\\s*:\\s*\"([A-Z]\\w*)\"");
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".avsc") && p.toString().contains("/src/")
                    && !p.toString().contains("/target/"))::iterator) {
                Matcher m = avroRecord.matcher(Files.readString(f)); // the records generated from the schemas
                while (m.find()) nested.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(f);
            }
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/")
                    && !p.toString().contains("/target/"))::iterator) {
                String name = f.getFileName().toString().replace(".java", "");
                files.computeIfAbsent(name, k -> new ArrayList<>()).add(f);
                Matcher m = decl.matcher(Files.readString(f));
                while (m.find()) nested.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(f);
            }
        }
        TreeSet<String> missing = new TreeSet<>();
        int names = 0;
        Matcher m = NAME.matcher(Files.readString(design));
        while (m.find()) {
            String cls = m.group(1), member = m.group(2);
            if (ELSEWHERE.contains(cls)) continue;
            names++;
            List<Path> where = files.containsKey(cls) ? files.get(cls) : nested.get(cls);
            if (where == null) { missing.add(cls + " (no such class)"); continue; }
            if (member == null) continue;
            boolean found = false;
            for (Path f : where) if (declares(Files.readString(f), member)) found = true;
            if (!found) missing.add(cls + "." + member + " (no such member in " + root.relativize(where.get(0)) + ")");
        }
        assertTrue(names > 100, "only " + names + " names found in DESIGN.md: the pattern is wrong");
        assertEquals(new TreeSet<String>(), missing, "names in docs/DESIGN.md that the code does not have");
    }
}
