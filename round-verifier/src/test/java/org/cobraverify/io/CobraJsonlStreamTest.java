package org.cobraverify.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CobraJsonlReader#stream}: transactions as the pipeline delivers them, a string made once for a key or value named again. */
class CobraJsonlStreamTest {
    @TempDir Path dir;

    @Test
    void keysAndValuesNamedAgainShareTheirStrings() throws Exception {
        Path f = dir.resolve("h.jsonl");
        Files.writeString(f, String.join("\n",
                "{\"format\":\"cobra-jsonl\",\"version\":1}",
                "{\"id\":\"t1\",\"session\":\"s\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",\"a\"],[\"w\",\"y\",\"b\"],[\"r\",\"x\",\"a\"],[\"r\",7,null],[\"w\",7,\"c\"]]}",
                "{\"id\":\"t2\",\"session\":\"s\",\"status\":\"committed\",\"ops\":[[\"r\",\"x\",\"a\"],[\"w\",\"x\",\"d\"]]}", ""));
        List<Transaction> got = new ArrayList<>();
        CobraJsonlReader.stream(f, (t, line) -> got.add(t));
        assertEquals(2, got.size());
        List<TxnOp> a = got.get(0).getOps(), b = got.get(1).getOps();
        assertEquals(List.of("x", "x", "y", "x", "7", "7"), a.stream().map(TxnOp::getKey).toList());
        assertNull(a.get(0).getValue());
        assertEquals("a", a.get(1).getValue());
        assertSame(a.get(0).getKey(), a.get(1).getKey(), "a read-modify-write names its key once");
        assertSame(a.get(1).getKey(), a.get(3).getKey(), "a key named again is the string made first (RecentStrings)");
        assertSame(a.get(4).getKey(), a.get(5).getKey(), "numeric keys: a run of operations on one shares");
        assertSame(b.get(0).getKey(), b.get(1).getKey());
        assertSame(a.get(0).getKey(), b.get(0).getKey(), "across transactions too");
        assertSame(a.get(1).getValue(), a.get(3).getValue(), "a read's value is the string its write made");
        assertSame(a.get(1).getValue(), b.get(0).getValue());
        assertSame(got.get(0).getSession(), got.get(1).getSession(), "one string per session");
    }

    /** The table holds one string per slot: one made for other characters replaces it, and the next request makes it again, equal. */
    @Test
    void recentStringsAreEqualToTheirCharactersAndASlotHoldsTheLastOne() {
        RecentStrings one = new RecentStrings(1);
        char[] text = "xabcy".toCharArray();
        String abc = one.of(text, 1, 3);
        assertEquals("abc", abc);
        assertSame(abc, one.of("abc".toCharArray(), 0, 3));
        String ab = one.of(text, 1, 2);
        assertEquals("ab", ab, "a prefix is another string");
        String again = one.of(text, 1, 3);
        assertEquals("abc", again);
        assertNotSame(abc, again, "the one slot held \"ab\" in between");
        assertEquals("", one.of(text, 0, 0));
        RecentStrings many = new RecentStrings(1 << 10);
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            char[] c = ("k" + i).toCharArray();
            String s = many.of(c, 0, c.length);
            assertEquals("k" + i, s);
            made.add(s);
        }
        for (int i = 0; i < 5000; i++) assertEquals("k" + i, made.get(i), "strings given out never change: " + i);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new RecentStrings(3));
    }
}
