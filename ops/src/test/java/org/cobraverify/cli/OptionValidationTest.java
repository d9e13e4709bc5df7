package org.cobraverify.cli;

import static org.cobraverify.cli.VerifyCommandTest.cobra;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Meaningless values are refused before anything runs, naming the option (exit 2), on every path into {@code verify} (the
 * fast one and picocli's) and in other commands; an empty history is accepted with a warning; {@code --html} always
 * writes its page and says where.
 */
class OptionValidationTest {
    @TempDir
    Path dir;

    private static final String EXAMPLE = Path.of("..", "examples", "on-call.jsonl").toString();

    @ParameterizedTest(name = "cobra {0} {1} {2}")
    @CsvSource({
            "verify, --timeout, 0, must be greater than 0",
            "verify, --timeout, -1, must not be negative",
            "verify, --timeout, NaN, must be a finite number",
            "verify, --timeout, Infinity, must be a finite number",
            "verify, --rounds, 0, must be greater than 0",
            "verify, --max-heap, 0, must be greater than 0",
            "verify, --drift, -5, must not be negative",
            "record, --fault-rate, 1.5, is a probability",
            "record, --clients, 0, must be greater than 0",
            "survey, --txns, -3, must not be negative",
            "bench, --sizes, 0, must be greater than 0"})
    void aMeaninglessNumberIsRefusedNamingTheOption(String command, String option, String value, String said) {
        VerifyCommandTest.Run r = command.equals("verify") ? cobra(command, option, value, EXAMPLE)
                : command.equals("survey") ? cobra(command, "--db", "h2", option, value, "--out", dir.toString())
                : command.equals("bench") ? cobra(command, option, value)
                : cobra(command, option, value, "--out", dir.resolve("h.jsonl").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("cobra " + command + ": " + option + " " + said), r.err());
        assertTrue(r.out().isEmpty(), "nothing ran: " + r.out());
    }

    @Test
    void theSameOptionWrittenWithAnEqualsSignIsRefusedToo() {
        // --timeout=0 takes verify's fast path; the refusal must not depend on the spelling
        VerifyCommandTest.Run r = cobra("verify", "--timeout=0", EXAMPLE);
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--timeout must be greater than 0"), r.err());
    }

    @Test
    void zeroIsAcceptedWhereItMeansSomething() {
        VerifyCommandTest.Run ok = cobra("verify", "--certificate-budget", "0", EXAMPLE);
        assertEquals(1, ok.exit(), ok.err()); // the on-call history is write skew: rejected, so the option ran
    }

    @Test
    void longRunningCommandsKeepTheirStateInAUsersDirectoryNotInTmp() {
        String tmp = Path.of(System.getProperty("java.io.tmpdir")).toString();
        for (String[] c : new String[][] {{"verifier", "verifier"}, {"topology", "streams"}}) {
            String help = cobra(c[0], "--help").out().replaceAll("\\s+", "");
            assertTrue(help.contains(StateDirectory.of(c[1]).toString()), help);
            assertTrue(!help.contains("(default:" + tmp), "cobra " + c[0] + " keeps state under " + tmp + ": " + help);
        }
    }

    @Test
    void anEmptyHistoryIsAcceptedWithAWarning() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.jsonl"), "");
        VerifyCommandTest.Run r = cobra("verify", empty.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("warning: " + empty + " holds no transactions"), r.err());
    }

    @Test
    void htmlWritesAPageOnAcceptToo() throws Exception {
        Path page = dir.resolve("page.html");
        VerifyCommandTest.Run r = cobra("verify", "--isolation", "read-committed", "--html", page.toString(), EXAMPLE);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("the page is " + page.toAbsolutePath()), r.err());
        String html = Files.readString(page);
        assertTrue(html.contains("<h1 class=\"ok\">Read committed</h1>") && html.contains("4 transactions checked at read-committed"), html);
    }
}
