package org.cobraverify.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.IntVec;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.WireNames;

/**
 * Reads {@code cobra-jsonl} version 1 (see {@code docs/history-format.md}), plain or gzip, with one
 * streaming parser over the whole file (one transaction object per line). Every structural problem is reported with its line number. Unknown fields are
 * ignored (the format may gain optional fields).
 */
public final class CobraJsonlReader {
    private static final JsonFactory JSON = new JsonFactory();

    private CobraJsonlReader() {}

    public static History read(Path path) throws IOException, MalformedHistoryException {
        HistoryBuilder b = new HistoryBuilder();
        parse(path, new Target() {
            public int key(String k) { return b.key(k); }
            public int key(long k) { return b.key(k); }
            public int value(String v) { return b.value(v); }
            public int value(long v) { return b.value(v); }
            public void txn(String id, String session, long sessionNum, byte status, long start, long end, int line, IntVec kinds, IntVec keys,
                            IntVec vals) {
                int s = session != null ? b.session(session) : b.session(sessionNum);
                b.begin(id, s, status, start, end, line);
                for (int i = 0; i < kinds.size(); i++) {
                    if (kinds.get(i) == History.WRITE) {
                        try {
                            b.write(keys.get(i), vals.get(i));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("op " + i + ": " + e.getMessage());
                        }
                    } else b.read(keys.get(i), vals.get(i));
                }
                b.end();
            }
        });
        return b.build();
    }

    /** Receives the transactions of {@link #stream}, in file order, each with its line. */
    public interface TransactionSink { void accept(Transaction t, int line); }

    /**
     * Reads the file one transaction at a time, holding none of them (memory does not grow with the file): each
     * becomes a {@link Transaction} as the pipeline would deliver it (no epoch, no session index; keys, values and
     * sessions as their wire texts, {@link WireNames}, which keep {@code 1} and {@code "1"} apart; a transaction without an
     * id is named by its 1-based ordinal). Structural problems are
     * reported as {@link #read} reports them; a duplicate id or write across transactions is not (that needs the
     * whole file): the verifier in rounds finds duplicate writes among the transactions it holds (A1).
     */
    public static void stream(Path path, TransactionSink sink) throws IOException, MalformedHistoryException {
        List<String> strings = new ArrayList<>();
        int[] ordinal = {0};
        parse(path, new Target() {
            // each string's hash code is computed now, while its bytes are in the cache: the verifier hashes every key, value
            // and id into its tables later, when they are not (String caches the code)
            int intern(String x) { x.hashCode(); strings.add(x); return strings.size() - 1; } // (RecentStrings computed most already)
            // a string key named again is already the string made first (RecentStrings); a numeric key, made here, is shared
            // with the operation before it when that one named it too (a read, then the write of a read-modify-write): one
            // object per key and transaction, and the verifier's comparisons of the two are identity checks
            int lastNumericKey = -1;
            public int key(String k) { lastNumericKey = -1; return intern(WireNames.of(k)); }
            public int key(long k) {
                String n = Long.toString(k);
                if (lastNumericKey >= 0 && strings.get(lastNumericKey).equals(n)) return lastNumericKey;
                return lastNumericKey = intern(n);
            }
            public int value(String v) { return intern(WireNames.of(v)); }
            public int value(long v) { return intern(Long.toString(v)); }
            public void txn(String id, String session, long sessionNum, byte status, long start, long end, int line, IntVec kinds, IntVec keys,
                            IntVec vals) {
                ordinal[0]++;
                List<TxnOp> ops = new ArrayList<>(kinds.size());
                for (int i = 0; i < kinds.size(); i++)
                    ops.add(new TxnOp(kinds.get(i) == History.WRITE, strings.get(keys.get(i)), vals.get(i) == History.NIL ? null : strings.get(vals.get(i))));
                strings.clear();
                lastNumericKey = -1;
                TxnStatus st = status == History.COMMITTED ? TxnStatus.COMMITTED : status == History.ABORTED ? TxnStatus.ABORTED : TxnStatus.UNKNOWN;
                if (id != null) id.hashCode();
                sink.accept(Transaction.newBuilder().setId(id != null ? id : Integer.toString(ordinal[0]))
                        .setSession(session != null ? WireNames.of(session) : WireNames.of(sessionNum)).setStatus(st)
                        .setStart(start == History.NO_TIME ? 0 : start).setEnd(end == History.NO_TIME ? 0 : end).setOps(ops)
                        .setSessionIndex(0).setFence(false).setEpoch(-1).build(), line);
            }
        });
    }

