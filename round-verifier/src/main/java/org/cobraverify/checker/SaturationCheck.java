package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.solver.Budget;

/**
 * Read committed, read atomic and causal consistency, decided by saturation (docs/DESIGN.md §11.3): no search.
 *
 * <p>Each of the three levels says, for every external read of a key x from T1 by T3 and every other writer T2 of x
 * that T3 "sees" by the level's premise, that T2 commits before T1. The premises depend only on session order,
 * read-from and program order, never on the commit order sought, so one pass derives every forced edge, and the level
 * holds iff session order, read-from, the version orders list reads show, and the derived edges together are acyclic
 * (a topological order is then a commit order satisfying every axiom). Premises: read committed, T2 wrote what an
 * earlier read of T3 saw; strong session read committed, that or T2 ran earlier in T3's session; read atomic, T2 ran
 * earlier in T3's session or T3 read anything from T2; causal, T2 is in T3's causal past (session order and read-from, transitively), found with one
 * vector clock per transaction over the sessions. Of a session's writers of x that T3 sees, only the last can matter
 * (the earlier ones precede it in session order), so each read costs one binary search per session that wrote x.
 *
 * <p>Session order runs from every transaction that is not of unknown outcome (docs/DESIGN.md §1.2): a transaction of
 * unknown outcome follows its session's predecessors, and nothing follows it by session order. So the index of writers
 * puts each included one of unknown outcome in a session of its own ({@link #writerSession}), where no session premise
 * finds it and a vector clock counts it on its own. A list read observes every appender in it (§11.1): the appenders
 * before its writer ({@code ReadFromIndex.obsWriter}) count as read, for every premise, and in the causal past.
 */
final class SaturationCheck {
    /** Why a derived edge holds, weakest level first: T2 was read earlier in the transaction, ran earlier in the session, was read at all, or is in the causal past. */
    private static final int BY_EARLIER_READ = 0, BY_SESSION = 1, BY_READ = 2, BY_CAUSAL_PAST = 3;
    private static final int INIT = ReadFromIndex.INIT;

    private final History h;
    private final IsolationLevel level;
    private final Budget budget;
    private ReadFromIndex rf;
    private KnownGraph g;
    /** Per derived edge (its deriv id): the read that forced it, why T2 was seen, and the read or transaction that showed T2. */
    private final IntVec whyRead = new IntVec(), whyPremise = new IntVec(), whyVia = new IntVec();
    /**
     * Session position of each included transaction, and its session predecessor: the last included transaction before it
     * in its session that is not of unknown outcome (or -1).
     */
    private int[] pos, sessionPred;
    /**
     * The session each included writer is indexed under: its own, or, for a transaction of unknown outcome, a session of its
     * own numbered from {@code h.sessionCount()} (its position there 0); {@link #writerSessions} of them in all.
     */
    private int[] writerSession;
    private int writerSessions;
    /** Per key: the included writers sorted by (session, position): {@code writersOf[keyStart[k] .. keyStart[k+1]-1]}. */
    private int[] keyStart, writersOf;
    /** Beside {@link #writersOf}: each writer's (session, position) packed, so a binary search reads one array. */
    private long[] writerPlace;
    /** (transaction, key) pairs written by included transactions. */
    private LongIntMap writes;
    /** Per transaction: its external reads (indexes into rf's read lists), in program order. */
    private int[] readStart, readsOf;
    /** Per read: the other writers it observed, {@code rf.obsWriter[obsStart[i] .. obsStart[i+1]-1]} (a list read's earlier appenders). */
    private int[] obsStart;
    /** A violation through the initial state (T2 seen, but T3 read x's initial version): the derived edge's id, or -1. */
    private int initViolation = -1, initWriter = -1;

    private SaturationCheck(History h, IsolationLevel level, Budget budget) {
        if (level.ordinal() > IsolationLevel.CAUSAL.ordinal()) throw new IllegalArgumentException("saturation decides rc, ra and cc, not " + level);
        this.h = h;
        this.level = level;
        this.budget = budget;
    }

    static Verdict check(History h, IsolationLevel level, Budget budget) {
        return Isolation.decide(h, new CheckStats(), stats -> new SaturationCheck(h, level, budget).run(stats));
    }

