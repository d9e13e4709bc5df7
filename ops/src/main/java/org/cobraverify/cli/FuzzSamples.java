package org.cobraverify.cli;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cobraverify.io.HistoryFormat;

/**
 * Well-formed inputs for every reader, to be broken by {@link Mutation}s: small histories of our own for
 * each format (so fuzzing needs nothing else), plus, when they are there, the example histories of this
 * repository and the third-party corpus in {@code ../shared/data} (read in place, never copied).
 */
public final class FuzzSamples {
    /** One input: a file, or a directory of files (Cobra logs); {@code files} maps names to contents. */
    public record Sample(String name, HistoryFormat format, boolean directory, Map<String, byte[]> files) {}

    private FuzzSamples() {}

    /** Inputs larger than this are left out: fuzzing wants many quick runs. */
    static final long MAX_BYTES = 256 * 1024;

    public static List<Sample> all(Path repoRoot) throws IOException {
        List<Sample> s = new ArrayList<>(builtIn());
        Path examples = repoRoot.resolve("examples");
        if (Files.isDirectory(examples)) try (Stream<Path> fs = Files.list(examples)) {
            for (Path f : fs.sorted().toList())
                if (f.toString().endsWith(".jsonl") && Files.size(f) <= MAX_BYTES) s.add(file(f, HistoryFormat.COBRA_JSONL));
        }
        Path data = repoRoot.resolve("../shared/data");
        if (Files.isDirectory(data)) {
            try (Stream<Path> fs = Files.walk(data.resolve("histories"))) {
                for (Path f : fs.filter(Files::isRegularFile).sorted().toList()) {
                    HistoryFormat fmt = f.toString().endsWith(".edn") ? HistoryFormat.ELLE_EDN : f.toString().endsWith(".json") ? HistoryFormat.ELLE_JSON
                            : f.toString().endsWith(".bincode") ? HistoryFormat.DBCOP : f.toString().endsWith(".txt") ? HistoryFormat.POLYSI : null;
                    if (fmt != null && Files.size(f) <= MAX_BYTES) s.add(file(f, fmt));
                }
            }
            for (String d : List.of("cobra-logs/one-shot/chengRW-100", "cobra-logs/ser-violation/cock-G2", "cobra-logs/ser-violation/cock-blog")) {
                Path dir = data.resolve(d);
                if (Files.isDirectory(dir)) s.add(directory(dir));
            }
        }
        return s;
    }

    public static List<Sample> of(List<Sample> all, HistoryFormat f) {
        return all.stream().filter(x -> x.format() == f).toList();
    }

    private static Sample file(Path f, HistoryFormat fmt) throws IOException {
        return new Sample(f.getFileName().toString(), fmt, false, Map.of(f.getFileName().toString(), Files.readAllBytes(f)));
    }

