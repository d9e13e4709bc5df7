package org.cobraverify.gc;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.junit.jupiter.api.Test;

/** A key's frontier log: what a restart may need is kept, what it cannot see is skipped, and nothing is silently lost. */
class FrontierLogTest {
    static final Predicate<FrontierEntry> ALL = e -> true;

    static List<FrontierEntry> log(long keepFrom, long... rounds) {
        List<FrontierEntry> l = new ArrayList<>();
        for (long r : rounds) l = FrontierLog.append(l, new FrontierEntry("v" + r, "T" + r, r, 0), ALL, keepFrom);
        return l;
    }

    @Test
    void entriesARestartMayNeedAreKeptAndOlderOnesLeaveAMarker() {
        // checkpoints at rounds 5 and 9: a restart resumes from 5 at the earliest; entries of 3, 4, 5 leave only 5
        List<FrontierEntry> l = log(5, 3, 4, 5, 7, 9, 11);
        assertEquals(List.of(5L, 7L, 9L, 11L), l.stream().filter(e -> e.incarnation() >= 0).map(FrontierEntry::round).toList());
        // the one that resumes from round 5 sees v5; from round 9, v9; the running one, v11
        assertEquals("v5", FrontierLog.latest(l, e -> e.round() <= 5).value());
        assertEquals("v9", FrontierLog.latest(l, e -> e.round() <= 9).value());
        assertEquals("v11", FrontierLog.latest(l, ALL).value());
        // one that resumes from before everything kept cannot know the key's frontier: never "no frontier"
        assertSame(FrontierLog.UNKNOWABLE, FrontierLog.latest(l, e -> e.round() <= 2));
        // without a checkpoint (keepFrom = the current round) only the latest entry stays, and the log stays bounded
        List<FrontierEntry> files = new ArrayList<>();
        for (long r = 0; r < 1000; r++) files = FrontierLog.append(files, new FrontierEntry("v" + r, "T" + r, r, 0), ALL, r);
        assertTrue(files.size() <= 2, "entries kept: " + files.size());
        assertEquals("v999", FrontierLog.latest(files, ALL).value());
    }

    @Test
    void aKeyNeverCollectedHasNoFrontierAndAnEarlierIncarnationsLaterEntriesAreDropped() {
        assertNull(FrontierLog.latest(List.of(), ALL));
        List<FrontierEntry> l = new ArrayList<>();
        l = FrontierLog.append(l, new FrontierEntry("a", "A", 3, 0), ALL, 3);
        l = FrontierLog.append(l, new FrontierEntry("b", "B", 8, 0), ALL, 3); // incarnation 0 after its checkpoint of round 3
        // incarnation 1 resumed from round 3: it sees "a", and its own append drops incarnation 0's "b"
        Predicate<FrontierEntry> mine = e -> e.incarnation() == 1 || e.round() <= 3;
        assertEquals("a", FrontierLog.latest(l, mine).value());
        l = FrontierLog.append(l, new FrontierEntry(null, "C", 5, 1), mine, 3);
        assertTrue(l.stream().noneMatch(e -> "b".equals(e.value())), l.toString());
        assertNull(FrontierLog.latest(l, mine).value(), "superseded by a retained writer: no value");
        assertEquals("C", FrontierLog.latest(l, mine).writer());
    }

    @Test
    void theEncodingKeepsAnyCharacter() {
        List<FrontierEntry> l = List.of(new FrontierEntry("a\0b\u0001c\n", "T\0x", 7, 2), new FrontierEntry(null, "W", 9, 2),
                new FrontierEntry("é漢字", "", Long.MAX_VALUE, 0));
        assertEquals(l, FrontierLog.decode(FrontierLog.encode(l)));
        assertTrue(FrontierLog.decode(null).isEmpty());
        // the bytes are those logs on disk were written with (a DataOutputStream's, big-endian), so old stores still read
        assertArrayEquals(dataOutput(l), FrontierLog.encode(l));
        assertArrayEquals(dataOutput(List.of()), FrontierLog.encode(List.of()));
    }

    @Test
    void logsComeBackUnmodifiableAndACorruptCountIsReportedNotAllocated() {
        List<FrontierEntry> one = FrontierLog.append(List.of(), new FrontierEntry("a", "A", 3, 0), ALL, 3);
        assertThrows(UnsupportedOperationException.class, () -> one.add(new FrontierEntry("b", "B", 4, 0)));
        List<FrontierEntry> back = FrontierLog.decode(FrontierLog.encode(one));
        assertEquals(one, back);
        assertThrows(UnsupportedOperationException.class, () -> back.remove(0));
        // a count the bytes cannot hold (here 2^30 entries in 8 bytes): the store's corruption error, not an array of that size
        byte[] bad = {0x40, 0, 0, 0, 0, 0, 0, 0};
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> FrontierLog.decode(bad));
        assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    }

    private static byte[] dataOutput(List<FrontierEntry> log) {
        try (java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(); java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeInt(log.size());
            for (FrontierEntry e : log) {
                for (String x : new String[] {e.value(), e.writer()}) {
                    if (x == null) { out.writeInt(-1); continue; }
                    byte[] b = x.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    out.writeInt(b.length);
                    out.write(b);
                }
                out.writeLong(e.round());
                out.writeLong(e.incarnation());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
