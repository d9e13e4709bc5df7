package org.cobraverify.gc.store;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.cobraverify.gc.CollectedWrites.Fate;
import org.junit.jupiter.api.Test;

/**
 * The store's encoding of a collected write's key and entry is on disk (a state directory outlives a build): it must stay
 * byte for byte what it was, the text the first store wrote, and read back to the same entry.
 */
class CollectedEntryEncodingTest {
    /** The encoding as the store first wrote it, with string concatenation. */
    private static byte[] asFirstWritten(Entry e) {
        return (e.fate().ordinal() + e.writer() + '\0' + (e.supersededBy() == null ? "" : e.supersededBy()) + '\0' + e.round() + '\0'
                + e.incarnation()).getBytes(StandardCharsets.UTF_8);
    }

    private static final long[] NUMBERS = {0, 1, 9, 10, 99, 100, 12345, -1, -2, -9, -10, -11, -100, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, 999_999_999_999L, -1_000_000_000_000L};
    private static final String[] NAMES = {"t1", "", "w0:17", "writer with spaces", "é-ü", "日本語", "emoji \uD83D\uDE00", "a\tb"};

    @Test
    void entriesEncodeAsTheyWereFirstWrittenAndDecodeBack() {
        int checked = 0;
        for (Fate f : Fate.values())
            for (String w : NAMES)
                for (String by : new String[] {null, "t9", "ø"})
                    for (long round : NUMBERS)
                        for (long inc : new long[] {0, 3, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
                            Entry e = new Entry(w, by, f, round, inc);
                            byte[] b = CollectedEntryEncoding.encode(e);
                            assertArrayEquals(asFirstWritten(e), b, e::toString);
                            assertEquals(e, CollectedEntryEncoding.decode(b), e::toString);
                            checked++;
                        }
        assertTrue(checked > 1000);
    }

    @Test
    void decimalLengthsMatchTheJdks() {
        long seed = 20261205L;
        Random r = new Random(seed);
        for (long v : NUMBERS) assertEquals(Long.toString(v).length(), CollectedEntryEncoding.decimalLength(v), "v=" + v);
        for (int i = 0; i < 100_000; i++) {
            long v = r.nextLong() >> r.nextInt(64);
            assertEquals(Long.toString(v).length(), CollectedEntryEncoding.decimalLength(v), "seed " + seed + ", v=" + v);
        }
    }

    @Test
    void idsAreKeyZeroValueInUtf8() {
        for (String k : NAMES)
            for (String v : NAMES)
                assertArrayEquals((k + '\0' + v).getBytes(StandardCharsets.UTF_8), CollectedEntryEncoding.id(k, v), k + " / " + v);
    }
}