    private static Sample directory(Path d) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (Stream<Path> fs = Files.list(d)) {
            for (Path f : fs.sorted().toList()) files.put(f.getFileName().toString(), Files.readAllBytes(f));
        }
        return new Sample(d.getFileName().toString(), HistoryFormat.COBRA_LOG, true, files);
    }

    private static Sample text(String name, HistoryFormat fmt, String content) {
        return new Sample(name, fmt, false, Map.of(name, content.getBytes(StandardCharsets.UTF_8)));
    }

    /** A write skew and a serializable history in every format. */
    static List<Sample> builtIn() throws IOException {
        List<Sample> s = new ArrayList<>();
        s.add(text("skew.jsonl", HistoryFormat.COBRA_JSONL, String.join("\n",
                "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"x\",1]]}",
                "{\"id\":2,\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"r\",\"y\",null],[\"w\",\"y\",1]]}",
                "{\"id\":3,\"session\":1,\"status\":\"committed\",\"start\":10,\"end\":20,\"ops\":[[\"r\",\"x\",1],[\"w\",\"z\",\"v\"]]}",
                "{\"id\":4,\"session\":3,\"status\":\"aborted\",\"ops\":[[\"w\",\"y\",9]]}") + "\n"));
        s.add(text("skew.txt", HistoryFormat.POLYSI, "w(1,1,1,1)\nr(2,0,1,1)\nw(2,2,2,2)\nr(1,0,2,2)\nr(1,1,1,3)\nr(2,2,1,3)\n"));
        s.add(text("skew.edn", HistoryFormat.ELLE_EDN, String.join("\n",
                "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :y 1]], :process 0, :index 0}",
                "{:type :ok, :f :txn, :value [[:r :x nil] [:w :y 1]], :process 0, :index 1}",
                "{:type :invoke, :f :txn, :value [[:r :y nil] [:w :x 1]], :process 1, :index 2}",
                "{:type :ok, :f :txn, :value [[:r :y nil] [:w :x 1]], :process 1, :index 3}",
                "{:type :ok, :f :txn, :value [[:append :l 1] [:r :l [1]]], :process 2, :index 4}") + "\n"));
        s.add(text("skew.json", HistoryFormat.ELLE_JSON, "[" + String.join(",\n",
                "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null],[\"w\",\"y\",1]],\"process\":0,\"index\":0}",
                "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null],[\"w\",\"y\",1]],\"process\":0,\"index\":1}",
                "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"y\",null],[\"w\",\"x\",1]],\"process\":1,\"index\":2}") + "]\n"));
        // Cobra logs: two clients, a write and a read of it, and a write skew on keys 7 and 8
        ByteArrayOutputStream t0 = new ByteArrayOutputStream(), t1 = new ByteArrayOutputStream();
        DataOutputStream a = new DataOutputStream(t0), b = new DataOutputStream(t1);
        a.writeByte('S'); a.writeLong(1); a.writeByte('W'); a.writeLong(100); a.writeLong(5); a.writeLong(50); a.writeByte('C'); a.writeLong(1);
        b.writeByte('S'); b.writeLong(2); b.writeByte('R'); b.writeLong(1); b.writeLong(100); b.writeLong(5); b.writeLong(50); b.writeByte('C'); b.writeLong(2);
        a.writeByte('S'); a.writeLong(3); a.writeByte('R'); a.writeLong(0xbebeebeeL); a.writeLong(0); a.writeLong(7); a.writeLong(0);
        a.writeByte('W'); a.writeLong(101); a.writeLong(8); a.writeLong(1); a.writeByte('C'); a.writeLong(3);
        b.writeByte('S'); b.writeLong(4); b.writeByte('R'); b.writeLong(0xbebeebeeL); b.writeLong(0); b.writeLong(8); b.writeLong(0);
        b.writeByte('W'); b.writeLong(102); b.writeLong(7); b.writeLong(1); b.writeByte('C'); b.writeLong(4);
        Map<String, byte[]> logs = new LinkedHashMap<>();
        logs.put("T0.log", t0.toByteArray());
        logs.put("T1.log", t1.toByteArray());
        s.add(new Sample("skew-logs", HistoryFormat.COBRA_LOG, true, logs));
        // dbcop bincode: one session of two transactions, a write then a read of it
        ByteBuffer d = ByteBuffer.allocate(512).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 5; i++) d.putLong(1);
        for (int i = 0; i < 3; i++) d.putLong(1).put((byte) 'x');
        d.putLong(2); // sessions
        d.putLong(1).putLong(2); // session 0: one transaction of two events
        d.put((byte) 1).putLong(3).putLong(4).put((byte) 1);
        d.put((byte) 1).putLong(5).putLong(6).put((byte) 1).put((byte) 1);
        d.putLong(1).putLong(2); // session 1: reads both
        d.put((byte) 0).putLong(3).putLong(4).put((byte) 1);
        d.put((byte) 0).putLong(5).putLong(0).put((byte) 1).put((byte) 1);
        s.add(new Sample("fork.bincode", HistoryFormat.DBCOP, false, Map.of("fork.bincode", Arrays.copyOf(d.array(), d.position()))));
        return s;
    }
}