    /**
     * Where a parsed transaction goes: key and value ids from the target's own interning, then the whole transaction
     * (whose vectors the reader reuses for the next line once {@code txn} returns).
     */
    private interface Target {
        int key(String k);
        int key(long k);
        int value(String v);
        int value(long v);
        void txn(String id, String session, long sessionNum, byte status, long start, long end, int line, IntVec kinds, IntVec keys, IntVec vals);
    }

    /**
     * What one file's reading reuses from line to line: the strings it made ({@link RecentStrings}: keys, values, and the
     * sessions, statuses and operation kinds every transaction names; tables of 65,536 keys and 32,768 values: a TPC-C
     * round of 5,000 transactions names some 60k of each, so a held string is replaced about as soon as the transaction
     * that named it is collected, not held on into the old generation), and a line's operations (a {@link Target} is
     * done with them when {@code txn} returns).
     */
    private record Texts(RecentStrings keys, RecentStrings values, RecentStrings names, IntVec kinds, IntVec keyIds, IntVec valueIds) {
        Texts() { this(new RecentStrings(1 << 16), new RecentStrings(1 << 15), new RecentStrings(1 << 12), new IntVec(64), new IntVec(64), new IntVec(64)); }

        /** The current token's text (a string token's), from {@code table}. */
        static String of(JsonParser p, RecentStrings table) throws IOException {
            return table.of(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        }
    }

    private static void parse(Path path, Target b) throws IOException, MalformedHistoryException {
        String src = path.toString();
        Texts texts = new Texts();
        int line = 0;
        try (JsonParser p = JSON.createParser(new InputStreamReader(HistoryFormat.open(path), StandardCharsets.UTF_8))) {
            int prevEndLine = -1;
            boolean first = true;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                line = p.currentTokenLocation().getLineNr();
                try {
                    if (t != JsonToken.START_OBJECT) throw new IllegalArgumentException("expected a JSON object");
                    if (line == prevEndLine) throw new IllegalArgumentException("a second JSON object on the same line: one transaction per line");
                    parseObject(b, p, line, first, texts);
                } catch (IllegalArgumentException e) {
                    throw new MalformedHistoryException(src, "line " + line, e.getMessage());
                }
                prevEndLine = p.currentLocation().getLineNr();
                first = false;
            }
        } catch (JsonParseException e) {
            throw new MalformedHistoryException(src, "line " + e.getLocation().getLineNr(), "bad JSON: " + e.getOriginalMessage());
        }
    }

