package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code --log-level} anywhere on the line, or {@code COBRA_LOG_LEVEL}, sets the level of cobra's own loggers and is taken off the line. */
class LogLevelTest {
    private final String before = System.getProperty(LogLevel.PROPERTY);

    @AfterEach
    void restore() {
        if (before == null) System.clearProperty(LogLevel.PROPERTY);
        else System.setProperty(LogLevel.PROPERTY, before);
    }

    @Test
    void theFlagWinsOverTheEnvironmentAndLeavesTheRestOfTheLine() {
        String[] rest = LogLevel.apply(new String[] {"verifier", "--log-level", "DEBUG", "--bootstrap", "h:9092"}, "warn");
        assertArrayEquals(new String[] {"verifier", "--bootstrap", "h:9092"}, rest);
        assertEquals("debug", System.getProperty(LogLevel.PROPERTY));
        LogLevel.apply(new String[] {"verdicts", "--log-level=error"}, null);
        assertEquals("error", System.getProperty(LogLevel.PROPERTY));
    }

    @Test
    void theEnvironmentAloneSetsItAndNothingLeavesTheLineUntouched() {
        String[] line = {"verify", "h.jsonl"};
        assertArrayEquals(line, LogLevel.apply(line, "trace"));
        assertEquals("trace", System.getProperty(LogLevel.PROPERTY));
        System.clearProperty(LogLevel.PROPERTY);
        assertArrayEquals(line, LogLevel.apply(line, null));
        assertNull(System.getProperty(LogLevel.PROPERTY));
    }

    @Test
    void aLevelThatIsNotOneIsRefused() {
        assertNull(LogLevel.apply(new String[] {"verify", "--log-level", "loud"}, null));
        assertNull(LogLevel.apply(new String[] {"verify"}, "chatty"));
    }
}
