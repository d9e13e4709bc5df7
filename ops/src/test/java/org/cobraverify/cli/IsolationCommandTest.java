package org.cobraverify.cli;

import static org.cobraverify.cli.VerifyCommandTest.cobra;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cobraverify.checker.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cobra verify --isolation}: one level, every level, the page, and the combinations it refuses. */
class IsolationCommandTest {
    @TempDir
    Path dir;

    /** Two increments of one counter from the same version: causal, not snapshot isolated. */
    static final String[] LOST_UPDATE = {
            "{\"id\":\"inc1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"c\",null],[\"w\",\"c\",1]]}",
            "{\"id\":\"inc2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"c\",null],[\"w\",\"c\",2]]}"};

    private Path file(String name, String... lines) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    @Test
    void aLevelTheHistoryKeepsExitsZeroAndOneItBreaksExitsOne() throws Exception {
        Path h = file("skew.jsonl", VerifyCommandTest.WRITE_SKEW);
        VerifyCommandTest.Run si = cobra("verify", "--isolation", "si", h.toString());
        assertEquals(0, si.exit(), si.out() + si.err());
        assertTrue(si.out().contains("ACCEPT: snapshot isolation"), si.out());
        VerifyCommandTest.Run ser = cobra("verify", "--isolation", "serializable", h.toString());
        assertEquals(1, ser.exit(), ser.out());
        assertTrue(ser.out().contains("write skew"), ser.out());
    }

    @Test
    void aRejectNamesTheWeakestLevelBroken() throws Exception {
        Path h = file("lost.jsonl", LOST_UPDATE);
        VerifyCommandTest.Run r = cobra("verify", "--isolation", "strict-ser", "--json", h.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("strict-serializable", j.get("isolation").asText());
        VerifyCommandTest.Run si = cobra("verify", "--isolation", "snapshot-isolation", "--json", h.toString());
        JsonNode k = new ObjectMapper().readTree(si.out());
        assertEquals("reject", k.get("verdict").asText());
        assertEquals("snapshot-isolation", k.get("weakestViolated").asText());
        assertEquals("LOST_UPDATE", k.get("certificate").get("kind").asText());
    }

    @Test
    void allReportsTheStrongestLevelAndEachVerdict() throws Exception {
        Path h = file("lost.jsonl", LOST_UPDATE);
        VerifyCommandTest.Run r = cobra("verify", "--isolation", "all", "--json", h.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("causal", j.get("strongest").asText());
        assertEquals("snapshot-isolation", j.get("weakestViolated").asText());
        assertEquals("accept", j.get("levels").get("read-committed").get("verdict").asText());
        assertEquals("reject", j.get("levels").get("serializable").get("verdict").asText());
        assertEquals(IsolationLevel.values().length, j.get("levels").size());
        assertEquals("accept", j.get("levels").get("strong-session-read-committed").get("verdict").asText());
        VerifyCommandTest.Run text = cobra("verify", "--isolation", "all", h.toString());
        assertTrue(text.out().contains("strongest level satisfied: causal"), text.out());
        VerifyCommandTest.Run ok = cobra("verify", "--isolation", "all", file("ok.jsonl", VerifyCommandTest.SERIALIZABLE).toString());
        assertEquals(0, ok.exit(), ok.out());
        assertTrue(ok.out().contains("strongest level satisfied: strict-serializable"), ok.out());
    }

    @Test
    void thePageNamesTheLevelItBreaks() throws Exception {
        Path h = file("lost.jsonl", LOST_UPDATE);
        Path page = dir.resolve("lost.html");
        VerifyCommandTest.Run r = cobra("verify", "--isolation", "all", "--html", page.toString(), h.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        String html = Files.readString(page);
        assertTrue(html.contains("<h1>Not snapshot isolation: lost update</h1>"), html);
        assertTrue(html.contains("snapshot-isolation is the weakest level this history breaks"), html);
    }

    @Test
    void combinationsItCannotHonourAreRefusedWithReasons() throws Exception {
        Path h = file("skew.jsonl", VerifyCommandTest.WRITE_SKEW);
        VerifyCommandTest.Run bad = cobra("verify", "--isolation", "sometimes", h.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("read-committed (rc)"), bad.err());
        VerifyCommandTest.Run rounds = cobra("verify", "--isolation", "all", "--rounds", "100", h.toString());
        assertEquals(2, rounds.exit());
        assertTrue(rounds.err().contains("--rounds checks one level"), rounds.err());
        // one level in rounds, below serializability (docs/DESIGN.md §7.11): a write skew is snapshot isolated, not serializable
        VerifyCommandTest.Run si = cobra("verify", "--isolation", "si", "--rounds", "100", h.toString());
        assertEquals(0, si.exit(), si.out() + si.err());
        assertTrue(si.out().contains("ACCEPT: snapshot isolation"), si.out());
        VerifyCommandTest.Run ser = cobra("verify", "--isolation", "ser", "--rounds", "100", h.toString());
        assertEquals(1, ser.exit(), ser.out() + ser.err());
        VerifyCommandTest.Run strict = cobra("verify", "--isolation", "rc", "--strict", h.toString());
        assertEquals(2, strict.exit());
        assertTrue(strict.err().contains("--strict means --isolation strict-serializable"), strict.err());
        VerifyCommandTest.Run same = cobra("verify", "--isolation", "strict-serializable", "--strict", h.toString());
        assertEquals(1, same.exit(), same.err());
    }
}