    private Verdict run(CheckStats stats) {
        rf = new ReadFromIndex(h, level.implies(IsolationLevel.READ_ATOMIC));
        stats.included = rf.includedCount();
        if (!rf.anomalies.isEmpty()) return reject(stats, new CertificateBuilder(h, null).anomaly(rf.anomalies));
        int n = h.size();
        indexWriters();
        indexReads();
        g = new KnownGraph(n, (int) Math.min(2L * (n + h.opCount()), 1 << 24));
        sessionEdges();
        for (int i = 0; i < rf.readKey.size(); i++) {
            int w = rf.readWriter.get(i);
            if (w != INIT) g.add(w, rf.readTxn.get(i), KnownGraph.WR, rf.readKey.get(i));
        }
        for (int i = 0; i < rf.obsRead.size(); i++) {
            int r = rf.obsRead.get(i);
            g.add(rf.obsWriter.get(i), rf.readTxn.get(r), KnownGraph.WR, rf.readKey.get(r));
        }
        Anomaly listOrder = listOrders();
        if (listOrder != null) return reject(stats, new CertificateBuilder(h, null).anomaly(List.of(listOrder)));
        budget.check();
        switch (level) {
            case READ_COMMITTED, STRONG_SESSION_READ_COMMITTED, READ_ATOMIC -> derivePerTransaction();
            default -> {
                int[] topo = CycleFinder.topologicalOrder(g, g.outCsr(), rf.included, null);
                if (topo == null) return reject(stats, cycleCertificate());
                if (!deriveCausal(topo)) return new Verdict(Verdict.Outcome.UNKNOWN, null, null, "the causal check needs one vector clock of "
                        + h.sessionCount() + " sessions per transaction, " + n + " of them: more than the heap allows", stats, List.of());
            }
        }
        stats.knownEdges = g.edgeCount();
        if (initViolation >= 0) return reject(stats, initCertificate());
        budget.check();
        int[] order = CycleFinder.topologicalOrder(g, g.outCsr(), rf.included, null);
        if (order == null) return reject(stats, cycleCertificate());
        return new Verdict(Verdict.Outcome.ACCEPT, null, order, null, stats, List.of());
    }

    private static Verdict reject(CheckStats stats, Certificate c) {
        return new Verdict(Verdict.Outcome.REJECT, c, null, null, stats, List.of());
    }

    // ---- indexes ----

