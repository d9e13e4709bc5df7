package org.cobraverify.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.testkit.WitnessReplayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code cobra verify} as a user runs it: exit codes, text and JSON output, witnesses, several files. */
public class VerifyCommandTest {
    @TempDir
    Path dir;

    public record Run(int exit, String out, String err) {}

    /** Runs the cobra command in-process, capturing what it prints. */
    public static Run cobra(String... args) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = CobraCommand.execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    Path file(String name, String... lines) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    static final String[] SERIALIZABLE = {
            "{\"id\":\"a\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"w\",\"y\",1]]}",
            "{\"id\":\"b\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1],[\"w\",\"x\",2]]}",
            "{\"id\":\"c\",\"session\":3,\"status\":\"committed\",\"ops\":[[\"r\",\"y\",1],[\"r\",\"x\",1]]}",
            "{\"id\":\"d\",\"session\":1,\"status\":\"aborted\",\"ops\":[[\"w\",\"y\",9]]}"};

    static final String[] WRITE_SKEW = {
            "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"x\",1]]}",
            "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"y\",1]]}"};

    @Test
    void helpListsTheCommands() {
        Run r = cobra("--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("verify") && r.out().contains("bench"), r.out());
    }

    @Test
    void acceptWritesAWitnessThatReplays() throws Exception {
        Path h = file("ok.jsonl", SERIALIZABLE);
        Path w = dir.resolve("order.txt");
        Run r = cobra("verify", "--witness", w.toString(), h.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("ACCEPT"), r.out());
        List<String> ids = Files.readAllLines(w);
        History hist = HistoryReaders.read(h).history();
        int[] order = ids.stream().mapToInt(id -> {
            for (int t = 0; t < hist.size(); t++) if (hist.name(t).equals(id)) return t;
            throw new AssertionError("unknown id " + id);
        }).toArray();
        assertEquals(3, order.length);
        assertNull(WitnessReplayer.problem(hist, order));
        // c read a's x before b overwrote it: a, c, b
        assertEquals(List.of("a", "c", "b"), ids);
    }

    @Test
    void rejectPrintsTheCertificate() throws Exception {
        Run r = cobra("verify", file("skew.jsonl", WRITE_SKEW).toString());
        assertEquals(1, r.exit());
        assertTrue(r.out().contains("REJECT: write skew (G2)"), r.out());
        assertTrue(r.out().contains("T1 -rw(y)-> T2") && r.out().contains("T2 -rw(x)-> T1"), r.out());
        assertTrue(r.out().contains("[r(x)=null r(y)=null w(x)=1]"), r.out());
    }

    @Test
    void dotGraphOfTheCertificate() throws Exception {
        Path dot = dir.resolve("cert.dot");
        assertEquals(1, cobra("verify", "--dot", dot.toString(), file("skew.jsonl", WRITE_SKEW).toString()).exit());
        String g = Files.readString(dot);
        assertTrue(g.startsWith("digraph certificate {") && g.trim().endsWith("}"), g);
        assertTrue(g.contains("\"T1\" -> \"T2\" [label=\"rw(y)\", color=red]") && g.contains("\"T2\" -> \"T1\" [label=\"rw(x)\", color=red]"), g);
    }

    /** A serial execution of two sessions with fences: writes and reads of three keys, a fence every third transaction. */
    static List<String> fencedHistory(int txns) {
        List<String> lines = new ArrayList<>();
        Map<String, String> latest = new HashMap<>();
        for (int i = 0; i < txns; i++) {
            String session = i % 2 == 0 ? "A" : "B";
            String ops;
            if (i % 6 < 2) { // each session's first transaction, and every third after, is a fence
                String prev = latest.get("EPOCH");
                ops = "[\"r\",\"EPOCH\"," + (prev == null ? "null" : "\"" + prev + "\"") + "],[\"w\",\"EPOCH\",\"e" + i + "\"]";
                latest.put("EPOCH", "e" + i);
            } else {
                String k = "k" + (i % 3), r = latest.get("k" + ((i + 1) % 3));
                ops = "[\"r\",\"k" + ((i + 1) % 3) + "\"," + (r == null ? "null" : "\"" + r + "\"") + "],[\"w\",\"" + k + "\",\"v" + i + "\"]";
                latest.put(k, "v" + i);
            }
            lines.add("{\"id\":\"t" + i + "\",\"session\":\"" + session + "\",\"status\":\"committed\",\"ops\":[" + ops + "]}");
        }
        return lines;
    }

    /**
     * Life after a violation, from files: two anomalies planted by {@code cobra plant} into a serializable fenced history are
     * each reported once by {@code verify --rounds --json}, in {@code violations}, with the rounds between verified clean.
     */
    @Test
    void roundsListEveryPlantedViolationOnce() throws Exception {
        Path ok = file("fenced.jsonl", fencedHistory(600).toArray(new String[0]));
        Path planted = ok.resolveSibling("planted.jsonl");
        Run p = cobra("plant", "--anomaly", "lost-update@0.3", "--anomaly", "g1c@0.7", "--out", planted.toString(), ok.toString());
        assertEquals(0, p.exit(), p.out() + p.err());
        Run r = cobra("verify", "--rounds", "20", "--json", planted.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        JsonNode j = new ObjectMapper().readTree(r.out().strip());
        assertEquals("reject", j.get("verdict").asText());
        JsonNode vs = j.get("violations");
        assertEquals(2, vs.size(), j.toString());
        assertEquals(2, j.get("violationCount").asLong());
        assertTrue(vs.get(0).get("round").asLong() < vs.get(1).get("round").asLong(), vs.toString());
        assertEquals(vs.get(0).get("round").asLong(), j.get("firstViolationRound").asLong());
        for (int i = 0; i < 2; i++) {
            String prefix = i == 0 ? "planted:0:lost-update" : "planted:1:g1c";
            for (JsonNode t : vs.get(i).get("certificate").get("transactions"))
                assertTrue(t.get("id").asText().startsWith(prefix), vs.get(i).toString());
            for (JsonNode t : vs.get(i).get("certificate").get("transactions"))
                assertTrue(t.get("line").asInt() > 0, "the certificate names each transaction's line in the file: " + t);
        }
        assertEquals("G1c (circular information flow)", vs.get(1).get("anomaly").asText());
        assertEquals("G1c", vs.get(1).get("certificate").get("adya").asText(), "each certificate carries its anomaly's class");
        assertEquals(AnomalyKind.G1C.meaning(), vs.get(1).get("certificate").get("meaning").asText());
        assertTrue(j.get("roundsCleanAfterViolation").asLong() >= 5, j.toString());
        assertEquals(0, j.get("roundsUnknownAfterViolation").asLong(), j.toString());
        // the text report lists them too
        Run text = cobra("verify", "--rounds", "20", planted.toString());
        assertTrue(text.out().contains("violations: 2 (first in round " + j.get("firstViolationRound").asLong() + ")"), text.out());
        // one-shot --all reports both, one certificate each; without --all only the first
        Run all = cobra("verify", "--all", "--json", planted.toString());
        assertEquals(1, all.exit(), all.out() + all.err());
        JsonNode a = new ObjectMapper().readTree(all.out().strip());
        assertEquals(2, a.get("violations").size(), a.toString());
        assertEquals("G1c (circular information flow)", a.get("violations").get(1).get("anomaly").asText(), a.toString());
        assertTrue(a.get("notes").toString().contains("2 independent violations found; the rest of the history is serializable"), a.toString());
        Run allText = cobra("verify", "--all", planted.toString());
        assertTrue(allText.out().contains("violation 2: G1c (circular information flow)"), allText.out());
        assertFalse(cobra("verify", "--json", planted.toString()).out().contains("\"violations\""));
        // an unknown anomaly, or a point outside the history, is refused with a clear error
        Run bad = cobra("plant", "--anomaly", "dirty-write@0.5", "--out", planted.toString(), ok.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("unknown anomaly dirty-write"), bad.err());
    }

    @Test
    void roundsWithGarbageCollectionReportTheirFiguresAndCatchAStaleRead() throws Exception {
        List<String> lines = fencedHistory(300);
        Path ok = file("fenced.jsonl", lines.toArray(new String[0]));
        Run r = cobra("verify", "--rounds", "20", "--json", ok.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        String j = r.out().strip();
        assertTrue(j.contains("\"verdict\":\"accept\"") && j.contains("\"roundMillis\":[") && j.contains("\"capacity\":"), j);
        long rounds = Long.parseLong(j.replaceAll(".*\"rounds\":(\\d+).*", "$1"));
        long retainedMax = Long.parseLong(j.replaceAll(".*\"retainedMax\":(\\d+).*", "$1"));
        long collected = Long.parseLong(j.replaceAll(".*\"collected\":(\\d+).*", "$1"));
        assertTrue(rounds >= 10, j);
        // the per-round figures: one entry per round, and each round's phases add up to its time (within rounding)
        for (String f : List.of("roundRetained", "roundHistorySize", "roundBuildMillis", "roundCheckMillis", "roundGcMillis"))
            assertEquals(rounds, longs(j, f).length, f + ": " + j);
        long[] ms = longs(j, "roundMillis"), b = longs(j, "roundBuildMillis"), c = longs(j, "roundCheckMillis"), g = longs(j, "roundGcMillis");
        for (int i = 0; i < ms.length; i++) assertTrue(Math.abs(ms[i] - b[i] - c[i] - g[i]) <= 2, "round " + i + ": " + j);
        // the verifier thread's CPU time per round: measured (HotSpot on Linux), never more than the round's wall time
        // (its reading spans the round's bookkeeping too: a millisecond or two), and the collectors' time, per round
        long[] cpu = longs(j, "roundCpuMillis"), collector = longs(j, "roundCollectorMillis");
        assertEquals(rounds, cpu.length, j);
        assertEquals(rounds, collector.length, j);
        for (int i = 0; i < ms.length; i++) {
            assertTrue(cpu[i] >= 0 && cpu[i] <= ms[i] + 2, "round " + i + ": CPU " + cpu[i] + " ms of " + ms[i] + ": " + j);
            assertTrue(collector[i] >= 0, "round " + i + ": " + j);
        }
        long cpuCapacity = Long.parseLong(j.replaceAll(".*\"cpuCapacity\":(-?\\d+).*", "$1"));
        assertTrue(cpuCapacity > 0, j);
        // the capacity of the later half: the rounds after the one in which half of the transactions had been checked,
        // from their own transactions and times (each round's time rounded here: within a round's rounding each)
        long[] txns = longs(j, "roundTxns");
        assertEquals(rounds, txns.length, j);
        long total = java.util.Arrays.stream(txns).sum(), seen = 0;
        int from = 0;
        while (2 * (seen += txns[from]) < total) from++;
        from++;
        long laterTxns = 0, laterMillis = 0;
        for (int i = from; i < txns.length; i++) { laterTxns += txns[i]; laterMillis += ms[i]; }
        long later = Long.parseLong(j.replaceAll(".*\"capacityLaterHalf\":(-?\\d+).*", "$1"));
        assertTrue(txns.length - from >= 2 && laterTxns > 0, j);
        if (laterMillis > txns.length) { // (a few milliseconds in all would make the ratio noise)
            double lo = laterTxns / ((laterMillis + 0.5 * (txns.length - from)) / 1000.0), hi = laterTxns / (Math.max(0.001, laterMillis - 0.5 * (txns.length - from)) / 1000.0);
            assertTrue(later >= Math.floor(lo) && later <= Math.ceil(hi), later + " not in [" + lo + ", " + hi + "]: " + j);
        } else assertTrue(later > 0, j);
        assertEquals(java.util.Arrays.stream(collector).sum(), Long.parseLong(j.replaceAll(".*\"collectorMillis\":(-?\\d+).*", "$1")), j);
        assertEquals(retainedMax, java.util.Arrays.stream(longs(j, "roundRetained")).max().orElse(-1), j);
        assertTrue(collected > 200 && retainedMax < 100, "most of the history was collected, little retained: " + j);
        // what the retained set is made of, after the last round garbage collection analysed: its reasons add up to it
        // when that round is the last (here it is: every epoch is closed at the end, and nothing stops collection)
        long whyRound = Long.parseLong(j.replaceAll(".*\"retainedWhyRound\":(\\d+).*", "$1"));
        String why = j.replaceAll(".*\"retainedWhy\":\\{([^}]*)\\}.*", "$1");
        long sum = 0;
        for (String kv : why.split(",")) sum += Long.parseLong(kv.split(":")[1]);
        assertTrue(why.contains("\"frontier-writer\":") && why.contains("\"not-old\":"), why);
        assertEquals(rounds - 1, whyRound, j);
        assertEquals(Long.parseLong(j.replaceAll(".*\"retainedLast\":(\\d+).*", "$1")), sum, "reasons for " + why);
        // the same per round: one array per reason, an entry per round (-1: not analysed), the last round's as above
        String perRound = j.replaceAll(".*\"roundRetainedWhy\":\\{(.*?)\\}.*", "$1");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"([a-z-]+)\":\\[([-0-9,]*)\\]").matcher(perRound);
        long lastSum = 0;
        int reasons = 0;
        while (m.find()) {
            long[] a = java.util.Arrays.stream(m.group(2).split(",")).mapToLong(Long::parseLong).toArray();
            assertEquals(rounds, a.length, m.group(1) + ": " + perRound);
            assertTrue(java.util.Arrays.stream(a).allMatch(x -> x >= -1), perRound);
            assertEquals(Long.parseLong(why.replaceAll(".*\"" + m.group(1) + "\":(\\d+).*", "$1")), a[a.length - 1], m.group(1) + ": " + perRound);
            lastSum += a[a.length - 1];
            reasons++;
        }
        assertEquals(why.split(",").length, reasons, perRound);
        assertEquals(sum, lastSum, perRound);

        // a late read of the first value of k1, long overwritten (and collected)
        lines.add("{\"id\":\"late\",\"session\":\"A\",\"status\":\"committed\",\"ops\":[[\"r\",\"k1\",\"v4\"]]}");
        Path stale = file("stale.jsonl", lines.toArray(new String[0]));
        Run s = cobra("verify", "--rounds", "20", stale.toString());
        assertEquals(1, s.exit(), s.out() + s.err());
        assertTrue(s.out().contains("stale read") && s.out().contains("late") && s.out().contains("t4"), s.out());
        assertTrue(s.out().contains("late  session A  committed  line " + lines.size()), "the file's line numbers, in rounds mode too: " + s.out());
        assertEquals(1, cobra("verify", stale.toString()).exit(), "one-shot agrees");
        assertEquals(2, cobra("verify", "--rounds", "-3", ok.toString()).exit());
    }

    @Test
    void jsonForEachHistoryAndTheWorstExitCode() throws Exception {
        Path ok = file("ok.jsonl", SERIALIZABLE), bad = file("skew.jsonl", WRITE_SKEW), broken = file("broken.jsonl", "{\"session\":1,\"ops\":[]}");
        Run r = cobra("verify", "--json", ok.toString(), broken.toString(), bad.toString());
        assertEquals(1, r.exit(), "a reject outranks an error");
        String[] lines = r.out().strip().split("\n");
        assertEquals(3, lines.length, r.out());
        assertTrue(lines[0].startsWith("{\"file\":\"" + ok + "\"") && lines[0].contains("\"verdict\":\"accept\"") && lines[0].contains("\"transactions\":4"), lines[0]);
        assertTrue(lines[1].contains("\"verdict\":\"error\"") && lines[1].contains("line 1: missing \\\"status\\\""), lines[1]);
        assertTrue(lines[2].contains("\"verdict\":\"reject\"") && lines[2].contains("\"kind\":\"WRITE_SKEW\"") && lines[2].contains("\"cycle\":[{\"from\":\"T"), lines[2]);
        assertTrue(lines[2].contains("\"millis\":"), lines[2]);
        assertEquals(2, cobra("verify", ok.toString(), broken.toString()).exit(), "an error outranks an accept");
    }

    @Test
    void malformedInputExitsTwoNamingTheLine() throws Exception {
        Path f = file("bad.jsonl", SERIALIZABLE[0], "{\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\"]]}");
        Run r = cobra("verify", f.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains(f + ": line 2: op 0: an operation needs 3 elements"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void timeoutGivesUnknown() throws Exception {
        Run r = cobra("verify", "--timeout", "0.000000001", "--json", file("ok.jsonl", SERIALIZABLE).toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("\"verdict\":\"unknown\"") && r.out().contains("time limit"), r.out());
    }

    @Test
    void readsGzipAndHonoursFormat() throws Exception {
        Path gz = dir.resolve("h.jsonl.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write((String.join("\n", WRITE_SKEW) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(1, cobra("verify", gz.toString()).exit());
        Path odd = dir.resolve("history.data");
        Files.copy(file("x.jsonl", SERIALIZABLE), odd);
        assertEquals(0, cobra("verify", "--format", "cobra-jsonl", odd.toString()).exit());
        Run r = cobra("verify", "--format", "nope", odd.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("unknown format"), r.err());
    }

    @Test
    void badArgumentsExitTwo() {
        assertEquals(2, cobra("verify").exit());
        assertEquals(2, cobra("verify", "--frobnicate", "x").exit());
        assertEquals(2, cobra("verify", dir.resolve("missing.jsonl").toString()).exit());
    }

    /** The array field {@code name} of a one-line JSON object. */
    private static long[] longs(String json, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\":\\[([0-9,]*)\\]").matcher(json);
        assertTrue(m.find(), name + " missing: " + json);
        return m.group(1).isEmpty() ? new long[0] : java.util.Arrays.stream(m.group(1).split(",")).mapToLong(Long::parseLong).toArray();
    }
}
