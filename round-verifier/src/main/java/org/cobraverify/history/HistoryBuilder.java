package org.cobraverify.history;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Accumulates a {@link History} one transaction at a time, as a reader streams its input.
 *
 * <p>Contract: calls come as {@code begin, (read|write|append|readList)*, end}, repeated. The builder
 * enforces the format's structural rules and throws {@link IllegalArgumentException} with a message
 * (and no location: the reader adds it) on a duplicate write of a (key, value) pair or a duplicate
 * transaction id.
 */
public final class HistoryBuilder {
    private final Interner keys, values, sessions;
    private final LongIntMap writeIndex; // (key,value) -> txn
    /** The transactions' ids: the i-th begun has id i here (an open-addressing table: a map of boxed indexes was 2% of a TPC-C round). */
    private final Interner ids;
    private final Map<String, Integer> index;

    private String[] names;
    private final IntVec session, line, opStart;
    private byte[] status;
    private long[] start, end;
    private byte[] kind;
    private final IntVec key, value;
    private IntVec listStart; // created on the first list read
    private final IntVec listData = new IntVec();
    private int n = 0;
    private boolean open = false;

    public HistoryBuilder() { this(64, 256); }

    /** A builder sized for about {@code txns} transactions and {@code ops} operations (it grows past them). */
    public HistoryBuilder(int txns, int ops) { this(txns, ops, new Interner(Math.max(256, ops) / 2), new Interner(Math.max(256, ops))); }

    /**
     * As above, interning keys and values into {@code keys} and {@code values}, which may hold names already (ids given
     * out earlier stay valid: a caller may pass them to {@link #read} and {@link #write} without asking again). The
     * history's key and value ids are the tables' ids, so it has as many keys and values as the tables. Sessions are named
     * as {@code keys} names its texts ({@link Interner#sibling}).
     */
    public HistoryBuilder(int txns, int ops, Interner keys, Interner values) {
        txns = Math.max(64, txns);
        ops = Math.max(256, ops);
        this.keys = keys;
        this.values = values;
        sessions = keys.sibling(64);
        writeIndex = new LongIntMap(ops / 2);
        ids = new Interner(txns);
        index = new IndexView();
        names = new String[txns];
        session = new IntVec(txns);
        line = new IntVec(txns);
        opStart = new IntVec(txns);
        status = new byte[txns];
        start = new long[txns];
        end = new long[txns];
        kind = new byte[ops];
        key = new IntVec(ops);
        value = new IntVec(ops);
    }

    public int key(long k) { return keys.of(k); }
    public int key(String k) { return keys.of(k); }
    public int value(long v) { return values.of(v); }
    public int value(String v) { return values.of(v); }
    public int session(long s) { return sessions.of(s); }
    public int session(String s) { return sessions.of(s); }

    /**
     * A session of its own, named {@code name} (for reports) but never found by name: no input's session, however named, is
     * merged with it, and making one costs no lookup (a round adds thousands of synthetic writers, each alone in its session).
     */
    public int freshSession(String name) { return sessions.fresh(name); }

    /**
     * Each transaction begun so far, by id, with its index (a read-only view that follows later {@link #begin}s): what a
     * caller that names transactions by id needs, without a map of its own.
     */
    public Map<String, Integer> index() { return index; }

    /** {@link #index}: the transactions' ids as a read-only map, looked up in {@code ids}. */
    private final class IndexView extends AbstractMap<String, Integer> {
        @Override
        public Integer get(Object k) {
            int i = k instanceof String s ? ids.find(s) : -1;
            return i < 0 ? null : i;
        }

        @Override
        public boolean containsKey(Object k) { return get(k) != null; }

        @Override
        public int size() { return n; }

        @Override
        public Set<Map.Entry<String, Integer>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public int size() { return n; }