    /** Included writers per key, sorted by (session, position), and the set of (writer, key) pairs. */
    private void indexWriters() {
        int n = h.size(), keys = h.keyCount();
        pos = new int[n];
        sessionPred = new int[n];
        Arrays.fill(sessionPred, -1);
        int[] count = new int[h.sessionCount()], last = new int[h.sessionCount()];
        Arrays.fill(last, -1);
        writerSession = new int[n];
        writerSessions = h.sessionCount();
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) continue;
            int s = h.session(t);
            pos[t] = count[s]++;
            sessionPred[t] = last[s];
            writerSession[t] = s;
            if (h.acknowledged(t)) last[s] = t;
            else writerSession[t] = writerSessions++;
        }
        // rc and ra ask whether a seen transaction wrote a key; causal needs no such index
        writes = level != IsolationLevel.CAUSAL ? new LongIntMap(Math.max(16, h.opCount())) : null;
        int[] lastWriterOfKey = new int[keys]; // t + 1 of the transaction that last wrote each key, in this loop
        keyStart = new int[keys + 1];
        IntVec wt = new IntVec(), wk = new IntVec();
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                byte k = h.kind(op);
                if ((k == History.WRITE || k == History.APPEND) && lastWriterOfKey[h.key(op)] != t + 1) {
                    lastWriterOfKey[h.key(op)] = t + 1;
                    if (writes != null) writes.put(LongIntMap.pack(t, h.key(op)), 1);
                    wt.add(t);
                    wk.add(h.key(op));
                    keyStart[h.key(op) + 1]++;
                }
            }
        }
        for (int k = 0; k < keys; k++) keyStart[k + 1] += keyStart[k];
        // counting sort by key, then by session within each key (stable: positions ascend with t)
        long[] packed = new long[wt.size()];
        int[] fill = Arrays.copyOf(keyStart, keys);
        for (int i = 0; i < wt.size(); i++) packed[fill[wk.get(i)]++] = ((long) writerSession[wt.get(i)] << 32) | wt.get(i);
        for (int k = 0; k < keys; k++) Arrays.sort(packed, keyStart[k], keyStart[k + 1]);
        writersOf = new int[packed.length];
        writerPlace = new long[packed.length];
        for (int i = 0; i < packed.length; i++) {
            int w = (int) packed[i];
            writersOf[i] = w;
            writerPlace[i] = ((long) writerSession[w] << 32) | place(w);
        }
    }

    /** {@code t}'s position in its writer session: its session position, or 0 in a session of its own (unknown outcome). */
    private int place(int t) { return writerSession[t] == h.session(t) ? pos[t] : 0; }

    /** Each transaction's external reads, in program order (the index lists them transaction by transaction). */
    private void indexReads() {
        int n = h.size(), r = rf.readTxn.size();
        readStart = new int[n + 1];
        for (int i = 0; i < r; i++) readStart[rf.readTxn.get(i) + 1]++;
        for (int t = 0; t < n; t++) readStart[t + 1] += readStart[t];
        int[] fill = Arrays.copyOf(readStart, n);
        readsOf = new int[r];
        for (int i = 0; i < r; i++) readsOf[fill[rf.readTxn.get(i)]++] = i;
        obsStart = new int[r + 1]; // (obsRead ascends: the index lists them read by read)
        for (int o = 0; o < rf.obsRead.size(); o++) obsStart[rf.obsRead.get(o) + 1]++;
        for (int i = 0; i < r; i++) obsStart[i + 1] += obsStart[i];
    }

    private void sessionEdges() {
        for (int t = 0; t < h.size(); t++) if (sessionPred[t] >= 0) g.add(sessionPred[t], t, KnownGraph.SO, -1);
    }

    /**
     * The version orders list reads show: each key's facts form one chain from the initial state (every read list is a
     * prefix of the key's history); a chain edge joins consecutive appenders, and every other appender comes after the
     * chain's last. Returns an anomaly when two reads disagree.
     */
    private Anomaly listOrders() {
        if (!h.hasLists()) return null;
        LongIntMap succ = new LongIntMap(16), pred = new LongIntMap(16);
        IntVec chainKeys = new IntVec();
        for (int i = 0; i < rf.factKey.size(); i++) {
            if (rf.factKind.get(i) != ReadFromIndex.FACT_LIST) continue;
            int k = rf.factKey.get(i), p = rf.factPred.get(i), s = rf.factSucc.get(i);
            int had = succ.get(LongIntMap.pack(k, p + 1)), hadPred = pred.get(LongIntMap.pack(k, s)) - 1; // values + 1: INIT is -1, as MISSING
            if (had == LongIntMap.MISSING) {
                succ.put(LongIntMap.pack(k, p + 1), s);
                if (p == INIT) chainKeys.add(k);
            }
            if (hadPred == LongIntMap.MISSING - 1) pred.put(LongIntMap.pack(k, s), p + 1);
            if ((had != LongIntMap.MISSING && had != s) || (hadPred != LongIntMap.MISSING - 1 && hadPred != p)) {
                int other = had != LongIntMap.MISSING && had != s ? had : hadPred;
                return new Anomaly(AnomalyKind.INCOMPATIBLE_ORDER, "reads of key " + History.show(h.keyName(k)) + " disagree on its order: "
                        + (p == INIT ? "the initial state" : h.label(p)) + " is followed by " + h.label(s) + " in one and "
                        + (other == INIT ? "the initial state" : h.label(other)) + " in another", other == INIT ? new int[] {s} : new int[] {other, s},
                        new int[] {rf.factOp.get(i)});
            }
        }
        for (int c = 0; c < chainKeys.size(); c++) {
            int k = chainKeys.get(c);
            IntVec chain = new IntVec();
            for (int x = succ.get(LongIntMap.pack(k, INIT + 1)); x != LongIntMap.MISSING; x = succ.get(LongIntMap.pack(k, x + 1))) {
                if (chain.size() > keyStart[k + 1] - keyStart[k]) break; // a cycle of facts: the graph's edges show it
                chain.add(x);
            }
            for (int i = 0; i + 1 < chain.size(); i++) g.add(chain.get(i), chain.get(i + 1), KnownGraph.WW, k);
            Set<Integer> on = new java.util.HashSet<>();
            for (int i = 0; i < chain.size(); i++) on.add(chain.get(i));
            int tail = chain.get(chain.size() - 1);
            for (int i = keyStart[k]; i < keyStart[k + 1]; i++) if (!on.contains(writersOf[i])) g.add(tail, writersOf[i], KnownGraph.WW, k);
        }
        return null;
    }

    /** The last writer of {@code key} in {@code session} at a position below {@code below}, or -1. */
    private int lastWriterBefore(int key, int session, int below) {
        int lo = keyStart[key];
        long target = ((long) session << 32) | below;
        // first index whose (session, position) is at or after (session, below)
        int a = lo, b = keyStart[key + 1];
        while (a < b) {
            int m = (a + b) >>> 1;
            if (writerPlace[m] < target) a = m + 1; else b = m;
        }
        return a > lo && (int) (writerPlace[a - 1] >>> 32) == session ? writersOf[a - 1] : -1;
    }

    private boolean writesKey(int t, int key) { return writes.get(LongIntMap.pack(t, key)) != LongIntMap.MISSING; }

    // ---- derived edges ----

    /**
     * Read committed, strong session read committed and read atomic: what a transaction sees is what it read (earlier, below
     * read atomic) and, but at read committed, its session's past.
     */
    private void derivePerTransaction() {
        boolean earlierOnly = !level.implies(IsolationLevel.READ_ATOMIC), session = level != IsolationLevel.READ_COMMITTED;
        IntVec seen = new IntVec(), seenBy = new IntVec();
        for (int t3 = 0; t3 < h.size(); t3++) {
            if (!rf.included[t3]) continue;
            if ((t3 & 0xfff) == 0) budget.check();
            seen.clear();
            seenBy.clear();
            if (!earlierOnly) for (int p = readStart[t3]; p < readStart[t3 + 1]; p++) remember(seen, seenBy, readsOf[p]);
            for (int p = readStart[t3]; p < readStart[t3 + 1]; p++) {
                int i = readsOf[p], x = rf.readKey.get(i), t1 = rf.readWriter.get(i);
                int t2 = session ? lastWriterBefore(x, h.session(t3), pos[t3]) : -1;
                if (t2 >= 0 && t2 != t1) derive(t2, t1, x, i, BY_SESSION, t2);
                for (int j = 0; j < seen.size(); j++) {
                    int w = seen.get(j);
                    if (w != t1 && writesKey(w, x)) derive(w, t1, x, i, earlierOnly ? BY_EARLIER_READ : BY_READ, seenBy.get(j));
                }
                if (earlierOnly) remember(seen, seenBy, i);
            }
        }
    }

    /** Adds read {@code i}'s writer, and the other appenders a list read observed, to the transactions seen (once each; never the initial state). */
    private void remember(IntVec seen, IntVec seenBy, int i) {
        remember(seen, seenBy, rf.readWriter.get(i), rf.readOp.get(i));
        for (int o = obsStart[i]; o < obsStart[i + 1]; o++) remember(seen, seenBy, rf.obsWriter.get(o), rf.readOp.get(i));
    }

    private static void remember(IntVec seen, IntVec seenBy, int w, int op) {
        if (w == INIT) return;
        for (int j = 0; j < seen.size(); j++) if (seen.get(j) == w) return;
        seen.add(w);
        seenBy.add(op);
    }

    /**
     * Causal consistency: vector clocks over so and wr (in {@code topo}, a topological order of them); false when they
     * would not fit in the heap.
     */
    private boolean deriveCausal(int[] topo) {
        int n = h.size(), k = writerSessions;
        long cells = (long) n * k;
        if (cells > Reachability.defaultMaxCells()) return false;
        int[] vc = new int[(int) cells]; // vc[t*k + s]: how many of session s's transactions are in t's strict causal past
        for (int t : topo) {
            int base = t * k;
            int p = sessionPred[t];
            if (p >= 0) join(vc, base, p, k);
            for (int q = readStart[t]; q < readStart[t + 1]; q++) {
                int i = readsOf[q], w = rf.readWriter.get(i);
                if (w != INIT) join(vc, base, w, k);
                for (int o = obsStart[i]; o < obsStart[i + 1]; o++) join(vc, base, rf.obsWriter.get(o), k);
            }
        }
        for (int t3 = 0; t3 < n; t3++) {
            if (!rf.included[t3]) continue;
            if ((t3 & 0xfff) == 0) budget.check();
            for (int q = readStart[t3]; q < readStart[t3 + 1]; q++) {
                int i = readsOf[q], x = rf.readKey.get(i), t1 = rf.readWriter.get(i);
                if (keyStart[x + 1] - keyStart[x] == (t1 == INIT ? 0 : 1)) continue; // no other writer of x
                // only a session whose prefix T3 knows beyond T1's can hold a writer T2 that T1's own causal past (a path
                // of so and wr to T1) does not already order before T1
                int b3 = t3 * k, b1 = t1 == INIT ? -1 : t1 * k;
                for (int s = 0; s < k; s++) {
                    int known = b1 < 0 ? 0 : vc[b1 + s];
                    if (vc[b3 + s] <= known) continue;
                    int t2 = lastWriterBefore(x, s, vc[b3 + s]);
                    if (t2 < 0 || t2 == t1 || place(t2) < known) continue;
                    derive(t2, t1, x, i, BY_CAUSAL_PAST, -1); // (named more precisely, if it is ever shown: premise())
                }
            }
        }
        return true;
    }

    /** A read of {@code t3} that observed {@code w}'s write (its op), or -1: names the premise of a derived edge. */
    private int readFrom(int t3, int w) {
        for (int q = readStart[t3]; q < readStart[t3 + 1]; q++) {
            int i = readsOf[q];
            if (rf.readWriter.get(i) == w) return rf.readOp.get(i);
            for (int o = obsStart[i]; o < obsStart[i + 1]; o++) if (rf.obsWriter.get(o) == w) return rf.readOp.get(i);
        }
        return -1;
    }

    private void join(int[] vc, int base, int p, int k) {
        int pb = p * k;
        for (int s = 0; s < k; s++) if (vc[pb + s] > vc[base + s]) vc[base + s] = vc[pb + s];
        int s = writerSession[p];
        if (place(p) + 1 > vc[base + s]) vc[base + s] = place(p) + 1;
    }

    /** T2 commits before T1 (T2's version of x precedes T1's): read {@code read} saw T1 while T2 was visible to it. */
    private void derive(int t2, int t1, int x, int read, int premise, int via) {
        whyRead.add(read);
        whyPremise.add(premise);
        whyVia.add(via);
        int d = whyRead.size() - 1;
        if (t1 == INIT) {
            if (initViolation < 0) { initViolation = d; initWriter = t2; }
            return;
        }
        g.add(t2, t1, KnownGraph.WW, x, d);
    }

    // ---- certificates ----

    private AnomalyKind kindOf(int premise) {
        return switch (premise) {
            case BY_SESSION -> AnomalyKind.READ_YOUR_WRITES;
            case BY_EARLIER_READ -> AnomalyKind.NON_MONOTONIC_READ;
            case BY_READ -> AnomalyKind.FRACTURED_READ;
            default -> AnomalyKind.CAUSALITY_VIOLATION;
        };
    }

    /**
     * The premise of derived edge {@code d} from {@code t2}, as precisely as it can be named: the causal check records every
     * edge as a causal-past one, and a cycle's edges are named here, when shown (same session, a direct read, or a longer path).
     */
    private int premise(int d, int t2) {
        int p = whyPremise.get(d);
        if (p != BY_CAUSAL_PAST) return p;
        int t3 = rf.readTxn.get(whyRead.get(d));
        if (writerSession[t2] == h.session(t3) && t2 < t3) return BY_SESSION;
        return readFrom(t3, t2) >= 0 ? BY_READ : BY_CAUSAL_PAST;
    }

    /** Why derived edge {@code d} holds, in words. */
    private String because(int d, int t2) {
        int i = whyRead.get(d), t3 = rf.readTxn.get(i), premise = premise(d, t2);
        int via = whyPremise.get(d) != BY_CAUSAL_PAST ? whyVia.get(d) : premise == BY_READ ? readFrom(t3, t2) : t2;
        String saw = switch (premise) {
            case BY_SESSION -> h.label(t2) + " ran earlier in " + h.label(t3) + "'s session";
            case BY_EARLIER_READ -> h.label(t3) + " had already read " + h.describeOp(via) + from(via, t2);
            case BY_READ -> h.label(t3) + " read " + h.describeOp(via) + from(via, t2);
            default -> h.label(t2) + " is in " + h.label(t3) + "'s causal past (" + causalPath(t2, t3) + ")";
        };
        int t1 = rf.readWriter.get(i);
        return saw + ", yet " + h.label(t3) + " read " + h.describeOp(rf.readOp.get(i)) + (t1 == INIT ? ", the initial version" : " from " + h.label(t1))
                + ", so " + h.label(t2) + "'s write of " + History.show(h.keyName(rf.readKey.get(i))) + " must come "
                + (t1 == INIT ? "before the initial state: impossible" : "before " + h.label(t1) + "'s");
    }

    /** How a read {@code op} saw {@code t2}: " from T2", or, for a list read, ", which holds T2's appends" (it observed every appender in it). */
    private String from(int op, int t2) {
        return h.kind(op) == History.READ_LIST ? ", which holds " + h.label(t2) + "'s append" : " from " + h.label(t2);
    }

    /** A shortest path of session order and read-from edges from u to v, as text. */
    private String causalPath(int u, int v) {
        KnownGraph.Csr out = g.outCsr();
        int[] parent = new int[h.size()];
        Arrays.fill(parent, -2);
        parent[u] = -1;
        IntVec q = new IntVec();
        q.add(u);
        for (int i = 0; i < q.size() && parent[v] == -2; i++) {
            int x = q.get(i);
            for (int p = out.start[x]; p < out.start[x + 1]; p++) {
                int e = out.edge[p], y = out.target[p];
                int kind = g.kind.get(e);
                if ((kind != KnownGraph.SO && kind != KnownGraph.WR) || parent[y] != -2) continue;
                parent[y] = e;
                q.add(y);
            }
        }
        if (parent[v] == -2) return "no path found";
        List<String> steps = new ArrayList<>();
        for (int y = v; y != u; y = g.src.get(parent[y])) {
            int e = parent[y];
            steps.add(0, " -" + KnownGraph.kindName(g.kind.get(e)) + (g.key.get(e) >= 0 ? "(" + History.show(h.keyName(g.key.get(e))) + ")" : "") + "-> " + h.label(y));
        }
        return h.label(u) + String.join("", steps);
    }

    private Certificate initCertificate() {
        int d = initViolation, i = whyRead.get(d), t3 = rf.readTxn.get(i);
        AnomalyKind kind = kindOf(premise(d, initWriter));
        String why = because(d, initWriter);
        Set<Integer> ts = new LinkedHashSet<>(List.of(initWriter, t3));
        List<Certificate.Txn> txns = new ArrayList<>();
        CertificateBuilder b = new CertificateBuilder(h, null);
        for (int t : ts) txns.add(b.txn(t));
        return new Certificate(kind, kind.displayName() + ": " + why, List.of(), txns, List.of(), List.of(), List.of());
    }

    private Certificate cycleCertificate() {
        KnownGraph.Csr out = g.outCsr();
        int[] cycle = CycleFinder.findCycle(g, out, rf.included);
        if (cycle == null) throw new IllegalStateException("internal error: the graph is cyclic but no cycle was found");
        List<Certificate.Edge> edges = new ArrayList<>();
        Set<Integer> ts = new LinkedHashSet<>();
        int premise = -1;
        for (int e : cycle) {
            int u = g.src.get(e), v = g.dst.get(e), k = g.key.get(e), d = g.deriv.get(e);
            ts.add(u);
            if (d >= 0) {
                premise = Math.max(premise, premise(d, u));
                ts.add(rf.readTxn.get(whyRead.get(d)));
            }
            edges.add(new Certificate.Edge(h.label(u), h.label(v), KnownGraph.kindName(g.kind.get(e)), k < 0 ? null : History.show(h.keyName(k)),
                    d >= 0 ? because(d, u) : null));
        }
        AnomalyKind kind = premise < 0 ? CertificateBuilder.classify(edges) : kindOf(premise);
        List<Certificate.Txn> txns = new ArrayList<>();
        CertificateBuilder b = new CertificateBuilder(h, null);
        for (int t : ts) txns.add(b.txn(t));
        return new Certificate(kind, CertificateBuilder.summary(kind, edges), edges, txns, List.of(), List.of(), List.of());
    }
}
