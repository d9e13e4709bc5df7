package org.cobraverify.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * Reads Jepsen/Elle histories, EDN or JSON: one operation map per record with {@code :type}
 * ({@code invoke}, {@code ok}, {@code fail}, {@code info}), {@code :f}, {@code :value} (micro-ops),
 * optional {@code :process}, {@code :index} and {@code :time} (nanoseconds: a transaction runs from its invocation's
 * time to its completion's, and one of unknown outcome has its invocation's time only). An invoke is completed by the
 * next completion of the same process: {@code ok} commits, {@code fail} aborts, {@code info} (or no completion) is unknown,
 * and only its writes are kept (its reads were never observed). Without {@code :process} every
 * completion is its own session. Micro-ops: {@code [:r k v]}, {@code [:w k v]}, {@code [:append k v]}
 * and list reads {@code [:r k [v1 v2 ...]]}. Operations whose {@code :f} is not {@code :txn} are
 * skipped with a count; a file with no transactions is refused.
 */
public final class ElleReader {
    private static final JsonFactory JSON = new JsonFactory();

    private ElleReader() {}

    /** One Jepsen operation, normalized from EDN or JSON; {@code time}: its {@code :time} in nanoseconds, or null. */
    private record Op(String type, String f, Object value, Object process, Object index, int line, Long time) {}