                @Override
                public Iterator<Map.Entry<String, Integer>> iterator() {
                    return new Iterator<>() {
                        private int i;

                        @Override
                        public boolean hasNext() { return i < n; }

                        @Override
                        public Map.Entry<String, Integer> next() {
                            if (i >= n) throw new java.util.NoSuchElementException();
                            int at = i++;
                            return new AbstractMap.SimpleImmutableEntry<>(names[at], at);
                        }
                    };
                }
            };
        }
    }

    /** Number of transactions begun so far. */
    public int size() { return n; }

    /**
     * Starts a transaction. {@code id} may be null (then the 1-based ordinal is the name).
     * {@code start}/{@code end} may be {@link History#NO_TIME}; {@code line} may be -1.
     */
    public void begin(String id, int sessionId, byte txnStatus, long startTime, long endTime, int sourceLine) {
        if (open) throw new IllegalStateException("begin inside a transaction");
        String name = id != null ? id : Integer.toString(n + 1);
        int prev = ids.of(name); // n when it is new (the i-th begun has id i)
        if (prev != n) throw new IllegalArgumentException("duplicate transaction id " + name
                + (line.get(prev) >= 0 ? " (first at line " + line.get(prev) + ")" : ""));
        if (n == names.length) {
            names = Arrays.copyOf(names, n * 2);
            status = Arrays.copyOf(status, n * 2);
            start = Arrays.copyOf(start, n * 2);
            end = Arrays.copyOf(end, n * 2);
        }
        names[n] = name;
        status[n] = txnStatus;
        start[n] = startTime;
        end[n] = endTime;
        session.add(sessionId);
        line.add(sourceLine);
        opStart.add(key.size());
        n++;
        open = true;
    }

    /**
     * Begins a copy of transaction {@code t} of register history {@code h} (same id, session, status and times; keys,
     * values and sessions by name, integers as integers and strings as strings; no line) with its operations: the caller
     * may add more, then {@link #end}s it.
     */
    public void beginCopyOf(History h, int t) { copy(h, t, h::value, false); }

    /** As {@link #beginCopyOf(History, int)}, each operation {@code op} with the value id (of {@code h}) {@code valueOf} gives. */
    public void beginCopyOf(History h, int t, java.util.function.IntUnaryOperator valueOf) { copy(h, t, valueOf, false); }

    /**
     * As {@link #beginCopyOf(History, int, java.util.function.IntUnaryOperator)}, with every key, value and session named by
     * its text: {@code 1} and {@code "1"} become one name. For generators that add operations by name to a copy (a simulated
     * store names by integers, the shapes by strings); never for a history a user gave.
     */
    public void beginCopyAsText(History h, int t, java.util.function.IntUnaryOperator valueOf) { copy(h, t, valueOf, true); }

    /** As {@link #beginCopyAsText(History, int, java.util.function.IntUnaryOperator)}, with the values {@code h} has. */
    public void beginCopyAsText(History h, int t) { copy(h, t, h::value, true); }

    private void copy(History h, int t, java.util.function.IntUnaryOperator valueOf, boolean asText) {
        java.util.function.UnaryOperator<Object> name = asText ? String::valueOf : x -> x;
        begin(h.name(t), session(name.apply(h.sessionName(h.session(t)))), h.status(t), h.start(t), h.end(t), -1);
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int k = key(name.apply(h.keyName(h.key(op)))), v = valueOf.applyAsInt(op);
            if (h.kind(op) == History.WRITE) write(k, value(name.apply(h.valueName(v))));
            else read(k, v == History.NIL ? History.NIL : value(name.apply(h.valueName(v))));
        }
    }

    /** The id of a key named {@code name} as a history names it: a {@code Long} (an integer) or a {@code String}. */
    public int key(Object name) { return name instanceof Long l ? key(l.longValue()) : key(String.valueOf(name)); }

    /** The id of a value named {@code name} ({@code Long} or {@code String}). */
    public int value(Object name) { return name instanceof Long l ? value(l.longValue()) : value(String.valueOf(name)); }

    /** The id of a session named {@code name} ({@code Long} or {@code String}). */
    public int session(Object name) { return name instanceof Long l ? session(l.longValue()) : session(String.valueOf(name)); }

    /** Committed transactions whose client never learned the outcome (created on the first, {@link #unacknowledged}). */
    private IntVec unacknowledged;

    /**
     * Marks the transaction being built (committed) as one whose client never learned the outcome: a verifier that found it
     * committed says so, and session order does not run from it ({@link History#acknowledged}).
     */
    public void unacknowledged() {
        if (unacknowledged == null) unacknowledged = new IntVec();
        unacknowledged.add(n - 1);
    }

    /** Changes the status of the transaction being built (Jepsen learns it at completion). */
    public void setStatus(byte txnStatus) { status[n - 1] = txnStatus; }

    public void read(int k, int v) { op(History.READ, k, v); }

    public void write(int k, int v) { registerWrite(k, v, "write"); op(History.WRITE, k, v); }

    public void append(int k, int v) { registerWrite(k, v, "append"); op(History.APPEND, k, v); }

    /** A read of a list-append key that returned {@code list} (empty: the initial state). */
    public void readList(int k, int[] list) {
        if (listStart == null) { // from now on every op has a list start; earlier ops have empty lists
            listStart = new IntVec(key.size() + 16);
            for (int i = 0; i < key.size(); i++) listStart.add(0);
        }
        op(History.READ_LIST, k, list.length == 0 ? History.NIL : list[list.length - 1]);
        for (int x : list) listData.add(x);
    }

    private void registerWrite(int k, int v, String what) {
        long packed = LongIntMap.pack(k, v);
        int prev = writeIndex.get(packed);
        if (prev != LongIntMap.MISSING) {
            throw new IllegalArgumentException("duplicate " + what + " of value " + History.show(values.name(v))
                    + " to key " + History.show(keys.name(k)) + " (already written by transaction " + names[prev]
                    + (line.get(prev) >= 0 ? " at line " + line.get(prev) : "") + ")");
        }
        writeIndex.put(packed, n - 1);
    }

    private void op(byte kd, int k, int v) {
        if (!open) throw new IllegalStateException("operation outside a transaction");
        int i = key.size();
        if (i == kind.length) kind = Arrays.copyOf(kind, i * 2);
        kind[i] = kd;
        key.add(k);
        value.add(v);
        if (listStart != null) listStart.add(listData.size());
    }

    public void end() {
        if (!open) throw new IllegalStateException("end outside a transaction");
        open = false;
    }

    public History build() {
        if (open) throw new IllegalStateException("build inside a transaction");
        int ops = key.size();
        int[] os = Arrays.copyOf(opStart.raw(), n + 1);
        os[n] = ops;
        int[] ls = null;
        if (listStart != null) {
            ls = Arrays.copyOf(listStart.raw(), ops + 1);
            ls[ops] = listData.size();
        }
        boolean[] unack = null;
        if (unacknowledged != null) {
            unack = new boolean[n];
            for (int i = 0; i < unacknowledged.size(); i++) unack[unacknowledged.get(i)] = true;
        }
        return new History(Arrays.copyOf(names, n), session.toArray(), Arrays.copyOf(status, n),
                Arrays.copyOf(start, n), Arrays.copyOf(end, n), line.toArray(), os, Arrays.copyOf(kind, ops),
                key.toArray(), value.toArray(), ls, listData.toArray(), keys.names(), values.names(), sessions.names(), unack);
    }
}
