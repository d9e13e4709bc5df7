package org.cobraverify.history;

/**
 * A recorded history of transactions on a key-value store, flattened into primitive arrays.
 *
 * <p>Invariant: transactions are numbered 0..size()-1 in input order; transaction {@code t}'s
 * operations are {@code opStart(t) .. opStart(t+1)-1}, in program order; transactions of one session
 * appear in session order; every (key, value) pair is written (or appended) by at most one operation.
 * Keys, values and sessions are dense int ids; {@link #NIL} is the value of a read of the initial
 * state. A list read ({@link #READ_LIST}) carries the whole list it returned ({@link #listValues}).
 */
public final class History {
    public static final byte COMMITTED = 0, ABORTED = 1, UNKNOWN = 2;
    public static final byte READ = 0, WRITE = 1, APPEND = 2, READ_LIST = 3;
    /** The value of a read that observed a key's initial state. */
    public static final int NIL = -1;
    /** A timestamp that was not recorded. */
    public static final long NO_TIME = Long.MIN_VALUE;

    final String[] txnNames;
    final int[] txnSession;
    final byte[] txnStatus;
    final long[] txnStart, txnEnd;
    final int[] txnLine;
    final int[] opStart;
    final byte[] opKind;
    final int[] opKey, opValue;
    final int[] opListStart; // null when the history has no list reads
    final int[] listData;
    final Object[] keyNames, valueNames, sessionNames;
    /** Committed transactions whose client never learned the outcome ({@link #acknowledged}); null when there are none. */
    final boolean[] unacknowledged;

    History(String[] txnNames, int[] txnSession, byte[] txnStatus, long[] txnStart, long[] txnEnd, int[] txnLine,
            int[] opStart, byte[] opKind, int[] opKey, int[] opValue, int[] opListStart, int[] listData,
            Object[] keyNames, Object[] valueNames, Object[] sessionNames) {
        this(txnNames, txnSession, txnStatus, txnStart, txnEnd, txnLine, opStart, opKind, opKey, opValue, opListStart, listData, keyNames,
                valueNames, sessionNames, null);
    }

    History(String[] txnNames, int[] txnSession, byte[] txnStatus, long[] txnStart, long[] txnEnd, int[] txnLine,
            int[] opStart, byte[] opKind, int[] opKey, int[] opValue, int[] opListStart, int[] listData,
            Object[] keyNames, Object[] valueNames, Object[] sessionNames, boolean[] unacknowledged) {
        this.unacknowledged = unacknowledged;
        this.txnNames = txnNames; this.txnSession = txnSession; this.txnStatus = txnStatus;
        this.txnStart = txnStart; this.txnEnd = txnEnd; this.txnLine = txnLine;
        this.opStart = opStart; this.opKind = opKind; this.opKey = opKey; this.opValue = opValue;
        this.opListStart = opListStart; this.listData = listData;
        this.keyNames = keyNames; this.valueNames = valueNames; this.sessionNames = sessionNames;
    }

    public int size() { return txnSession.length; }
    public int opCount() { return opKind.length; }
    public int keyCount() { return keyNames.length; }
    public int sessionCount() { return sessionNames.length; }

    public String name(int t) { return txnNames[t]; }

    /** How certificates name a transaction: {@code T17} for a numeric id, the id itself otherwise. */
    public String label(int t) {
        String n = txnNames[t];
        return !n.isEmpty() && (Character.isDigit(n.charAt(0)) || n.charAt(0) == '-') ? "T" + n : n;
    }
    public int session(int t) { return txnSession[t]; }
    public byte status(int t) { return txnStatus[t]; }

    /**
     * Whether the client learned the transaction's outcome: false for one of {@link #UNKNOWN} outcome, and for a committed one
     * whose client never learned it (a verifier in rounds that found it committed records it so). Session order runs only
     * from an acknowledged transaction, and only an acknowledged one has an end for real time: one whose client gave up
     * may have taken effect later (docs/DESIGN.md §1.2).
     */
    public boolean acknowledged(int t) { return txnStatus[t] != UNKNOWN && (unacknowledged == null || !unacknowledged[t]); }
    public long start(int t) { return txnStart[t]; }
    public long end(int t) { return txnEnd[t]; }
    /** Line (or record number) the transaction came from in its source, or -1. */
    public int line(int t) { return txnLine[t]; }
    public int opStart(int t) { return opStart[t]; }
    public int opEnd(int t) { return opStart[t + 1]; }

