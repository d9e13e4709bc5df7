package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command told to write a file (a history, a page, a graph, a witness) replaces one cobra wrote and refuses, with one
 * line and exit 2, to overwrite anything else: a user's file, or the very history it reads.
 */
class OutputFilesTest {
    @TempDir
    Path dir;

    private Path history() throws Exception {
        Path h = dir.resolve("skew.jsonl");
        Files.writeString(h, String.join("\n", VerifyCommandTest.WRITE_SKEW) + "\n");
        return h;
    }

    @Test
    void theInputHistoryIsNotOverwrittenByAPage() throws Exception {
        Path h = history();
        String before = Files.readString(h);
        for (String flag : new String[] {"--html", "--dot"}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra("verify", flag, h.toString(), h.toString());
            assertEquals(2, r.exit(), flag + ": " + r.out() + r.err());
            assertTrue(r.err().contains(h + " exists and is not") && r.err().strip().lines().count() == 1, r.err());
            assertEquals(before, Files.readString(h), flag + " destroyed the history");
        }
    }

    @Test
    void itsOwnPageGraphAndHistoryAreReplaced() throws Exception {
        Path h = history(), page = dir.resolve("p.html"), dot = dir.resolve("c.dot");
        assertEquals(1, VerifyCommandTest.cobra("verify", "--html", page.toString(), "--dot", dot.toString(), h.toString()).exit());
        assertTrue(Files.readString(page).contains(OutputFiles.PAGE_MARK));
        assertEquals(1, VerifyCommandTest.cobra("verify", "--html", page.toString(), "--dot", dot.toString(), h.toString()).exit(), "a second run replaces them");
        Path rec = dir.resolve("r.jsonl");
        String[] record = {"record", "--scale", "0.01", "--txns", "50", "--clients", "2", "--out", rec.toString()};
        assertEquals(0, VerifyCommandTest.cobra(record).exit());
        assertEquals(0, VerifyCommandTest.cobra(record).exit(), "a history cobra recorded is replaced");
    }

    @Test
    void aUsersFileIsRefusedEverywhere() throws Exception {
        Path notes = dir.resolve("notes.txt");
        Files.writeString(notes, "my notes, not cobra's\n");
        Path h = history();
        VerifyCommandTest.Run r = VerifyCommandTest.cobra("record", "--scale", "0.01", "--txns", "20", "--out", notes.toString());
        assertEquals(2, r.exit(), r.err());
        assertNotEquals(-1, r.err().indexOf("cobra record: " + notes));
        r = VerifyCommandTest.cobra("verify", "--witness", notes.toString(), dir.resolve("ok.jsonl").toString());
        assertEquals(2, r.exit());
        r = VerifyCommandTest.cobra("plant", h.toString(), "--anomaly", "lost-update@0.5", "--out", notes.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("my notes, not cobra's\n", Files.readString(notes));
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
