package org.cobraverify.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The topology does not link the checker (docs/DESIGN.md §2): its compiled classes refer to no project package but
 * its own and the schemas'. (The POM keeps round-verifier in test scope, so main code importing it does not
 * compile; this test also catches a compile-scope dependency put back, and a fully qualified name.)
 */
class ModuleBoundaryTest {
    private static final Pattern PROJECT_PACKAGE = Pattern.compile("org/cobraverify/(\\w+)/");

    @Test
    void topologyClassesReferOnlyToTheTopologyAndTheSchemas() throws IOException {
        Path classes = Path.of("target/classes/org/cobraverify");
        assertTrue(Files.isDirectory(classes.resolve("topology")), "run from the module directory, after compiling");
        Set<String> referred = new TreeSet<>();
        try (Stream<Path> s = Files.walk(classes)) {
            s.filter(p -> p.toString().endsWith(".class")).forEach(p -> {
                try {
                    // class names in the constant pool are plain UTF-8 (modified UTF-8 agrees on ASCII)
                    Matcher m = PROJECT_PACKAGE.matcher(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
                    while (m.find()) referred.add(m.group(1) + " (in " + classes.relativize(p) + ")");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        referred.removeIf(r -> r.startsWith("topology ") || r.startsWith("schemas "));
        assertEquals(Set.of(), referred, "the topology's classes refer to packages of other modules");
    }
}
