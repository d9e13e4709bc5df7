package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Step 1: ties every external read to the write it observed, via the unique (key, value) of each write.
 *
 * <p>After construction: {@link #included} marks the transactions the checker reasons about (committed
 * ones, plus transactions of unknown outcome whose writes some included read observed); every external
 * read of an included transaction is listed once with its writer ({@link #INIT} for the initial state);
 * every "immediately follows" fact about a key's version order is listed (a read-modify-write: T reads x
 * from T' and writes x; a list read: consecutive appenders); and {@link #anomalies} holds the immediate
 * rejections: reads of unwritten values, G1a, G1b, internal inconsistencies, incompatible list orders.
 * A transaction's external read of a key is its first read of that key before writing it; later reads
 * are checked against it (or against its own write) and produce no edge; at read committed (not {@code repeatable}),
 * every read that is not internal is an external read of its own, and so is every list read, own appends or not (its
 * external part, the list less the transaction's own appends at its end: docs/DESIGN.md §11.1). A list read observes
 * every appender whose element it contains: the last is its writer, the others are listed as {@link #obsWriter}.
 *
 * <p>docs/DESIGN.md §1.1 and §4, step 1.
 */
public final class ReadFromIndex {
    /** The writer of the initial state, T⊥. */
    public static final int INIT = -1;
    /**
     * Kinds of "immediately follows" facts: a read-modify-write; a list read's consecutive appenders; a list read's own
     * appends right after what it read (which fixes the version order only where a transaction's writes must follow its
     * snapshot: snapshot isolation and above, not at read committed, read atomic or causal).
     */
    public static final int FACT_RMW = 0, FACT_LIST = 1, FACT_OWN = 2;
    private static final int MAX_ANOMALIES = 100;

    final History h;
    final int[] opTxn;
    final boolean[] finalWrite;
    final boolean[] included;
    final IntVec readTxn = new IntVec(), readKey = new IntVec(), readWriter = new IntVec(), readOp = new IntVec();
    final IntVec factKey = new IntVec(), factPred = new IntVec(), factSucc = new IntVec(), factKind = new IntVec(), factOp = new IntVec();
    /**
     * The other writers a list read observed (each appender whose element the list holds, but the last, which is the read's
     * writer): {@code obsRead[i]}, an index into the read lists, observed {@code obsWriter[i]}; in the order of the reads.
     */
    final IntVec obsRead = new IntVec(), obsWriter = new IntVec();
    final List<Anomaly> anomalies = new ArrayList<>();

    private final LongIntMap writerOp;
    private final int[] appendOrdinal; // for APPEND ops: 0-based position among its txn's appends to that key
    private final int[] appendTotal;   // for final APPEND ops: how many appends its txn made to that key
    // per-key scratch state of the transaction being processed, valid where stamp[k] == t + 1
    private final int[] stamp, state, extWriter, curValue, appendsSoFar, prefixLen, prefixLast, prefixOp;
    private static final int S_READ = 1, S_WROTE = 2;

    /** Whether a transaction's external reads of one key must agree (every level above read committed); false lists each differing read. */
    private final boolean repeatable;

    public ReadFromIndex(History h) { this(h, true); }

    /**
     * As above; with {@code repeatable} false (read committed), a second read of a key that returns another version, with no
     * write of the key by the transaction before it, is an external read of its own (listed, with its writer) rather than
     * an anomaly.
     */
    public ReadFromIndex(History h, boolean repeatable) {
        this.h = h;
        this.repeatable = repeatable;
        int n = h.size(), ops = h.opCount(), keys = h.keyCount();
        opTxn = new int[ops];
        finalWrite = new boolean[ops];
        appendOrdinal = new int[ops];
        appendTotal = new int[ops];
        writerOp = new LongIntMap(Math.max(16, ops));
        stamp = new int[keys];
        state = new int[keys];
        extWriter = new int[keys];
        curValue = new int[keys];
        appendsSoFar = new int[keys];
        prefixLen = new int[keys];
        prefixLast = new int[keys];
        prefixOp = new int[keys];
        for (int t = 0; t < n; t++) {
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                opTxn[op] = t;
                byte k = h.kind(op);
                if (k == History.WRITE || k == History.APPEND) {
                    writerOp.put(pack(h.key(op), h.value(op)), op);
                    if (k == History.APPEND) {
                        int key = h.key(op);
                        if (stamp[key] != t + 1) { stamp[key] = t + 1; appendsSoFar[key] = 0; }
                        appendOrdinal[op] = appendsSoFar[key]++;
                    }
                }
            }
            // final writes: the last write/append of each key in the transaction
            for (int op = h.opEnd(t) - 1; op >= h.opStart(t); op--) {
                byte k = h.kind(op);
                if (k != History.WRITE && k != History.APPEND) continue;
                int key = h.key(op);
                if (stamp[key] == -(t + 1)) continue;
                stamp[key] = -(t + 1);
                finalWrite[op] = true;
                appendTotal[op] = appendOrdinal[op] + 1;
            }
        }
        Arrays.fill(stamp, 0);
        included = new boolean[n];
        for (int t = 0; t < n; t++) if (h.status(t) == History.COMMITTED) included[t] = true;
        // committed transactions in input order (nicer certificates), then unknown ones as reads promote them
        for (int t = 0; t < n; t++) if (h.status(t) == History.COMMITTED) process(t);
        while (!pendingPromotions.isEmpty()) process(pendingPromotions.pop());
    }

    /** Transactions of unknown outcome that an included read observed, not yet processed. */
    private final IntVec pendingPromotions = new IntVec();

    static long pack(int key, int value) { return LongIntMap.pack(key, value); }

    /** The transaction that wrote ({@code key}, {@code value}) in the history, or -1 (reads of it are not looked at). */
    int writerOf(int key, int value) {
        int w = writerOp.get(pack(key, value));
        return w == LongIntMap.MISSING ? -1 : opTxn[w];
    }

    /** Number of transactions the checker reasons about. */
    public int includedCount() {
        int c = 0;
        for (boolean b : included) if (b) c++;
        return c;
    }

    public List<Anomaly> anomalies() { return anomalies; }

    private void anomaly(AnomalyKind kind, String text, int[] txns, int[] ops) {
        if (anomalies.size() < MAX_ANOMALIES) anomalies.add(new Anomaly(kind, text, txns, ops));
    }

    private String tx(int t) { return h.label(t); }

    private void process(int t) {
        int mark = t + 1;
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int key = h.key(op);
            if (stamp[key] != mark) {
                stamp[key] = mark;
                state[key] = 0;
                appendsSoFar[key] = 0;
                extWriter[key] = Integer.MIN_VALUE;
            }
            switch (h.kind(op)) {
                case History.WRITE, History.APPEND -> {
                    if ((state[key] & S_WROTE) == 0 && (state[key] & S_READ) != 0 && extWriter[key] != Integer.MIN_VALUE) {
                        fact(key, extWriter[key], t, FACT_RMW, op);
                    }
                    state[key] |= S_WROTE;
                    curValue[key] = h.value(op);
                    if (h.kind(op) == History.APPEND) appendsSoFar[key]++;
                }
                case History.READ -> registerRead(t, op, key);
                default -> listRead(t, op, key);
            }
        }
    }

    private void registerRead(int t, int op, int key) {
        int v = h.value(op);
        if ((state[key] & S_WROTE) != 0) {
            if (v != curValue[key]) {
                anomaly(AnomalyKind.INTERNAL, tx(t) + " wrote " + h.describeOp(lastWriteBefore(t, op, key)) + " but then read " + h.describeOp(op)
                        + ": a transaction must see its own writes", new int[] {t}, new int[] {lastWriteBefore(t, op, key), op});
            }
            return;
        }
        if ((state[key] & S_READ) != 0 && repeatable) {
            if (v != curValue[key]) {
                anomaly(AnomalyKind.NON_REPEATABLE_READ, tx(t) + " read key " + History.show(h.keyName(key)) + " twice with different results ("
                        + History.show(h.valueName(curValue[key])) + ", then " + History.show(h.valueName(v)) + ") and no write in between",
                        new int[] {t}, new int[] {op});
            }
            return;
        }
        // (read committed: every external read is an event of its own, at its place in program order, even one that repeats a value)
        state[key] |= S_READ;
        curValue[key] = v;
        extWriter[key] = resolve(t, op, key, v, true);
    }

    /** Resolves an external read of (key, v); records it and returns the writer, or MIN_VALUE if it is an anomaly. */
    private int resolve(int t, int op, int key, int v, boolean requireFinal) {
        if (v == History.NIL) {
            record(t, key, INIT, op);
            return INIT;
        }
        int w = writerOp.get(pack(key, v));
        if (w == LongIntMap.MISSING) {
            anomaly(AnomalyKind.UNWRITTEN_READ, tx(t) + " read " + h.describeOp(op) + ", a value no transaction wrote",
                    new int[] {t}, new int[] {op});
            return Integer.MIN_VALUE;
        }
        int wt = opTxn[w];
        if (wt == t) {
            anomaly(AnomalyKind.INTERNAL, tx(t) + " read " + h.describeOp(op) + " before writing that value itself",
                    new int[] {t}, new int[] {op, w});
            return Integer.MIN_VALUE;
        }
        if (h.status(wt) == History.ABORTED) {
            anomaly(AnomalyKind.G1A, tx(t) + " read " + h.describeOp(op) + ", written by " + tx(wt) + ", which aborted",
                    new int[] {wt, t}, new int[] {w, op});
            return Integer.MIN_VALUE;
        }
        if (requireFinal && !finalWrite[w]) {
            anomaly(AnomalyKind.G1B, tx(t) + " read " + h.describeOp(op) + ", an intermediate value: " + tx(wt)
                    + " overwrote it before committing", new int[] {wt, t}, new int[] {w, op});
            return Integer.MIN_VALUE;
        }
        promote(wt);
        record(t, key, wt, op);
        return wt;
    }

    private void promote(int wt) {
        if (!included[wt] && h.status(wt) == History.UNKNOWN) {
            included[wt] = true;
            pendingPromotions.add(wt);
        }
    }

    private void record(int t, int key, int writer, int op) {
        readTxn.add(t);
        readKey.add(key);
        readWriter.add(writer);
        readOp.add(op);
    }

    private void fact(int key, int pred, int succ, int kind, int op) {
        factKey.add(key);
        factPred.add(pred);
        factSucc.add(succ);
        factKind.add(kind);
        factOp.add(op);
    }

    private int lastWriteBefore(int t, int op, int key) {
        for (int o = op - 1; o >= h.opStart(t); o--)
            if (h.key(o) == key && (h.kind(o) == History.WRITE || h.kind(o) == History.APPEND)) return o;
        return op;
    }

    /** Whether the first {@code m} elements of {@code list} are exactly what this transaction's earlier list read of {@code key} saw of others. */
    private boolean samePrefix(int[] list, int m, int key) {
        if (m != prefixLen[key]) return false;
        int[] earlier = h.listValues(prefixOp[key]);
        for (int i = 0; i < m; i++) if (list[i] != earlier[i]) return false;
        return true;
    }

    /** The first {@code m} elements of {@code list} as text, e.g. {@code [1 2]}. */
    private String prefixText(int[] list, int m) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < m; i++) sb.append(i > 0 ? " " : "").append(History.show(h.valueName(list[i])));
        return sb.append(']').toString();
    }

    private void listRead(int t, int op, int key) {
        int[] list = h.listValues(op);
        int own = appendsSoFar[key];
        int m = list.length - own;
        // the list must end with this transaction's own appends so far, in order
        boolean ok = m >= 0;
        for (int i = 0; ok && i < own; i++) {
            int w = writerOp.get(pack(key, list[m + i]));
            ok = w != LongIntMap.MISSING && opTxn[w] == t && appendOrdinal[w] == i;
        }
        if (!ok) {
            anomaly(AnomalyKind.INTERNAL, tx(t) + " read " + h.describeOp(op) + ", which does not end with its own "
                    + own + " append(s) to that key", new int[] {t}, new int[] {op});
            return;
        }
        if ((state[key] & S_READ) != 0 && repeatable) {
            // (read committed: each list read is an event of its own, with its own appends on top or not)
            if (!samePrefix(list, m, key)) {
                anomaly(AnomalyKind.NON_REPEATABLE_READ, tx(t) + " read key " + History.show(h.keyName(key)) + " twice with different results ("
                        + prefixText(h.listValues(prefixOp[key]), prefixLen[key]) + ", then " + prefixText(list, m) + ")"
                        + (own > 0 ? ", with only its own appends between" : " and no write in between"), new int[] {t}, new int[] {op});
            }
            return;
        }
        if ((state[key] & S_WROTE) != 0 && own == 0) {
            // wrote with a register write, then list-read: compare with its own value
            if (m == 0 || list[m - 1] != curValue[key])
                anomaly(AnomalyKind.INTERNAL, tx(t) + " read " + h.describeOp(op) + " after writing the key itself", new int[] {t}, new int[] {op});
            return;
        }
        state[key] |= S_READ;
        prefixLen[key] = m;
        prefixLast[key] = m == 0 ? History.NIL : list[m - 1];
        prefixOp[key] = op;
        if (own == 0) curValue[key] = prefixLast[key];
        if (m == 0) {
            record(t, key, INIT, op);
            extWriter[key] = INIT;
            if (own > 0) fact(key, INIT, t, FACT_OWN, op); // its own appends came first of all
            return;
        }
        // split the prefix into runs of one appender each; every run but the last is that appender's whole
        // sequence of appends, in order; the last may stop early only if it is read as an intermediate (G1b)
        int prevTxn = INIT;
        int i = 0;
        int writer = Integer.MIN_VALUE;
        HashSet<Integer> seen = new HashSet<>();
        IntVec observed = new IntVec();
        while (i < m) {
            int w = writerOp.get(pack(key, list[i]));
            if (w == LongIntMap.MISSING) {
                anomaly(AnomalyKind.UNWRITTEN_READ, tx(t) + " read " + h.describeOp(op) + ", whose element "
                        + History.show(h.valueName(list[i])) + " no transaction appended", new int[] {t}, new int[] {op});
                return;
            }
            int wt = opTxn[w];
            if (wt == t || !seen.add(wt)) {
                anomaly(AnomalyKind.INCOMPATIBLE_ORDER, tx(t) + " read " + h.describeOp(op) + ", in which the appends of "
                        + tx(wt) + " are not contiguous", new int[] {wt, t}, new int[] {op});
                return;
            }
            if (h.status(wt) == History.ABORTED) {
                anomaly(AnomalyKind.G1A, tx(t) + " read " + h.describeOp(op) + ", which holds an append by " + tx(wt) + ", which aborted",
                        new int[] {wt, t}, new int[] {w, op});
                return;
            }
            int j = i, ord = 0, lastOp = w;
            while (j < m) {
                int wj = writerOp.get(pack(key, list[j]));
                if (wj == LongIntMap.MISSING || opTxn[wj] != wt) break;
                if (appendOrdinal[wj] != ord) {
                    anomaly(AnomalyKind.INCOMPATIBLE_ORDER, tx(t) + " read " + h.describeOp(op) + ", which shows the appends of "
                            + tx(wt) + " out of order", new int[] {wt, t}, new int[] {op});
                    return;
                }
                ord++;
                lastOp = wj;
                j++;
            }
            if (!finalWrite[lastOp]) {
                boolean lastRun = j == m;
                anomaly(lastRun ? AnomalyKind.G1B : AnomalyKind.INCOMPATIBLE_ORDER, tx(t) + " read " + h.describeOp(op)
                        + (lastRun ? ", an intermediate state: " + tx(wt) + " appended more before committing"
                                   : ", in which another transaction's append falls between appends of " + tx(wt)),
                        new int[] {wt, t}, new int[] {lastOp, op});
                return;
            }
            promote(wt);
            fact(key, prevTxn, wt, FACT_LIST, op);
            if (prevTxn != INIT) observed.add(prevTxn);
            prevTxn = wt;
            writer = wt;
            i = j;
        }
        record(t, key, writer, op);
        for (int k = 0; k < observed.size(); k++) {
            obsRead.add(readTxn.size() - 1);
            obsWriter.add(observed.get(k));
        }
        extWriter[key] = writer;
        if (own > 0) fact(key, writer, t, FACT_OWN, op); // the list shows this transaction's appends right after
    }
}
