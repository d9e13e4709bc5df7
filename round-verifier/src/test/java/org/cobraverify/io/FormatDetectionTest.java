package org.cobraverify.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Format detection by name and content, and the corners of the EDN reader. */
class FormatDetectionTest {
    @TempDir
    Path dir;

    private Path file(String name, String content) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void detectsEachFormatFromItsContent() throws Exception {
        assertEquals(HistoryFormat.COBRA_JSONL, HistoryFormat.detect(file("a.txt", "{\"session\":1,\"status\":\"committed\",\"ops\":[]}\n")));
        assertEquals(HistoryFormat.ELLE_JSON, HistoryFormat.detect(file("b.txt", "[{\"type\":\"ok\",\"value\":[]}]")));
        assertEquals(HistoryFormat.ELLE_JSON, HistoryFormat.detect(file("c.txt", "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[]}\n")));
        assertEquals(HistoryFormat.ELLE_EDN, HistoryFormat.detect(file("d.txt", "{:type :ok, :value []}\n")));
        assertEquals(HistoryFormat.POLYSI, HistoryFormat.detect(file("e.txt", "w(1,1,1,1)\n")));
        assertEquals(HistoryFormat.DBCOP, HistoryFormat.detect(file("f.bincode", "")));
        assertEquals(HistoryFormat.COBRA_LOG, HistoryFormat.detect(Files.createDirectory(dir.resolve("logs"))));
        Path gz = dir.resolve("g.data");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write("{\"session\":1,\"status\":\"committed\",\"ops\":[]}\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(HistoryFormat.COBRA_JSONL, HistoryFormat.detect(gz), "gzip is recognised by its magic number, not its name");
    }

    @Test
    void ednCorners() throws Exception {
        Path f = file("corners.edn", String.join("\n",
                "; a comment line",
                "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}",
                "#_{:type :ok, :f :txn, :value [[:w :x 99]], :process 9}",
                "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :tags #{:a :b}, :at #inst \"2026-01-01\"}",
                "{:type :ok, :f :inc, :value 3, :process 1}",
                "{:type :invoke, :f :txn, :value [[:r :x nil] [:w \"y\" 2]], :process :p2}",
                "{:type :info, :f :txn, :value [[:r :x nil] [:w \"y\" 2]], :process :p2}",
                "{:type :ok, :f :txn, :value [[:r :x 1] [:r \"y\" 2]], :process 3}"));
        HistoryReaders.Loaded l = HistoryReaders.read(f);
        History h = l.history();
        assertEquals(3, h.size(), "the discarded form and the non-txn op are not transactions");
        assertEquals(History.COMMITTED, h.status(0));
        assertEquals(History.UNKNOWN, h.status(1), ":info leaves the outcome unknown");
        assertEquals(1, h.opEnd(1) - h.opStart(1), "an unknown transaction keeps its writes, not its unobserved reads");
        assertEquals(true, l.notes().get(0).contains("inc=1"), l.notes().toString());
        // the unknown write of y=2 was read by a committed transaction: it counts
        assertEquals(Verdict.Outcome.ACCEPT, Checker.check(h).outcome());
    }
}
