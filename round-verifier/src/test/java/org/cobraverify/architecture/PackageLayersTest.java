package org.cobraverify.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The verifier's packages stack in one order, and no import runs back up it (docs/DESIGN.md §1.1): the history model at
 * the bottom, then the solver, the one-shot checker, what reads, writes and generates histories, garbage collection and
 * its store, rounds, the service, and the entrance ({@code org.cobraverify.verifier}) on top. A package is on the floor
 * of the longest prefix listed; imports within a floor are free. Javadoc links are not imports and are not counted.
 */
class PackageLayersTest {
    /** Floors, bottom first; packages on one line share a floor. */
    static final List<List<String>> FLOORS = List.of(
            List.of("history"),
            List.of("solver"),
            List.of("checker"),
            List.of("synth", "io", "report"),
            List.of("gc"),
            List.of("gc.store"),
            List.of("rounds"),
            List.of("service"),
            List.of("verifier"));

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?org\\.cobraverify\\.([a-z][a-z.]*?)\\.[A-Z]", Pattern.MULTILINE);

    static int floor(String pkg) {
        int best = -1, bestLen = -1;
        for (int f = 0; f < FLOORS.size(); f++)
            for (String p : FLOORS.get(f))
                if ((pkg.equals(p) || pkg.startsWith(p + ".")) && p.length() > bestLen) { best = f; bestLen = p.length(); }
        return best;
    }

    @Test
    void noImportRunsBackUp() throws IOException {
        Path root = Path.of("src/main/java/org/cobraverify");
        List<String> upward = new ArrayList<>(), unplaced = new ArrayList<>();
        int files = 0, imports = 0;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java"))::iterator) {
                files++;
                String pkg = root.relativize(f.getParent()).toString().replace('/', '.');
                int own = floor(pkg);
                if (own < 0) { unplaced.add(pkg); continue; }
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String to = m.group(1);
                    if (to.startsWith("schemas")) continue; // the schemas module, below every package here
                    imports++;
                    int theirs = floor(to);
                    if (theirs < 0) unplaced.add(to + " (imported by " + f + ")");
                    else if (theirs > own) upward.add(f + " imports org.cobraverify." + to);
                }
            }
        }
        assertTrue(files > 100 && imports > 100, files + " files, " + imports + " imports: the walk did not find the sources");
        assertEquals(List.of(), unplaced, "packages on no floor: give each a floor in FLOORS");
        assertEquals(List.of(), upward, "imports that run back up");
    }
}
