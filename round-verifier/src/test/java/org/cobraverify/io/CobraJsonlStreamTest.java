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

/** {@link CobraJsonlReader#stream}: transactions as the pipeline delivers them, one key string per run of operations on it. */
class CobraJsonlStreamTest {
    @TempDir Path dir;

    @Test
    void operationsOnTheKeyOfTheOneBeforeShareItsString() throws Exception {
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
        assertNotSame(a.get(1).getKey(), a.get(3).getKey(), "only a run of operations on one key shares");
        assertSame(a.get(4).getKey(), a.get(5).getKey(), "numeric keys too");
        assertSame(b.get(0).getKey(), b.get(1).getKey());
        assertNotSame(a.get(0).getKey(), b.get(0).getKey(), "nothing is shared across transactions");
    }
}
