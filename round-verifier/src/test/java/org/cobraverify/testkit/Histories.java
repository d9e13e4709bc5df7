package org.cobraverify.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.cobraverify.history.History;
import org.cobraverify.io.CobraJsonlReader;
import org.cobraverify.io.MalformedHistoryException;

/** Test helpers: histories from inline cobra-jsonl text, and the location of {@code ../shared}. */
public final class Histories {
    private Histories() {}

    public static History jsonl(Path dir, String... lines) throws IOException, MalformedHistoryException {
        Path f = Files.createTempFile(dir, "h", ".jsonl");
        Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return CobraJsonlReader.read(f);
    }

    /** The shared folder beside the checkout (development and CI), or null when it is absent. */
    public static Path shared() {
        String p = System.getProperty("cobra.shared.dir");
        Path dir = p != null ? Paths.get(p) : Paths.get("..", "..", "shared");
        if (Files.isDirectory(dir.resolve("data"))) return dir.toAbsolutePath().normalize();
        Path alt = Paths.get("..", "shared");
        if (Files.isDirectory(alt.resolve("data"))) return alt.toAbsolutePath().normalize();
        return null;
    }
}
