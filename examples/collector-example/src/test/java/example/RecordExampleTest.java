package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example records one line per transaction, committed or aborted, with its session, status and operations. */
class RecordExampleTest {
    @TempDir
    Path dir;

    @Test
    void everyTransactionIsRecorded() throws Exception {
        Path history = dir.resolve("history.jsonl");
        int began = RecordExample.run(dir.resolve("db"), history, 4, 400);
        List<String> lines = Files.readAllLines(history);
        long increments = lines.stream().filter(l -> l.contains("\"counter-")).count();
        assertTrue(began > 0 && began <= 400, "increments begun: " + began);
        assertEquals(began, increments, "each increment begun, committed or aborted, is one line");
        assertEquals("{\"format\":\"cobra-jsonl\",\"version\":1}", lines.get(0), "the header line");
        assertTrue(lines.stream().skip(1).allMatch(l -> l.contains("\"session\"") && l.contains("\"status\"") && l.contains("\"ops\"")), lines.get(1));
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"EPOCH\"")), "the collector's fences are recorded too");
    }
}
