package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.cobraverify.history.History;

/**
 * A brute-force oracle for the isolation ladder: which of the six {@link IsolationLevel}s a small history satisfies,
 * decided by enumerating every committed set and every commit order. It is written from the definitions below alone
 * and shares no code with the checker (it reads the history through {@link History}'s accessors and nothing else),
 * so that comparing the two tests the checker against an independent reading of the definitions. Its cost is
 * exponential: it is meant for histories of a handful of transactions.
 *
 * <p><b>Committed set.</b> C is the committed transactions plus some subset S of the {@link History#UNKNOWN} ones
 * ({@link History#ABORTED} ones never commit). The history satisfies a level iff C satisfies it for some S; all
 * 2<sup>u</sup> subsets are tried.
 *
 * <p><b>Reads.</b> Only the reads of transactions in C count, in program order. A read of x after a write of x by its
 * own transaction t is <i>internal</i>: it must return t's last write of x before it. Any other read is
 * <i>external</i>: NIL means it reads from the initial transaction INIT; otherwise the unique write of (x, value), by w,
 * must be w's last write of x, with w in C and w ≠ t, and the read reads from w (wr<sub>x</sub>(w, α), and w wr t at
 * transaction level). A read that breaks these rules (or returns a value nobody wrote) fails every level for this C.
 *
 * <p><b>Lists.</b> A key is either a register (written, read) or a list (appended, list-read) throughout a history; the
 * oracle refuses a history that mixes the two on one key. A list's versions are lists: a transaction's appends to x,
 * in program order, extend it, and the version order of x is co restricted to C's transactions that append x. A list
 * read of x by t ∈ C after t's own appends a<sub>1</sub>..a<sub>p</sub> of x (in order) must end with exactly them;
 * the rest of the list (all of it when p = 0) is its <i>external part</i>, and every list read is an external read event
 * of its external part, own appends or not (a statement may see a newer committed state under its own appends: the levels
 * decide whether two events of one transaction may differ, as for registers). The external part
 * v<sub>1</sub>..v<sub>m</sub> must split into maximal runs, each run all the appends to x of one transaction w ≠ t,
 * in w's program order, the runs' transactions w<sub>1</sub>..w<sub>j</sub> (in list order) distinct and in C; the
 * event reads x from w<sub>j</sub> (INIT when m = 0) for the axiom below, and it observes every one of
 * w<sub>1</sub>..w<sub>j</sub>: each w<sub>i</sub> wr t, and each counts as a writer the event saw in every premise. Anything else (an element nobody appended, an aborted or excluded appender, a run that is not all of its
 * appender's appends in order, an appender's appends split) fails every level for this C. Besides, a commit order must
 * make w<sub>1</sub>..w<sub>j</sub> exactly the first j of C's appenders of x, in that order (at every level).
 *
 * <p><b>Orders.</b> so: the order of C's transactions within one session (history order, which is session order), from
 * every transaction that is not of unknown outcome: a transaction of unknown outcome follows its session's predecessors,
 * and its session's successors need not follow it (its commit may have taken effect after they ran). A commit order co is
 * a strict total order on C ∪ {INIT}, INIT first, containing so and wr.
 *
 * <p><b>Axioms.</b> C satisfies a level iff some co makes this hold: for every external read α of t3 ∈ C reading x
 * from t1 (perhaps INIT) and every t2 ∈ C, t2 ≠ t1, that writes (or appends) x, the level's premise implies t2 co t1.
 * Premises (t2 wr β: t2 is a writer the event β observed):
 * <ul>
 *   <li>read committed: t2 wr β for an external read β of t3 before α (on any key);
 *   <li>strong session read committed: t2 so t3, or t2 wr β for an external read β of t3 before α;
 *   <li>read atomic: t2 so t3, or t2 wr t3;
 *   <li>causal: t2 (so ∪ wr)<sup>+</sup> t3;
 *   <li>snapshot isolation, either of (Prefix) some t4 ∈ C with t2 co* t4 and t4 (so ∪ wr) t3, or (Conflict) some
 *       t4 ∈ C, t4 ≠ t3, with t2 co* t4, t4 co t3, and t3, t4 both writing a common key;
 *   <li>serializable: t2 co t3;
 *   <li>strict serializable: as serializable, for a co that also orders a before b whenever end(a) + drift &lt;
 *       start(b), where a transaction without a recorded start or end lacks that time, and one of unknown outcome
 *       has no end whatever its record says (its commit may have taken effect any time after it began: docs/DESIGN.md
 *       §1.2).
 * </ul>
 * Every level is decided on its own (none is inferred from another), so that the ladder is a property to test.
 */
