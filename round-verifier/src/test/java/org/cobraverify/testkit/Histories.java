package org.cobraverify.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.function.Consumer;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.io.CobraJsonlReader;
import org.cobraverify.io.MalformedHistoryException;

/** Test helpers: histories from inline cobra-jsonl text, a history with a planted transaction, and the location of {@code ../shared}. */
public final class Histories {
    private Histories() {}

    public static History jsonl(Path dir, String... lines) throws IOException, MalformedHistoryException {
        Path f = Files.createTempFile(dir, "h", ".jsonl");
        Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return CobraJsonlReader.read(f);
    }

    /**
     * {@code h} (a register history) with one more committed transaction, {@code id}, at the end of the session of
     * {@code h}'s last transaction, its operations written by {@code ops} (key and value ids of the new history's builder).
     */
    public static History withAppended(History h, String id, Consumer<HistoryBuilder> ops) {
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            b.beginCopyAsText(h, t);
            b.end();
        }
        b.begin(id, b.session(String.valueOf(h.sessionName(h.session(h.size() - 1)))), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        ops.accept(b);
        b.end();
        return b.build();
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
