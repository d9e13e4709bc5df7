package org.cobraverify.io;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed input of every format: a clear error naming the file, the place and the problem; never a verdict. */
class MalformedInputTest {
    @TempDir
    Path dir;

    private MalformedHistoryException fails(String name, String content, HistoryFormat fmt) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(f, fmt, HistoryReaders.Options.DEFAULT));
    }

    private static void names(MalformedHistoryException e, String place, String problem) {
        assertTrue(e.getMessage().contains(place), () -> "expected place '" + place + "' in: " + e.getMessage());
        assertTrue(e.getMessage().contains(problem), () -> "expected '" + problem + "' in: " + e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}\\n{\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\" 1]]}|line 2|bad JSON",
            "{\"status\":\"committed\",\"ops\":[]}|line 1|missing \"session\"",
            "{\"session\":1,\"ops\":[]}|line 1|missing \"status\"",
            "{\"session\":1,\"status\":\"committed\"}|line 1|missing \"ops\"",
            "{\"session\":1,\"status\":\"done\",\"ops\":[]}|line 1|unknown status",
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\"]]}|line 1|3 elements",
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"x\",\"x\",1]]}|line 1|unknown operation",
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",null]]}|line 1|needs a value",
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1.5]]}|line 1|a value must be",
            "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}\\n\\n{\"session\":2,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}|line 3|duplicate write",
            "{\"id\":7,\"session\":1,\"status\":\"committed\",\"ops\":[]}\\n{\"id\":7,\"session\":1,\"status\":\"committed\",\"ops\":[]}|line 2|duplicate transaction id",
            "[1,2]|line 1|expected a JSON object",
    })
    void cobraJsonl(String content, String place, String problem) throws Exception {
        names(fails("h.jsonl", content.replace("\\n", "\n"), HistoryFormat.COBRA_JSONL), place, problem);
    }

    @Test
    void cobraJsonlNamesTheFile() throws Exception {
        MalformedHistoryException e = fails("named.jsonl", "{\"session\":1}\n", HistoryFormat.COBRA_JSONL);
        assertTrue(e.getMessage().startsWith(dir.resolve("named.jsonl").toString() + ": line 1: "), e.getMessage());
    }

    @Test
    void polysi() throws Exception {
        names(fails("p.txt", "w(1,1,1,1)\nr(1,1,1,2)\nx(1,2,3)\n", HistoryFormat.POLYSI), "line 3", "expected r(key,value,session,txn)");
        names(fails("p2.txt", "w(1,1,1,1)\nw(2,1,1,2)\nw(3,1,1,1)\n", HistoryFormat.POLYSI), "line 3", "must be consecutive");
    }

    @Test
    void elleEdn() throws Exception {
        names(fails("e.edn", "{:type :ok, :value [[:w :x 1]]}\n{:type :ok, :value [[:w :x 2]\n", HistoryFormat.ELLE_EDN), "line 2", "never closed");
        names(fails("e2.edn", "{:type :ok, :value [[:w :x 1]]}\n{:type :done, :value []}\n", HistoryFormat.ELLE_EDN), "line 2", "unknown :type");
        names(fails("e3.edn", "{:type :ok, :value [[:w :x 1] [:frob :x 2]]}\n", HistoryFormat.ELLE_EDN), "line 1", "unknown function");
        names(fails("e4.edn", "{:type :ok, :f :inc, :value 1}\n", HistoryFormat.ELLE_EDN), "", "no transactions");
        names(fails("e5.edn", "[1 2 3]\n", HistoryFormat.ELLE_EDN), "line 1", "expected an operation map");
    }

    @Test
    void elleJson() throws Exception {
        names(fails("j.json", "[{\"type\":\"ok\",\"value\":[[\"w\",\"x\",1]]},\n{\"type\":\"ok\",\"value\":[[\"w\",\"x\" 2]]}]", HistoryFormat.ELLE_JSON), "line 2", "bad JSON");
        names(fails("j2.json", "[{\"type\":\"ok\",\"value\":[[\"w\",\"x\",1]]}", HistoryFormat.ELLE_JSON), "line", "");
    }

    @Test
    void cobraLog() throws Exception {
        Path d = Files.createDirectory(dir.resolve("log"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte('S'); out.writeLong(1);
        out.writeByte('W'); out.writeLong(10); out.writeLong(5); out.writeLong(0);
        out.writeByte('C'); out.writeLong(1);
        out.writeByte('Q'); out.writeLong(2);
        Files.write(d.resolve("T3.log"), bytes.toByteArray());
        MalformedHistoryException e = assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(d));
        names(e, "T3.log: byte 43", "unknown record tag 0x51");

        Files.write(d.resolve("T3.log"), Arrays.copyOf(bytes.toByteArray(), 20));
        e = assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(d));
        names(e, "byte 9", "file ends inside a 'W' record");

        Path empty = Files.createDirectory(dir.resolve("empty"));
        names(assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(empty)), "", "no T<n>.log files");
    }

    @Test
    void cobraLogDropsUnfinishedTransactionsAndSaysSo() throws Exception {
        Path d = Files.createDirectory(dir.resolve("log2"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte('S'); out.writeLong(1);
        out.writeByte('W'); out.writeLong(10); out.writeLong(5); out.writeLong(0);
        out.writeByte('C'); out.writeLong(1);
        out.writeByte('S'); out.writeLong(2);
        out.writeByte('R'); out.writeLong(1); out.writeLong(10); out.writeLong(5); out.writeLong(0);
        Files.write(d.resolve("T0.log"), bytes.toByteArray());
        HistoryReaders.Loaded l = HistoryReaders.read(d);
        assertTrue(l.history().size() == 1 && l.notes().get(0).contains("1 unfinished"), l.notes().toString());
    }

    @Test
    void dbcop() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 5; i++) b.putLong(0);
        for (int i = 0; i < 3; i++) b.putLong(0); // three empty strings
        b.putLong(1); // one session
        b.putLong(1); // one transaction
        b.putLong(1); // one event
        b.put((byte) 1).putLong(3).putLong(4).put((byte) 7); // bad success flag
        Path f = dir.resolve("h.bincode");
        Files.write(f, Arrays.copyOf(b.array(), b.position()));
        names(assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(f)), "byte 105", "event success flag is 7");
        Files.write(f, Arrays.copyOf(b.array(), 90));
        names(assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(f)), "byte", "file ends in the middle");
    }

    @Test
    void missingFile() {
        names(assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(dir.resolve("nope.jsonl"))), "nope.jsonl", "no such file");
    }
}