    /** One line's object; the parser is on its START_OBJECT and is left on its END_OBJECT. */
    private static void parseObject(Target b, JsonParser p, int lineNo, boolean first, Texts texts) throws IOException {
        {
            String id = null, status = null, format = null;
            boolean hasSession = false;
            long sessionNum = 0;
            String sessionStr = null;
            long start = History.NO_TIME, end = History.NO_TIME;
            IntVec kinds = null, keys = texts.keyIds(), vals = texts.valueIds();
            keys.clear();
            vals.clear();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                switch (f) {
                    case "format" -> format = p.getValueAsString();
                    case "id" -> id = scalar(p, t, "id");
                    case "session" -> {
                        hasSession = true;
                        if (t == JsonToken.VALUE_NUMBER_INT) sessionNum = p.getLongValue();
                        else if (t == JsonToken.VALUE_STRING) sessionStr = Texts.of(p, texts.names());
                        else throw new IllegalArgumentException("\"session\" must be a string or an integer");
                    }
                    case "status" -> {
                        if (t != JsonToken.VALUE_STRING) throw new IllegalArgumentException("\"status\" must be a string");
                        status = Texts.of(p, texts.names());
                    }
                    case "start" -> start = time(p, t, "start");
                    case "end" -> end = time(p, t, "end");
                    case "ops" -> {
                        if (t != JsonToken.START_ARRAY) throw new IllegalArgumentException("\"ops\" must be an array");
                        kinds = texts.kinds();
                        kinds.clear();
                        int i = 0;
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            parseOp(b, p, i++, kinds, keys, vals, texts);
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (format != null) {
                if (!first) throw new IllegalArgumentException("a header line may only be the first line");
                if (!format.equals("cobra-jsonl")) throw new IllegalArgumentException("unknown format \"" + format + "\"");
                return;
            }
            if (!hasSession) throw new IllegalArgumentException("missing \"session\"");
            if (status == null) throw new IllegalArgumentException("missing \"status\"");
            if (kinds == null) throw new IllegalArgumentException("missing \"ops\"");
            byte st = switch (status) {
                case "committed" -> History.COMMITTED;
                case "aborted" -> History.ABORTED;
                case "unknown" -> History.UNKNOWN;
                default -> throw new IllegalArgumentException("unknown status \"" + status + "\" (expected committed, aborted or unknown)");
            };
            b.txn(id, sessionStr, sessionNum, st, start, end, lineNo, kinds, keys, vals);
        }
    }

    private static void parseOp(Target b, JsonParser p, int i, IntVec kinds, IntVec keys, IntVec vals, Texts texts) throws IOException {
        // (the place named only when there is something wrong: built eagerly, it was 2.6% of a TPC-C check's allocation)
        if (p.currentToken() != JsonToken.START_ARRAY) throw new IllegalArgumentException(at(i) + "an operation must be an array [f, key, value]");
        JsonToken t = p.nextToken();
        if (t != JsonToken.VALUE_STRING) throw new IllegalArgumentException(at(i) + "the first element must be \"r\" or \"w\"");
        String f = Texts.of(p, texts.names());
        byte kind;
        if (f.equals("r")) kind = History.READ;
        else if (f.equals("w")) kind = History.WRITE;
        else throw new IllegalArgumentException(at(i) + "unknown operation \"" + f + "\" (expected \"r\" or \"w\")");
        t = p.nextToken();
        int key;
        if (t == JsonToken.VALUE_STRING) key = b.key(Texts.of(p, texts.keys()));
        else if (t == JsonToken.VALUE_NUMBER_INT) key = b.key(p.getLongValue());
        else throw new IllegalArgumentException(at(i) + "a key must be a string or an integer");
        t = p.nextToken();
        int val;
        if (t == JsonToken.VALUE_STRING) val = b.value(Texts.of(p, texts.values()));
        else if (t == JsonToken.VALUE_NUMBER_INT) val = b.value(p.getLongValue());
        else if (t == JsonToken.VALUE_NULL) {
            if (kind == History.WRITE) throw new IllegalArgumentException(at(i) + "a write needs a value (null is only for reads)");
            val = History.NIL;
        } else if (t == JsonToken.END_ARRAY) throw new IllegalArgumentException(at(i) + "an operation needs 3 elements [f, key, value]");
        else throw new IllegalArgumentException(at(i) + "a value must be a string, an integer or null");
        if (p.nextToken() != JsonToken.END_ARRAY) throw new IllegalArgumentException(at(i) + "an operation has exactly 3 elements [f, key, value]");
        kinds.add(kind);
        keys.add(key);
        vals.add(val);
    }

    /** Where operation {@code i} of a transaction is, for an error message. */
    private static String at(int i) { return "op " + i + ": "; }

    private static String scalar(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT) return p.getText();
        throw new IllegalArgumentException("\"" + field + "\" must be a string or an integer");
    }

    private static long time(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_NULL) return History.NO_TIME;
        if (t != JsonToken.VALUE_NUMBER_INT) throw new IllegalArgumentException("\"" + field + "\" must be an integer (nanoseconds)");
        return p.getLongValue();
    }
}