    public static History readEdn(Path path, List<String> notes) throws IOException, MalformedHistoryException {
        String src = path.toString();
        List<Op> ops = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(HistoryFormat.open(path), StandardCharsets.UTF_8))) {
            EdnParser p = new EdnParser(in);
            while (true) {
                Object form;
                try {
                    form = p.next();
                } catch (EdnParser.EdnException e) {
                    throw new MalformedHistoryException(src, "line " + e.line + ", column " + e.col, "bad EDN: " + e.getMessage());
                }
                if (form == null) break;
                ops.add(normalize(src, form, p.formLine()));
            }
        }
        return assemble(src, ops, notes);
    }

    public static History readJson(Path path, List<String> notes) throws IOException, MalformedHistoryException {
        String src = path.toString();
        List<Op> ops = new ArrayList<>();
        try (JsonParser p = JSON.createParser(new InputStreamReader(HistoryFormat.open(path), StandardCharsets.UTF_8))) {
            JsonToken t = p.nextToken();
            boolean array = t == JsonToken.START_ARRAY;
            if (array) t = p.nextToken();
            while (t != null && t != JsonToken.END_ARRAY) {
                int line = p.currentLocation().getLineNr();
                Object form = generic(p, src);
                ops.add(normalize(src, form, line));
                t = p.nextToken();
            }
            if (array && t == null) throw new MalformedHistoryException(src, "line " + p.currentLocation().getLineNr(), "the JSON array is never closed");
        } catch (JsonParseException e) {
            throw new MalformedHistoryException(src, "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr(),
                    "bad JSON: " + e.getOriginalMessage());
        }
        return assemble(src, ops, notes);
    }

    private static Object generic(JsonParser p, String src) throws IOException, MalformedHistoryException {
        switch (p.currentToken()) {
            case START_OBJECT: {
                Map<Object, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    m.put(k, generic(p, src));
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) l.add(generic(p, src));
                return l;
            }
            case VALUE_STRING: return p.getText();
            case VALUE_NUMBER_INT: return p.getLongValue();
            case VALUE_NUMBER_FLOAT: return p.getDoubleValue();
            case VALUE_NULL: return null;
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            default: throw new MalformedHistoryException(src, "line " + p.currentLocation().getLineNr(), "unexpected JSON token " + p.currentToken());
        }
    }

    private static String name(Object o) {
        if (o instanceof EdnParser.Keyword k) return k.name();
        if (o instanceof String s) return s;
        return o == null ? null : o.toString();
    }

    private static Op normalize(String src, Object form, int line) throws MalformedHistoryException {
        if (!(form instanceof Map<?, ?> m)) throw new MalformedHistoryException(src, "line " + line, "expected an operation map, found " + describe(form));
        Map<String, Object> byName = new HashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) byName.put(name(e.getKey()), e.getValue());
        String type = name(byName.get("type"));
        if (type == null) throw new MalformedHistoryException(src, "line " + line, "operation has no :type");
        if (!List.of("invoke", "ok", "fail", "info").contains(type))
            throw new MalformedHistoryException(src, "line " + line, "unknown :type " + type + " (expected invoke, ok, fail or info)");
        Object time = byName.get("time");
        if (time != null && !(time instanceof Long))
            throw new MalformedHistoryException(src, "line " + line, ":time must be an integer (nanoseconds), found " + describe(time));
        return new Op(type, name(byName.get("f")), byName.get("value"), byName.get("process"), byName.get("index"), line, (Long) time);
    }

    private static String describe(Object o) {
        if (o == null) return "nil";
        if (o instanceof List) return "a vector";
        return o.getClass().getSimpleName().toLowerCase() + " " + o;
    }

    private static History assemble(String src, List<Op> ops, List<String> notes) throws MalformedHistoryException {
        HistoryBuilder b = new HistoryBuilder();
        Map<String, Integer> skipped = new TreeMap<>();
        Map<Object, Op> pending = new HashMap<>();
        int anonymous = 0;
        int txns = 0;
        for (Op op : ops) {
            if (op.f != null && !op.f.equals("txn")) { skipped.merge(op.f, 1, Integer::sum); continue; }
            if (op.f == null && !(op.value instanceof List)) { skipped.merge("(no :f)", 1, Integer::sum); continue; }
            Object proc = op.process;
            if (op.type.equals("invoke")) {
                if (proc == null) continue; // cannot be paired; the completion carries the value
                Op prev = pending.put(key(proc), op);
                if (prev != null) { emit(src, b, prev, null, key(proc)); txns++; }
                continue;
            }
            Object session;
            Op invoke = null;
            if (proc == null) session = "op" + (++anonymous);
            else { session = key(proc); invoke = pending.remove(session); }
            emit(src, b, invoke, op, session);
            txns++;
        }
        for (Map.Entry<Object, Op> e : pending.entrySet()) { emit(src, b, e.getValue(), null, e.getKey()); txns++; }
        if (!skipped.isEmpty()) notes.add("skipped operations that are not register/list transactions: " + skipped);
        if (txns == 0) throw new MalformedHistoryException(src, "", "no transactions (:f :txn) in this history"
                + (skipped.isEmpty() ? "" : "; it holds only " + skipped.keySet()));
        return b.build();
    }

    private static Object key(Object proc) {
        return proc instanceof EdnParser.Keyword k ? "kw:" + k.name() : proc;
    }

    /** Adds one transaction: {@code completion} null means the invoke never completed (unknown outcome). */
    private static void emit(String src, HistoryBuilder b, Op invoke, Op completion, Object session) throws MalformedHistoryException {
        Op op = completion != null ? completion : invoke;
        String type = completion != null ? completion.type : "info";
        byte status = switch (type) {
            case "ok" -> History.COMMITTED;
            case "fail" -> History.ABORTED;
            default -> History.UNKNOWN;
        };
        Object value = op.value;
        if (status != History.COMMITTED && !(value instanceof List) && invoke != null) value = invoke.value;
        if (!(value instanceof List<?> micro)) throw new MalformedHistoryException(src, "line " + op.line, ":value must be a vector of micro-operations");
        int s = session instanceof Long l ? b.session(l) : b.session(String.valueOf(session));
        String id = op.index != null ? String.valueOf(op.index) : null;
        // real time: from the invocation to the completion; an operation of unknown outcome keeps its invocation (if it took
        // effect, it did so after it was invoked) and has no end (it may take effect any time after, docs/DESIGN.md §1.2)
        long start = invoke != null && invoke.time != null ? invoke.time : History.NO_TIME;
        long end = completion != null && completion.time != null && status != History.UNKNOWN ? completion.time : History.NO_TIME;
        if (start != History.NO_TIME && end != History.NO_TIME && end < start)
            throw new MalformedHistoryException(src, "line " + op.line, "completed at :time " + end + ", before its invocation at " + start);
        try {
            b.begin(id, s, status, start, end, op.line);
            int i = 0;
            for (Object m : micro) {
                if (!(m instanceof List<?> mop) || mop.size() != 3)
                    throw new IllegalArgumentException("micro-op " + i + " must be [f key value], found " + describe(m));
                String f = name(mop.get(0));
                Object k = mop.get(1), v = mop.get(2);
                int key = k instanceof Long l ? b.key(l) : b.key(keyName(k, i));
                switch (f == null ? "" : f) {
                    case "r" -> {
                        if (status != History.COMMITTED) break; // an unobserved read
                        if (v == null) b.read(key, History.NIL);
                        else if (v instanceof List<?> list) {
                            int[] vals = new int[list.size()];
                            for (int j = 0; j < vals.length; j++) vals[j] = value(b, list.get(j), i);
                            b.readList(key, vals);
                        } else b.read(key, value(b, v, i));
                    }
                    case "w" -> b.write(key, value(b, v, i));
                    case "append" -> b.append(key, value(b, v, i));
                    default -> throw new IllegalArgumentException("micro-op " + i + ": unknown function " + f + " (expected r, w or append)");
                }
                i++;
            }
            b.end();
        } catch (IllegalArgumentException e) {
            throw new MalformedHistoryException(src, "line " + op.line, e.getMessage());
        }
    }

    private static String keyName(Object k, int i) {
        if (k instanceof EdnParser.Keyword kw) return kw.name();
        if (k instanceof String s) return s;
        throw new IllegalArgumentException("micro-op " + i + ": a key must be a keyword, an integer or a string, found " + describe(k));
    }

    private static int value(HistoryBuilder b, Object v, int i) {
        if (v instanceof Long l) return b.value(l);
        if (v instanceof String s) return b.value(s);
        if (v instanceof EdnParser.Keyword kw) return b.value(kw.name());
        throw new IllegalArgumentException("micro-op " + i + ": a value must be an integer, a string or a keyword, found " + describe(v));
    }
}
