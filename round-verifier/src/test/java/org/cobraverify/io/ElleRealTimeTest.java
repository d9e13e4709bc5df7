package org.cobraverify.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jepsen's {@code :time} in Elle histories (docs/DESIGN.md §1.2): a transaction runs from its invocation to its completion,
 * and one of unknown outcome keeps its invocation's time. Each history is a shape taken from Elle's own
 * {@code histories/huge-scc.edn} (a run with crashes: processes that invoke, complete, or never hear back), small enough to
 * read: strictly serializable or not only because of real time, so that a reader that dropped the times would accept it.
 */
class ElleRealTimeTest {
    @TempDir
    Path dir;

    /** Writes the operations, one per line with its {@code :index} in order, and reads them back. */
    private History read(String name, String... ops) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < ops.length; i++) text.append(ops[i]).append(", :index ").append(i).append("}\n");
        Path f = dir.resolve(name);
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return HistoryReaders.read(f).history();
    }

    /** One Jepsen operation of a transaction, less its index: {@code type} is invoke, ok or info. */
    private static String op(String type, int process, long time, String value) {
        return "{:type :" + type + ", :f :txn, :value " + value + ", :process " + process + ", :time " + time;
    }

    private static Verdict.Outcome strict(History h) { return Checker.check(h, CheckOptions.defaults().withStrict(0)).outcome(); }

    private static Verdict.Outcome plain(History h) { return Checker.check(h).outcome(); }

    @Test
    void aTransactionRunsFromItsInvocationToItsCompletion() throws Exception {
        History h = read("times.edn",
                op("invoke", 0, 100, "[[:w :x 1]]"),
                op("ok", 0, 250, "[[:w :x 1]]"),
                op("invoke", 1, 300, "[[:r :x nil]]"),
                op("ok", 1, 400, "[[:r :x nil]]"));
        assertEquals(100, h.start(0));
        assertEquals(250, h.end(0));
        assertEquals(300, h.start(1));
        assertEquals(400, h.end(1));
        // the read of x's initial value began after the write of x had completed: a stale read in real time only
        assertEquals(Verdict.Outcome.ACCEPT, plain(h));
        assertEquals(Verdict.Outcome.REJECT, strict(h));
    }

    @Test
    void overlappingTransactionsAreNotOrderedByRealTime() throws Exception {
        History h = read("overlap.edn",
                op("invoke", 0, 100, "[[:w :x 1]]"),
                op("invoke", 1, 200, "[[:r :x nil]]"),
                op("ok", 0, 250, "[[:w :x 1]]"),
                op("ok", 1, 400, "[[:r :x nil]]"));
        assertEquals(Verdict.Outcome.ACCEPT, strict(h));
    }

    /**
     * A process that never heard back (an {@code :info}, as after a crash in huge-scc.edn) invoked a write at time 500;
     * another process had already read that write, between 10 and 50. If the write took effect, it took effect after
     * it was invoked: the read came from the future.
     */
    @Test
    void anUnknownOutcomeKeepsItsInvocationTime() throws Exception {
        History h = read("info.edn",
                op("invoke", 1, 10, "[[:r :x nil]]"),
                op("ok", 1, 50, "[[:r :x 1]]"),
                op("invoke", 0, 500, "[[:w :x 1]]"),
                op("info", 0, 900, "[[:w :x 1]]"));
        int u = h.status(0) == History.UNKNOWN ? 0 : 1;
        assertEquals(History.UNKNOWN, h.status(u));
        assertEquals(500, h.start(u), "the invocation's time");
        assertEquals(History.NO_TIME, h.end(u), "no end: the write may take effect any time after it was invoked");
        assertEquals(Verdict.Outcome.ACCEPT, plain(h));
        assertEquals(Verdict.Outcome.REJECT, strict(h));
    }

    /** The end of an :info is only when the client gave up: nothing that began after it is ordered after the write. */
    @Test
    void anUnknownOutcomeOrdersNothingByItsEnd() throws Exception {
        History h = read("info-late.edn",
                op("invoke", 0, 100, "[[:w :x 1]]"),
                op("info", 0, 200, "[[:w :x 1]]"),
                op("invoke", 1, 300, "[[:r :x nil]]"),
                op("ok", 1, 400, "[[:r :x nil]]"),
                op("invoke", 2, 500, "[[:r :x 1]]"),
                op("ok", 2, 600, "[[:r :x 1]]"));
        // the write took effect (a read saw it) between the read of nil (300-400) and the read of 1 (500-600)
        assertEquals(Verdict.Outcome.ACCEPT, strict(h));
    }

    @Test
    void aTimeThatIsNotAnIntegerIsBadInput() throws Exception {
        Path f = dir.resolve("bad.edn");
        Files.writeString(f, "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time \"noon\", :index 1}\n", StandardCharsets.UTF_8);
        MalformedHistoryException e = assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(f));
        assertTrue(e.getMessage().contains("line 1") && e.getMessage().contains(":time"), e.getMessage());
        Path g = dir.resolve("backwards.edn");
        Files.writeString(g, "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 90, :index 0}\n"
                + "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 80, :index 1}\n", StandardCharsets.UTF_8);
        e = assertThrows(MalformedHistoryException.class, () -> HistoryReaders.read(g));
        assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("before its invocation"), e.getMessage());
    }
}