final class IsolationOracle {
    private IsolationOracle() {}

    /** The initial transaction, first in every commit order. */
    private static final int INIT = -1;
    private static final int LEVELS = IsolationLevel.values().length;

    /** The levels {@code h} satisfies, real-time order allowing {@code driftNanos} of clock drift. */
    static EnumSet<IsolationLevel> satisfied(History h, long driftNanos) {
        List<Integer> unknown = new ArrayList<>();
        for (int t = 0; t < h.size(); t++) if (h.status(t) == History.UNKNOWN) unknown.add(t);
        if (unknown.size() > 20) throw new IllegalArgumentException("too many unknown transactions: " + unknown.size());
        EnumSet<IsolationLevel> result = EnumSet.noneOf(IsolationLevel.class);
        for (int subset = 0; subset < 1 << unknown.size() && result.size() < LEVELS; subset++) {
            boolean[] inC = new boolean[h.size()];
            for (int t = 0; t < h.size(); t++) inC[t] = h.status(t) == History.COMMITTED;
            for (int i = 0; i < unknown.size(); i++) if ((subset >> i & 1) != 0) inC[unknown.get(i)] = true;
            Choice c = Choice.of(h, inC, driftNanos);
            if (c != null) c.searchOrders(result);
        }
        return result;
    }

    /**
     * An external read α of {@code reader} (t3) on {@code key} that reads from {@code writer} (t1, perhaps INIT);
     * {@code writersBefore[t2]} says whether t2 wr β for an external read β of the reader before α. For a list read,
     * {@code versions} are the appenders w<sub>1</sub>..w<sub>j</sub> of its external part, in list order (the last is
     * the writer), which a commit order must make the first j appenders of the key; null for a register read.
     */
    private record Read(int reader, int key, int writer, boolean[] writersBefore, int[] versions) {}

    /** One committed set C with its reads, so, wr and real-time order: the commit orders over it are searched. */
    private static final class Choice {
        private final History h;
        private final int[] members;
        private final List<Read> reads;
        /** Relations over transaction indexes (only C's entries are set). */
        private final boolean[][] so, wr, causal, realTime, commonWrite;
        /** For each key, the transactions of C that write it. */
        private final List<List<Integer>> writersOf;

        private Choice(History h, int[] members, List<Read> reads, boolean[][] so, boolean[][] wr, boolean[][] realTime,
                       boolean[][] writes) {
            this.h = h;
            this.members = members;
            this.reads = reads;
            this.so = so;
            this.wr = wr;
            this.realTime = realTime;
            int n = h.size();
            causal = new boolean[n][n];
            for (int a : members) for (int b : members) causal[a][b] = so[a][b] || wr[a][b];
            for (int k : members) for (int a : members) for (int b : members) causal[a][b] |= causal[a][k] && causal[k][b];
            commonWrite = new boolean[n][n];
            writersOf = new ArrayList<>();
            for (int x = 0; x < h.keyCount(); x++) writersOf.add(new ArrayList<>());
            for (int a : members) {
                for (int x = 0; x < h.keyCount(); x++) if (writes[a][x]) writersOf.get(x).add(a);
                for (int b : members) for (int x = 0; x < h.keyCount(); x++) commonWrite[a][b] |= writes[a][x] && writes[b][x];
            }
        }

