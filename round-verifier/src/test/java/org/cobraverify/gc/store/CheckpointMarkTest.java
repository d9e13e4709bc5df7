package org.cobraverify.gc.store;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.cobraverify.gc.CollectedWrites;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint mark, imported frontier logs and the changed-key set of {@link RocksDbCollectedWrites}. */
class CheckpointMarkTest {
    @TempDir
    Path dir;

    @Test
    void theMarkSurvivesAReopenAndImportedLogsCountAsFrontiers() {
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("s"), false)) {
            assertTrue(s.isEmpty());
            assertEquals(-1, s.checkpointMark());
            assertFalse(s.hasFrontiers());
            s.importFrontierLog("x", List.of(new CollectedWrites.FrontierEntry("1", "T1", 3, 0)));
            assertTrue(s.hasFrontiers(), "an imported log is a frontier log");
            assertFalse(s.isEmpty());
            s.markCheckpoint(42);
            s.sync();
        }
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("s"), false)) {
            assertEquals(42, s.checkpointMark(), "durable");
            assertTrue(s.hasFrontiers());
            assertEquals("1", s.frontierLog("x").get(0).value());
        }
    }

    @Test
    void changedKeysAreTrackedOnlyWhenAskedAndTakenOnce() {
        try (RocksDbCollectedWrites s = new RocksDbCollectedWrites(dir.resolve("t"), false)) {
            s.appendFrontier("a", new CollectedWrites.FrontierEntry("1", "T1", 1, 0), e -> true, 1);
            assertEquals(Set.of(), s.takeChangedFrontiers(), "not tracked: nothing grows");
            s.trackFrontierChanges();
            s.appendFrontier("b", new CollectedWrites.FrontierEntry("2", "T2", 2, 0), e -> true, 2);
            s.appendFrontier("a", new CollectedWrites.FrontierEntry("3", "T3", 2, 0), e -> true, 2);
            assertEquals(Set.of("a", "b"), s.takeChangedFrontiers());
            assertEquals(Set.of(), s.takeChangedFrontiers(), "taken once");
        }
    }
}
