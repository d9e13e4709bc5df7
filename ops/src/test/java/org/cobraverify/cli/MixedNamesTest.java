package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code 1} and {@code "1"} are different names (docs/history-format.md), one-shot and in rounds alike: a read of the string
 * {@code "1"} where only the integer {@code 1} was written reads a value nobody wrote, and sessions {@code 1} and
 * {@code "1"} are two sessions, at every level. Rounds carry names as text on the wire (WireNames), which keeps them apart.
 */
class MixedNamesTest {
    @TempDir
    Path dir;

    private Path file(String name, String... lines) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, String.join("\n", lines) + "\n");
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rc", "ssrc", "ra", "cc", "si", "ser"})
    void anIntegerAndAStringThatLookAlikeAreTwoValues(String level) throws Exception {
        Path h = file("values.jsonl",
                "{\"id\":\"w\",\"session\":\"a\",\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}",
                "{\"id\":\"r\",\"session\":\"b\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",\"1\"]]}");
        for (String[] how : new String[][] {{}, {"--rounds", "2"}}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra(concat(new String[] {"verify", "--isolation", level}, how, h.toString()));
            assertEquals(1, r.exit(), String.join(" ", how) + ": " + r.out() + r.err());
            assertTrue(r.out().contains("read of a never-written value") && r.out().contains("r(x)=\"1\""), r.out());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rc", "ssrc", "ra", "cc", "si", "ser"})
    void sessionsOneAndQuotedOneAreTwoSessions(String level) throws Exception {
        // in one session the read of the initial state after the write would break read-your-writes; in two it is legal
        Path h = file("sessions.jsonl",
                "{\"id\":\"a\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",\"v1\"]]}",
                "{\"id\":\"b\",\"session\":\"1\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null]]}");
        for (String[] how : new String[][] {{}, {"--rounds", "2"}}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra(concat(new String[] {"verify", "--isolation", level}, how, h.toString()));
            assertEquals(0, r.exit(), String.join(" ", how) + ": " + r.out() + r.err());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ser", "si"})
    void keysOneAndQuotedOneAreTwoKeys(String level) throws Exception {
        // a lost update if key 1 and key "1" were one key; two independent read-modify-writes as they are
        Path h = file("keys.jsonl",
                "{\"id\":\"w\",\"session\":\"a\",\"status\":\"committed\",\"ops\":[[\"w\",1,\"v0\"],[\"w\",\"1\",\"v0\"]]}",
                "{\"id\":\"p\",\"session\":\"b\",\"status\":\"committed\",\"ops\":[[\"r\",1,\"v0\"],[\"w\",1,\"p1\"]]}",
                "{\"id\":\"q\",\"session\":\"c\",\"status\":\"committed\",\"ops\":[[\"r\",\"1\",\"v0\"],[\"w\",\"1\",\"q1\"]]}");
        for (String[] how : new String[][] {{}, {"--rounds", "1"}}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra(concat(new String[] {"verify", "--isolation", level}, how, h.toString()));
            assertEquals(0, r.exit(), String.join(" ", how) + ": " + r.out() + r.err());
        }
    }

    private static String[] concat(String[] a, String[] b, String last) {
        String[] r = new String[a.length + b.length + 1];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        r[r.length - 1] = last;
        return r;
    }
}
