package org.cobraverify.gc.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The reason garbage collection gives for a frontier writer that stays ({@code roundRetainedWhy}), by what
 * {@link FrontierAsData} found: the table {@link GarbageCollection} reads it from says what the chain of tests it
 * replaced said.
 */
class KeptReasonTest {
    @Test
    void aStayingFrontierWriterIsKeptForWhatFrontierAsDataFound() {
        assertEquals(GarbageCollection.Kept.FRONTIER_SHARED, kept(FrontierAsData.SHARED));
        assertEquals(GarbageCollection.Kept.FRONTIER_OLD_WRITER_STAYS, kept(FrontierAsData.OLD_WRITER_STAYS));
        assertEquals(GarbageCollection.Kept.FRONTIER_NOT_FOLLOWED, kept(FrontierAsData.NOT_FOLLOWED));
        // one it would have collected as data but that stays all the same (kept by the rules), and any other
        assertEquals(GarbageCollection.Kept.FRONTIER_WRITER, kept(FrontierAsData.COLLECTED));
        assertEquals(GarbageCollection.Kept.FRONTIER_WRITER, kept(FrontierAsData.OTHER));
    }

    private static GarbageCollection.Kept kept(byte why) {
        return GarbageCollection.Kept.values()[GarbageCollection.keptFor(why)];
    }
}