    public byte kind(int op) { return opKind[op]; }
    public int key(int op) { return opKey[op]; }
    /** The value written, appended, or read (for a list read: the list's last element, or {@link #NIL}). */
    public int value(int op) { return opValue[op]; }

    public boolean hasLists() { return opListStart != null; }

    /** For a {@link #READ_LIST} op: the list it returned, in order. */
    public int[] listValues(int op) {
        int s = opListStart[op], e = opListStart[op + 1];
        int[] r = new int[e - s];
        System.arraycopy(listData, s, r, 0, r.length);
        return r;
    }

    /**
     * The sub-history of the given transactions (indexes into this history, in increasing order): same
     * ids, sessions, statuses, times and operations; the key, value and session tables are shared.
     */
    public History restrict(int[] txns) {
        int n = txns.length, ops = 0, lists = 0;
        for (int t : txns) {
            ops += opEnd(t) - opStart(t);
            if (opListStart != null) lists += opListStart[opEnd(t)] - opListStart[opStart(t)];
        }
        String[] names = new String[n];
        int[] sess = new int[n], ln = new int[n], os = new int[n + 1];
        byte[] st = new byte[n];
        long[] s0 = new long[n], e0 = new long[n];
        byte[] kind = new byte[ops];
        int[] key = new int[ops], val = new int[ops];
        int[] ls = opListStart == null ? null : new int[ops + 1];
        int[] ld = new int[lists];
        boolean[] unack = unacknowledged == null ? null : new boolean[n];
        int o = 0, l = 0;
        for (int i = 0; i < n; i++) {
            int t = txns[i];
            names[i] = txnNames[t]; sess[i] = txnSession[t]; ln[i] = txnLine[t]; st[i] = txnStatus[t];
            s0[i] = txnStart[t]; e0[i] = txnEnd[t];
            if (unack != null) unack[i] = unacknowledged[t];
            os[i] = o;
            for (int op = opStart(t); op < opEnd(t); op++, o++) {
                kind[o] = opKind[op]; key[o] = opKey[op]; val[o] = opValue[op];
                if (ls != null) {
                    ls[o] = l;
                    for (int j = opListStart[op]; j < opListStart[op + 1]; j++) ld[l++] = listData[j];
                }
            }
        }
        os[n] = o;
        if (ls != null) ls[o] = l;
        return new History(names, sess, st, s0, e0, ln, os, kind, key, val, ls, ld, keyNames, valueNames, sessionNames, unack);
    }

    public boolean hasTimestamps() {
        for (int t = 0; t < size(); t++) if (txnStart[t] != NO_TIME) return true;
        return false;
    }

    public Object keyName(int key) { return keyNames[key]; }
    public Object valueName(int value) { return value == NIL ? null : valueNames[value]; }
    public Object sessionName(int s) { return sessionNames[s]; }

    public static String statusName(byte status) {
        return status == COMMITTED ? "committed" : status == ABORTED ? "aborted" : "unknown";
    }

    /** Renders a key or value name as a user wrote it: numbers bare, strings bare unless they look numeric. */
    public static String show(Object name) {
        if (name == null) return "null";
        if (name instanceof String s) {
            if (!s.isEmpty() && (Character.isDigit(s.charAt(0)) || s.charAt(0) == '-')) return '"' + s + '"';
            return s;
        }
        return name.toString();
    }

    /** One operation as text, e.g. {@code r(x)=5}, {@code w(x)=7}, {@code r(x)=[1 2]}. */
    public String describeOp(int op) {
        String k = show(keyName(opKey[op]));
        switch (opKind[op]) {
            case READ: return "r(" + k + ")=" + show(valueName(opValue[op]));
            case WRITE: return "w(" + k + ")=" + show(valueName(opValue[op]));
            case APPEND: return "append(" + k + ", " + show(valueName(opValue[op])) + ")";
            default: {
                StringBuilder sb = new StringBuilder("r(").append(k).append(")=[");
                int[] l = listValues(op);
                for (int i = 0; i < l.length; i++) sb.append(i > 0 ? " " : "").append(show(valueName(l[i])));
                return sb.append(']').toString();
            }
        }
    }

    /** All of a transaction's operations as text, e.g. {@code [r(x)=1 w(y)=2]}. */
    public String describeOps(int t) {
        StringBuilder sb = new StringBuilder("[");
        for (int op = opStart(t); op < opEnd(t); op++) sb.append(op > opStart(t) ? " " : "").append(describeOp(op));
        return sb.append(']').toString();
    }
}
