package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The checker core is pure: only the service package may import Kafka (docs/DESIGN.md §2). */
class CoreIsolationTest {
    @Test
    void noCorePackageImportsKafka() throws IOException {
        Path root = Path.of("src/main/java/org/cobraverify");
        assertTrue(Files.isDirectory(root), "run from the module directory");
        List<Path> offenders;
        try (Stream<Path> s = Files.walk(root)) {
            offenders = s.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !root.relativize(p).startsWith("service"))
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("org.apache.kafka");
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    }).toList();
        }
        assertEquals(List.of(), offenders);
        try (Stream<Path> s = Files.walk(root.resolve("service"))) {
            assertTrue(s.anyMatch(p -> p.toString().endsWith(".java")), "the service exists and is the only Kafka shell");
        }
    }
}