        /** C = the transactions marked in {@code inC}, or null when one of its reads fails every level. */
        static Choice of(History h, boolean[] inC, long driftNanos) {
            int n = h.size();
            Map<Long, Integer> writeOp = new HashMap<>(), appendOp = new HashMap<>();
            int[] txnOf = new int[h.opCount()];
            boolean[] registerKey = new boolean[h.keyCount()], listKey = new boolean[h.keyCount()];
            for (int t = 0; t < n; t++) {
                for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                    txnOf[op] = t;
                    byte kind = h.kind(op);
                    if (kind == History.WRITE) writeOp.put(pair(h.key(op), h.value(op)), op);
                    if (kind == History.APPEND) appendOp.put(pair(h.key(op), h.value(op)), op);
                    (kind == History.WRITE || kind == History.READ ? registerKey : listKey)[h.key(op)] = true;
                }
            }
            for (int x = 0; x < h.keyCount(); x++) {
                if (registerKey[x] && listKey[x]) throw new IllegalArgumentException("key " + x + " is both a register and a list");
            }
            int[] members = IntStream.range(0, n).filter(t -> inC[t]).toArray();
            boolean[][] so = new boolean[n][n], wr = new boolean[n][n], realTime = new boolean[n][n], writes = new boolean[n][h.keyCount()];
            List<Read> reads = new ArrayList<>();
            for (int t : members) {
                boolean[] writersBefore = new boolean[n];
                for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                    int x = h.key(op), v = h.value(op);
                    if (h.kind(op) == History.WRITE || h.kind(op) == History.APPEND) {
                        writes[t][x] = true;
                        continue;
                    }
                    if (h.kind(op) == History.READ_LIST) {
                        int[] list = h.listValues(op), own = appendsBefore(h, t, x, op);
                        int m = list.length - own.length;
                        if (m < 0 || !Arrays.equals(Arrays.copyOfRange(list, m, list.length), own)) return null;
                        int[] external = Arrays.copyOf(list, m);
                        int[] versions = versions(h, appendOp, txnOf, inC, t, x, external);
                        if (versions == null) return null;
                        int writer = versions.length == 0 ? INIT : versions[versions.length - 1];
                        for (int w : versions) wr[w][t] = true;
                        reads.add(new Read(t, x, writer, writersBefore.clone(), versions));
                        for (int w : versions) writersBefore[w] = true;
                        continue;
                    }
                    if (writes[t][x]) { // internal: t's last write of x before it
                        if (v != lastWriteBefore(h, t, x, op)) return null;
                        continue;
                    }
                    int writer = INIT;
                    if (v != History.NIL) {
                        Integer w = writeOp.get(pair(x, v));
                        if (w == null) return null; // a value nobody wrote
                        writer = txnOf[w];
                        if (writer == t || !inC[writer] || lastWriteBefore(h, writer, x, h.opEnd(writer)) != v) return null;
                        wr[writer][t] = true;
                    }
                    reads.add(new Read(t, x, writer, writersBefore.clone(), null));
                    if (writer != INIT) writersBefore[writer] = true;
                }
            }
            for (int a : members) {
                for (int b : members) {
                    so[a][b] = a < b && h.session(a) == h.session(b) && h.status(a) != History.UNKNOWN;
                    long end = h.status(a) == History.UNKNOWN ? History.NO_TIME : h.end(a);
                    realTime[a][b] = end != History.NO_TIME && h.start(b) != History.NO_TIME && end + driftNanos < h.start(b);
                }
            }
            return new Choice(h, members, reads, so, wr, realTime, writes);
        }

        private static long pair(int key, int value) { return (long) key << 32 | (value & 0xffffffffL); }

        /**
         * The appenders w<sub>1</sub>..w<sub>j</sub> whose runs the external part {@code external} of a list read of
         * {@code x} by {@code t} splits into, or null when it does not split into whole runs of distinct transactions
         * of C other than t.
         */
        private static int[] versions(History h, Map<Long, Integer> appendOp, int[] txnOf, boolean[] inC, int t, int x,
                                      int[] external) {
            List<Integer> versions = new ArrayList<>();
            for (int i = 0; i < external.length; ) {
                Integer op = appendOp.get(pair(x, external[i]));
                if (op == null) return null; // nobody appended it
                int w = txnOf[op];
                if (w == t || !inC[w] || versions.contains(w)) return null;
                int[] run = appendsBefore(h, w, x, h.opEnd(w));
                if (i + run.length > external.length
                        || !Arrays.equals(Arrays.copyOfRange(external, i, i + run.length), run)) return null;
                versions.add(w);
                i += run.length;
            }
            return versions.stream().mapToInt(Integer::intValue).toArray();
        }

        /** The values {@code t} appends to {@code x} among its operations before {@code op}, in order. */
        private static int[] appendsBefore(History h, int t, int x, int op) {
            return IntStream.range(h.opStart(t), op).filter(o -> h.kind(o) == History.APPEND && h.key(o) == x).map(h::value).toArray();
        }

        /** The value of {@code t}'s last write of {@code x} among its operations before {@code op}, or NIL if none. */
        private static int lastWriteBefore(History h, int t, int x, int op) {
            int v = History.NIL;
            for (int o = h.opStart(t); o < op; o++) if (h.kind(o) == History.WRITE && h.key(o) == x) v = h.value(o);
            return v;
        }

        /** Adds to {@code result} the levels some commit order over C satisfies (stopping once it holds every level). */
        void searchOrders(EnumSet<IsolationLevel> result) {
            int[] pos = new int[h.size()];
            Arrays.fill(pos, -1);
            place(0, pos, result);
        }

        /** Extends the order's first {@code placed} positions in every way that keeps so ∪ wr; true once every level holds. */
        private boolean place(int placed, int[] pos, EnumSet<IsolationLevel> result) {
            if (placed == members.length) {
                for (IsolationLevel level : IsolationLevel.values()) if (!result.contains(level) && holds(level, pos)) result.add(level);
                return result.size() == LEVELS;
            }
            for (int b : members) {
                if (pos[b] >= 0) continue;
                boolean ready = true;
                for (int a : members) if ((so[a][b] || wr[a][b]) && pos[a] < 0) ready = false;
                if (!ready) continue;
                pos[b] = placed;
                boolean done = place(placed + 1, pos, result);
                pos[b] = -1;
                if (done) return true;
            }
            return false;
        }

        /** a co b, where {@code pos} places C's transactions and INIT comes first. */
        private static boolean co(int[] pos, int a, int b) { return b != INIT && (a == INIT || pos[a] < pos[b]); }

        /** Whether the commit order {@code pos} satisfies {@code level}'s axioms. */
        private boolean holds(IsolationLevel level, int[] pos) {
            if (level == IsolationLevel.STRICT_SERIALIZABLE) {
                for (int a : members) for (int b : members) if (realTime[a][b] && !co(pos, a, b)) return false;
            }
            for (Read alpha : reads) {
                if (alpha.versions() != null && !firstVersions(alpha, pos)) return false;
            }
            for (Read alpha : reads) {
                for (int t2 : writersOf.get(alpha.key())) {
                    if (t2 != alpha.writer() && premise(level, t2, alpha, pos) && !co(pos, t2, alpha.writer())) return false;
                }
            }
            return true;
        }

        /** Whether co ({@code pos}) makes the list read's appenders w<sub>1</sub>..w<sub>j</sub> the first j appenders of its key. */
        private boolean firstVersions(Read alpha, int[] pos) {
            int[] w = alpha.versions();
            for (int i = 0; i + 1 < w.length; i++) if (!co(pos, w[i], w[i + 1])) return false;
            for (int u : writersOf.get(alpha.key())) {
                boolean listed = false;
                for (int v : w) listed |= v == u;
                if (!listed && w.length > 0 && !co(pos, w[w.length - 1], u)) return false;
            }
            return true;
        }

        private boolean premise(IsolationLevel level, int t2, Read alpha, int[] pos) {
            int t3 = alpha.reader();
            return switch (level) {
                case READ_COMMITTED -> alpha.writersBefore()[t2];
                case STRONG_SESSION_READ_COMMITTED -> so[t2][t3] || alpha.writersBefore()[t2];
                case READ_ATOMIC -> so[t2][t3] || wr[t2][t3];
                case CAUSAL -> causal[t2][t3];
                case SNAPSHOT_ISOLATION -> prefix(t2, t3, pos) || conflict(t2, t3, pos);
                case SERIALIZABLE, STRICT_SERIALIZABLE -> co(pos, t2, t3);
            };
        }

        /** Some t4 ∈ C with t2 co* t4 and t4 (so ∪ wr) t3. */
        private boolean prefix(int t2, int t3, int[] pos) {
            for (int t4 : members) if ((t4 == t2 || co(pos, t2, t4)) && (so[t4][t3] || wr[t4][t3])) return true;
            return false;
        }

        /** Some t4 ∈ C, t4 ≠ t3, with t2 co* t4, t4 co t3, and t3 and t4 writing a common key. */
        private boolean conflict(int t2, int t3, int[] pos) {
            for (int t4 : members) {
                if (t4 != t3 && (t4 == t2 || co(pos, t2, t4)) && co(pos, t4, t3) && commonWrite[t3][t4]) return true;
            }
            return false;
        }
    }
}
