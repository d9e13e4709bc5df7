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
import org.cobraverify.solver.Instance;
import org.cobraverify.solver.Result;

/**
 * Snapshot isolation, decided on the start/commit split graph (docs/DESIGN.md §11.4): every transaction T is two
 * vertices, its start s(T) and its commit c(T), with s(T) → c(T). Session order, read-from and write-write
 * dependencies go from the earlier transaction's commit to the later one's start (c → s); an anti-dependency (T read a
 * version that U overwrote) goes from the reader's start to the overwriter's commit (s → c). A history is snapshot
 * isolated iff some version order of every key makes this graph acyclic: a cycle is exactly a cycle of
 * (so ∪ wr ∪ ww) ; rw? in the transaction graph, the characterisation of Cerone and Gotsman.
 *
 * <p>The version order is sought as serializability's is: writers linked by facts (a read-modify-write, a list read)
 * form chains, and each pair of chains of a key is one two-sided constraint (either i's versions precede j's, with
 * c(tail i) → s(head j) and every reader of tail i's version → c(head j), or the mirror). Unlike serializability,
 * two unread writes still constrain each other: concurrent writers of one key are forbidden. Pruning forces a side
 * whose mirror would close a cycle; the {@link org.cobraverify.solver.AcyclicitySolver} decides what is left.
 */
final class SnapshotIsolationCheck {
    private static final int INIT = ReadFromIndex.INIT;

    private final History h;
    private final CheckOptions options;
    private final Budget budget;
    private ReadFromIndex rf;
    /** The split graph: vertex 2t is s(t), 2t+1 is c(t). Edge kinds are {@link KnownGraph}'s, plus the start-to-commit edges (SO, key -2). */
    private KnownGraph g;
    private boolean[] live;
    /**
     * The chain cover's hint ({@link ReachabilityEngine.Dag#sessionPred}): s(T)'s is the commit of T's predecessor in its
     * session, c(T)'s is s(T), each an edge of the graph; -1 elsewhere. Without it the greedy cover follows whichever
     * predecessor it meets first, and a round's split graph needs about a chain per dozen transactions, not one per session.
     */
    private int[] sessionPred;
    /** Per forced side's edge (its deriv id): the edge of the other side that would have closed a cycle. */
    private final IntVec blockedFrom = new IntVec(), blockedTo = new IntVec();
    // chains: key, head, tail
    private final IntVec chainKey = new IntVec(), chainHead = new IntVec(), chainTail = new IntVec();
    // constraints between two chains of a key: side A puts chain first[c] before chain second[c]
    private final IntVec first = new IntVec(), second = new IntVec();
    private boolean[] open;
    /** Readers of each (key, writer) version: {@code readersOf[start .. end]} where the map gives the group. */
    private LongIntMap readerGroup;
    private int[] readerStart, readers;

    /**
     * The reference encoding, for tests: every pair of a key's chains a constraint, whatever the graph orders already, and no
     * side guessed before the solver ({@link #settleForward}).
     */
    private final boolean reference;

    private SnapshotIsolationCheck(History h, CheckOptions options, Budget budget, boolean reference) {
        this.h = h;
        this.options = options;
        this.budget = budget;
        this.reference = reference;
    }

    static Verdict check(History h, CheckOptions options, Budget budget) { return check(h, options, budget, false); }

    /** With {@code reference}, the reference encoding ({@link #reference}), which the shortcuts are held to. */
    static Verdict check(History h, CheckOptions options, Budget budget, boolean reference) {
        CheckStats stats = new CheckStats();
        stats.solver = options.solver().name();
        return Isolation.decide(h, stats, st -> new SnapshotIsolationCheck(h, options, budget, reference).run(st));
    }

    private static int s(int t) { return 2 * t; }

    private static int c(int t) { return 2 * t + 1; }

    private Verdict run(CheckStats stats) {
        long t0 = System.nanoTime();
        rf = new ReadFromIndex(h);
        stats.included = rf.includedCount();
        if (!rf.anomalies.isEmpty()) return reject(stats, new CertificateBuilder(h, null).anomaly(rf.anomalies));
        int n = h.size();
        g = new KnownGraph(2 * n, (int) Math.min(3L * n + 2L * h.opCount(), 1 << 24));
        live = new boolean[2 * n];
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) continue;
            live[s(t)] = live[c(t)] = true;
            g.add(s(t), c(t), KnownGraph.SO, -2);
        }
        int[] last = new int[h.sessionCount()];
        Arrays.fill(last, -1);
        sessionPred = new int[2 * n];
        Arrays.fill(sessionPred, -1);
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) continue;
            sessionPred[c(t)] = s(t);
            if (last[h.session(t)] >= 0) {
                g.add(c(last[h.session(t)]), s(t), KnownGraph.SO, -1);
                sessionPred[s(t)] = c(last[h.session(t)]);
            }
            // a transaction of unknown outcome follows its predecessors, and none follows it (docs/DESIGN.md §1.2)
            if (h.acknowledged(t)) last[h.session(t)] = t;
        }
        for (int i = 0; i < rf.readKey.size(); i++) {
            int w = rf.readWriter.get(i);
            if (w != INIT) g.add(c(w), s(rf.readTxn.get(i)), KnownGraph.WR, rf.readKey.get(i));
        }
        indexReaders();
        List<Anomaly> broken = chains();
        if (!broken.isEmpty()) {
            CertificateBuilder certs = new CertificateBuilder(h, null);
            List<Certificate> more = new ArrayList<>();
            for (Anomaly a : broken.subList(1, broken.size())) more.add(certs.anomaly(List.of(a)));
            return new Verdict(Verdict.Outcome.REJECT, certs.anomaly(List.of(broken.get(0))), null, null, stats, List.of(), more);
        }
        stats.chains = chainKey.size();
        stats.constraintsBefore = first.size();
        budget.check();
        long t1 = System.nanoTime();
        stats.constructNanos = t1 - t0;
        int[] cycle = prune(stats);
        long t2 = System.nanoTime();
        stats.pruneNanos = t2 - t1;
        if (cycle != null) return reject(stats, cycleCertificate(cycle));
        stats.constraintsAfterPrune = openCount();
        Verdict v = solve(stats);
        stats.solveNanos = System.nanoTime() - t2;
        return v;
    }

    private static Verdict reject(CheckStats stats, Certificate c) {
        return new Verdict(Verdict.Outcome.REJECT, c, null, null, stats, List.of());
    }

    // ---- versions and their readers ----

    /** Groups the external reads by the version they read: one pass to number the versions, one to fill (no sort). */
    private void indexReaders() {
        int r = rf.readKey.size();
        readerGroup = new LongIntMap(Math.max(16, r));
        int[] groupOf = new int[r];
        IntVec counts = new IntVec();
        for (int i = 0; i < r; i++) {
            long version = LongIntMap.pack(rf.readKey.get(i), rf.readWriter.get(i) + 1);
            int gi = readerGroup.get(version);
            if (gi == LongIntMap.MISSING) { gi = counts.size(); readerGroup.put(version, gi); counts.add(0); }
            counts.set(gi, counts.get(gi) + 1);
            groupOf[i] = gi;
        }
        readerStart = new int[counts.size() + 1];
        for (int gi = 0; gi < counts.size(); gi++) readerStart[gi + 1] = readerStart[gi] + counts.get(gi);
        int[] fill = Arrays.copyOf(readerStart, counts.size());
        readers = new int[r];
        for (int i = 0; i < r; i++) readers[fill[groupOf[i]]++] = rf.readTxn.get(i);
    }

    /** The group of readers of {@code writer}'s version of {@code key} ({@link ReadFromIndex#INIT} for the initial one), or -1. */
    private int group(int key, int writer) { return readerGroup.get(LongIntMap.pack(key, writer + 1)); }

    private int readersStart(int group) { return group < 0 ? 0 : readerStart[group]; }

    private int readersEnd(int group) { return group < 0 ? 0 : readerStart[group + 1]; }

    /**
     * Chains of each key from the facts (T reads x from T' and writes it; a list read shows T right after T'), the
     * fixed edges they imply, and the constraints between the chains. Returns the anomalies when facts conflict (else
     * none): the first conflict, and when it is a lost update, every other lost update (at most
     * {@link Checker#MORE_VIOLATIONS}), each two observed read-modify-writes of one version, a violation on its own
     * whatever else the history holds; several may share a transaction.
     */
    private List<Anomaly> chains() {
        List<Anomaly> lostUpdates = new ArrayList<>();
        int facts = Math.max(16, rf.factKey.size());
        LongIntMap succ = new LongIntMap(facts), pred = new LongIntMap(facts), factOp = new LongIntMap(facts);
        for (int i = 0; i < rf.factKey.size(); i++) {
            int k = rf.factKey.get(i), p = rf.factPred.get(i), s = rf.factSucc.get(i);
            // (putIfAbsent returns the value now held: the earlier one, or this one)
            int had = succ.putIfAbsent(LongIntMap.pack(k, p + 1), s);
            int hadPred = pred.putIfAbsent(LongIntMap.pack(k, s), p + 1); // + 1: the initial state is 0, MISSING stays -1
            factOp.putIfAbsent(LongIntMap.pack(k, s), i);
            if (had != s) {
                int j = factOp.get(LongIntMap.pack(k, had));
                boolean lost = rf.factKind.get(i) == ReadFromIndex.FACT_RMW && rf.factKind.get(j) == ReadFromIndex.FACT_RMW;
                String version = p == INIT ? "the initial version" : h.label(p) + "'s version";
                Anomaly a = new Anomaly(lost ? AnomalyKind.LOST_UPDATE : AnomalyKind.INCOMPATIBLE_ORDER, lost
                        ? h.label(had) + " and " + h.label(s) + " both read " + version + " of key " + History.show(h.keyName(k)) + " and both overwrote it: one of the updates is lost"
                        : "reads of key " + History.show(h.keyName(k)) + " disagree on what follows " + version + ": " + h.label(had) + " or " + h.label(s),
                        p == INIT ? new int[] {had, s} : new int[] {p, had, s}, new int[] {rf.factOp.get(j), rf.factOp.get(i)});
                if (!lost) return lostUpdates.isEmpty() ? List.of(a) : lostUpdates;
                lostUpdates.add(a);
                if (lostUpdates.size() > Checker.MORE_VIOLATIONS) return lostUpdates;
                continue;
            }
            if (!lostUpdates.isEmpty()) continue; // (only more lost updates are sought now)
            if (hadPred != p + 1)
                return List.of(new Anomaly(AnomalyKind.INCOMPATIBLE_ORDER, "reads of key " + History.show(h.keyName(k)) + " disagree on what precedes "
                        + h.label(s), new int[] {s}, new int[] {rf.factOp.get(i)}));
            if (p != INIT) g.add(c(p), s(s), KnownGraph.WW, k);
        }
        if (!lostUpdates.isEmpty()) return lostUpdates;
        // every included writer of each key, once
        int keys = h.keyCount();
        IntVec[] writers = new IntVec[keys];
        int[] lastWriter = new int[keys]; // per key, the last transaction counted as its writer
        Arrays.fill(lastWriter, -1);
        for (int t = 0; t < h.size(); t++) {
            if (!rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                byte kind = h.kind(op);
                if ((kind != History.WRITE && kind != History.APPEND) || lastWriter[h.key(op)] == t) continue;
                lastWriter[h.key(op)] = t;
                if (writers[h.key(op)] == null) writers[h.key(op)] = new IntVec(2);
                writers[h.key(op)].add(t);
            }
        }
        int[] keyStart = new int[keys + 1], initChainOf = new int[keys];
        Arrays.fill(initChainOf, -1);
        for (int k = 0; k < keys; k++) {
            keyStart[k] = chainKey.size();
            IntVec ws = writers[k];
            if (ws == null) continue;
            budget.check();
            for (int i = 0; i < ws.size(); i++) {
                int w = ws.get(i), p = pred.get(LongIntMap.pack(k, w)); // the predecessor + 1
                if (p != LongIntMap.MISSING && p != 0) continue; // not a head
                int tail = w, steps = 0;
                while (true) {
                    int rs = group(k, tail);
                    int next = succ.get(LongIntMap.pack(k, tail + 1));
                    if (next == LongIntMap.MISSING || ++steps > ws.size()) break;
                    for (int r = readersStart(rs); r < readersEnd(rs); r++) if (readers[r] != next) g.add(s(readers[r]), c(next), KnownGraph.RW, k);
                    tail = next;
                }
                if (p == 0) initChainOf[k] = chainKey.size();
                chainKey.add(k);
                chainHead.add(w);
                chainTail.add(tail);
            }
            // the chain that begins with a read of the initial version precedes every other chain of the key
            int init = initChainOf[k];
            if (init >= 0)
                for (int ch = keyStart[k]; ch < chainKey.size(); ch++) if (ch != init) g.add(c(chainTail.get(init)), s(chainHead.get(ch)), KnownGraph.WW, k);
        }
        keyStart[keys] = chainKey.size();
        ChainOrder order = null;
        boolean tooLarge = false;
        try {
            if (reference) tooLarge = true;
            else order = ChainOrder.of(g, live, sessionPred, Reachability.defaultMaxCells());
        } catch (ReachabilityEngine.TooLarge e) {
            tooLarge = true;
        }
        // a cycle already (order null, not too large): pruning reports it, and no choice of versions could break it
        if (order != null || tooLarge)
            for (int k = 0; k < keys; k++) {
                if (keyStart[k] == keyStart[k + 1]) continue;
                budget.check();
                if (order == null || !orderedPairs(k, keyStart[k], keyStart[k + 1], order)) allPairs(k, keyStart[k], keyStart[k + 1], initChainOf[k]);
            }
        open = new boolean[first.size()];
        Arrays.fill(open, true);
        return List.of();
    }

    /**
     * Every pair of chains of key {@code k} ({@code from} to {@code to}) is a constraint, the chain that begins with a read of
     * the initial version ({@code init}, or -1) going first, and every reader of the initial version precedes every head's
     * commit: what the graph already orders is not asked (the fallback when {@link ChainOrder} would not fit in memory).
     */
    private void allPairs(int k, int from, int to, int init) {
        int initReaders = group(k, INIT);
        for (int ch = from; ch < to; ch++) readersBefore(initReaders, ch, k, -1);
        for (int a = from; a < to; a++)
            for (int b = a + 1; b < to; b++) {
                if (a == init || b == init) addSide(a == init ? a : b, a == init ? b : a, -1);
                else { first.add(a); second.add(b); }
            }
    }

    /**
     * Chains, not pairs (docs/DESIGN.md §11.4): of key {@code k}'s chains ({@code from} to {@code to}), a pair the graph already
     * orders (the first's last commit reaches the second's first start, {@code o}) needs no constraint, and of the edges
     * its side would add, only the anti-dependencies of a chain's readers on the chains that can follow it first in some
     * order (on each cover chain of {@code o}, the first head the chain reaches, if no other such head reaches it); every
     * other pair, unordered, is a constraint. Returns false (nothing added) when a head has no cover chain.
     */
    private boolean orderedPairs(int k, int from, int to, ChainOrder o) {
        int m = to - from;
        int[] heads = new int[m], tails = new int[m];
        for (int j = 0; j < m; j++) { heads[j] = s(chainHead.get(from + j)); tails[j] = c(chainTail.get(from + j)); }
        KeyChainOrder order = KeyChainOrder.of(o, heads, tails);
        if (order == null) return false;
        // readers of the initial version: before the commit of whichever chain comes first
        int initReaders = group(k, INIT);
        if (readersEnd(initReaders) > readersStart(initReaders))
            for (int y : order.firstOfAll()) readersBefore(initReaders, from + y, k, -1);
        IntVec unordered = new IntVec();
        for (int x = 0; x < m; x++) {
            unordered.clear();
            int[] next = order.scan(x, unordered);
            for (int i = 0; i < unordered.size(); i++) { first.add(from + x); second.add(from + unordered.get(i)); }
            int rs = group(k, chainTail.get(from + x));
            if (readersEnd(rs) == readersStart(rs)) continue;
            for (int y : next) {
                // the other order needs c(tail y) -> s(head x), and s(head x) reaches c(tail y) through x's chain and y's
                blockedFrom.add(tails[y]);
                blockedTo.add(heads[x]);
                readersBefore(rs, from + y, k, blockedFrom.size() - 1);
            }
        }
        return true;
    }

    /** Every reader of version group {@code rs} of key {@code k} precedes the commit of chain {@code ch}'s head (but its head itself). */
    private void readersBefore(int rs, int ch, int k, int deriv) {
        int head = chainHead.get(ch);
        for (int r = readersStart(rs); r < readersEnd(rs); r++) if (readers[r] != head) g.add(s(readers[r]), c(head), KnownGraph.RW, k, deriv);
    }

    /** The edges of "chain {@code before}'s versions precede chain {@code after}'s" join the graph, each with derivation {@code deriv}. */
    private void addSide(int before, int after, int deriv) {
        int k = chainKey.get(before), tail = chainTail.get(before);
        g.add(c(tail), s(chainHead.get(after)), KnownGraph.WW, k, deriv);
        readersBefore(group(k, tail), after, k, deriv);
    }

    private int before(int con, boolean sideB) { return sideB ? second.get(con) : first.get(con); }

    private int after(int con, boolean sideB) { return sideB ? first.get(con) : second.get(con); }

    private int openCount() {
        int n = 0;
        for (boolean b : open) if (b) n++;
        return n;
    }

    // ---- pruning ----

    /** Forces every side whose mirror would close a cycle, to a fixed point; returns a cycle of the graph, or null. */
    private int[] prune(CheckStats stats) {
        boolean last = false;
        while (true) {
            budget.check();
            KnownGraph.Csr out = g.outCsr();
            int[] topo = CycleFinder.topologicalOrder(g, out, live, null);
            if (topo == null) return CycleFinder.findCycle(g, out, live);
            if (last || openCount() == 0) return null;
            stats.pruneRounds++;
            int openBefore = openCount();
            IntVec sources = new IntVec();
            boolean[] isSource = new boolean[g.n];
            for (int con = 0; con < open.length; con++) {
                if (!open[con]) continue;
                for (int side = 0; side < 2; side++) {
                    int head = chainHead.get(after(con, side == 1));
                    for (int v : new int[] {s(head), c(head)}) if (!isSource[v]) { isSource[v] = true; sources.add(v); }
                }
            }
            ReachabilityEngine.Index reach;
            try {
                reach = options.reachability().index(new ReachabilityEngine.Dag(g.n, out.start, out.target, topo, sessionPred), sources.toArray(), budget);
            } catch (ReachabilityEngine.TooLarge e) {
                return null; // the solver decides every constraint
            }
            boolean changed = false;
            for (int con = 0; con < open.length; con++) {
                if (!open[con]) continue;
                int[] blockA = blocked(reach, con, false), blockB = blocked(reach, con, true);
                if (blockA == null && blockB == null) continue;
                boolean forceB = blockA != null;
                int[] blocker = forceB ? blockA : blockB;
                blockedFrom.add(blocker[0]);
                blockedTo.add(blocker[1]);
                addSide(before(con, forceB), after(con, forceB), blockedFrom.size() - 1);
                open[con] = false;
                changed = true;
            }
            // a round that settled under 1% of what was open leaves the rest to the solver, which is exact on whatever is
            // left (the fixed point would cost a round of reachability per handful of constraints)
            if (!changed) return null;
            last = (openBefore - openCount()) * 100 < openBefore; // (the forced sides still face the cycle check above)
        }
    }

    /** An edge (u, v) of the side whose target already reaches its source (so the side would close a cycle), or null. */
    private int[] blocked(ReachabilityEngine.Index reach, int con, boolean sideB) {
        int b = before(con, sideB), a = after(con, sideB), k = chainKey.get(b), tail = chainTail.get(b), head = chainHead.get(a);
        if (reach.reaches(s(head), c(tail))) return new int[] {c(tail), s(head)};
        int rs = group(k, tail);
        for (int r = readersStart(rs); r < readersEnd(rs); r++) if (readers[r] != head && reach.reaches(c(head), s(readers[r]))) return new int[] {s(readers[r]), c(head)};
        return null;
    }

    // ---- search ----

    /**
     * Decides the open constraints. First each takes, where it has one, the side whose edges all go forward in one topological
     * order of the graph (ties broken by the history's order, which is about the order of commits), which leaves that order a
     * topological order, so the graph acyclic: when the solver completes what is left, the history is accepted. A reject
     * found that way proves nothing (the sides taken were guesses), so the solver decides again with every constraint open.
     */
    private Verdict solve(CheckStats stats) {
        int edges = g.edgeCount();
        boolean[] wasOpen = open.clone();
        if (!reference && settleForward() > 0) {
            Verdict v = search(stats);
            if (v.outcome() != Verdict.Outcome.REJECT) return v;
            g.truncate(edges, g.derivConstraint.size());
            open = wasOpen;
        }
        return search(stats);
    }

    /** Settles each open constraint with a side whose edges go forward in a topological order of the graph; returns how many. */
    private int settleForward() {
        int[] topo = CycleFinder.topologicalOrder(g, g.outCsr(), live, commitTimes());
        if (topo == null) return 0;
        int[] at = new int[g.n];
        for (int i = 0; i < topo.length; i++) at[topo[i]] = i;
        int settled = 0;
        for (int con = 0; con < open.length; con++) {
            if (!open[con]) continue;
            for (boolean sideB : new boolean[] {false, true})
                if (forward(con, sideB, at)) {
                    addSide(before(con, sideB), after(con, sideB), -1);
                    open[con] = false;
                    settled++;
                    break;
                }
        }
        return settled;
    }

    /**
     * Priorities for the topological order {@link #settleForward} follows: where every transaction has an end time, each
     * transaction's start and commit at its end (its start just before), since a store's version orders follow its commits;
     * otherwise the history's order.
     */
    private long[] commitTimes() {
        long[] priority = new long[g.n];
        long min = Long.MAX_VALUE;
        for (int t = 0; t < h.size(); t++) if (live[s(t)]) {
            if (h.end(t) == History.NO_TIME) { min = Long.MAX_VALUE; break; }
            min = Math.min(min, h.end(t));
        }
        for (int v = 0; v < g.n; v++) priority[v] = min == Long.MAX_VALUE || !live[v] ? v : 2 * (h.end(v >> 1) - min) + (v & 1);
        return priority;
    }

    private boolean forward(int con, boolean sideB, int[] at) {
        int b = before(con, sideB), a = after(con, sideB), k = chainKey.get(b), tail = chainTail.get(b), head = chainHead.get(a);
        if (at[c(tail)] > at[s(head)]) return false;
        int rs = group(k, tail);
        for (int r = readersStart(rs); r < readersEnd(rs); r++) if (readers[r] != head && at[s(readers[r])] > at[c(head)]) return false;
        return true;
    }

    private Verdict search(CheckStats stats) {
        IntVec vars = new IntVec();
        for (int con = 0; con < open.length; con++) if (open[con]) vars.add(con);
        if (vars.size() > 0) {
            int m = vars.size();
            int[] litStart = new int[2 * m + 1];
            IntVec ls = new IntVec(), ld = new IntVec();
            for (int v = 0; v < m; v++)
                for (int side = 0; side < 2; side++) {
                    litStart[2 * v + side] = ls.size();
                    sideEdges(vars.get(v), side == 1, ls, ld);
                }
            litStart[2 * m] = ls.size();
            int fixed = g.edgeCount();
            long[] priority = new long[g.n];
            for (int v = 0; v < g.n; v++) priority[v] = v;
            Instance inst = new Instance(g.n, Arrays.copyOf(g.src.raw(), fixed), Arrays.copyOf(g.dst.raw(), fixed), m, litStart, ls.toArray(), ld.toArray(), priority);
            stats.constraintsToSolver = m;
            Result r = options.solver().solve(inst, budget);
            stats.conflicts = r.conflicts();
            stats.decisions = r.decisions();
            switch (r.status()) {
                case UNSAT -> {
                    int[] core = r.coreVariables();
                    int[] cons = new int[core.length];
                    for (int i = 0; i < core.length; i++) cons[i] = vars.get(core[i]);
                    return reject(stats, unsatCertificate(cons));
                }
                case SAT -> { for (int v = 0; v < m; v++) addSide(before(vars.get(v), !r.sideA()[v]), after(vars.get(v), !r.sideA()[v]), -1); }
                default -> { return new Verdict(Verdict.Outcome.UNKNOWN, null, null, r.reason(), stats, List.of()); }
            }
        }
        int[] order = CycleFinder.topologicalOrder(g, g.outCsr(), live, null);
        if (order == null) throw new IllegalStateException("internal error: the completed split graph has a cycle");
        // the witness: transactions in commit order
        IntVec commits = new IntVec();
        for (int v : order) if ((v & 1) == 1) commits.add(v >> 1);
        return new Verdict(Verdict.Outcome.ACCEPT, null, commits.toArray(), null, stats, List.of());
    }

    private void sideEdges(int con, boolean sideB, IntVec src, IntVec dst) {
        int b = before(con, sideB), a = after(con, sideB), k = chainKey.get(b), tail = chainTail.get(b), head = chainHead.get(a);
        src.add(c(tail));
        dst.add(s(head));
        int rs = group(k, tail);
        for (int r = readersStart(rs); r < readersEnd(rs); r++) if (readers[r] != head) { src.add(s(readers[r])); dst.add(c(head)); }
    }

    // ---- certificates ----

    private Certificate cycleCertificate(int[] cycle) {
        // drop each transaction's own start-to-commit edge; the rest are dependencies between transactions
        List<Certificate.Edge> edges = new ArrayList<>();
        Set<Integer> ts = new LinkedHashSet<>();
        CertificateBuilder b = new CertificateBuilder(h, null);
        for (int e : cycle) {
            if (g.key.get(e) == -2) continue;
            int u = g.src.get(e) >> 1, v = g.dst.get(e) >> 1, k = g.key.get(e), d = g.deriv.get(e);
            ts.add(u);
            String why = null;
            if (d >= 0) {
                int bu = blockedFrom.get(d), bv = blockedTo.get(d);
                why = "the other order of key " + History.show(h.keyName(k)) + "'s versions needs " + vertex(bu) + " -> " + vertex(bv)
                        + ", but " + vertex(bv) + " already reaches " + vertex(bu);
            }
            edges.add(new Certificate.Edge(h.label(u), h.label(v), KnownGraph.kindName(g.kind.get(e)), k < 0 ? null : History.show(h.keyName(k)), why));
        }
        AnomalyKind kind = CertificateBuilder.classify(edges);
        List<Certificate.Txn> txns = new ArrayList<>();
        for (int t : ts) txns.add(b.txn(t));
        return new Certificate(kind, CertificateBuilder.summary(kind, edges) + " (a cycle of the start/commit graph: not snapshot isolation)",
                edges, txns, List.of(), List.of(), List.of());
    }

    private String vertex(int v) { return ((v & 1) == 0 ? "start(" : "commit(") + h.label(v >> 1) + ")"; }

    private Certificate unsatCertificate(int[] cons) {
        Set<Integer> ts = new LinkedHashSet<>();
        List<String> lines = new ArrayList<>();
        for (int con : cons) {
            int a = first.get(con), b = second.get(con), k = chainKey.get(a);
            for (int ch : new int[] {a, b}) {
                ts.add(chainHead.get(ch));
                ts.add(chainTail.get(ch));
                int rs = group(k, chainTail.get(ch));
                for (int r = readersStart(rs); r < readersEnd(rs); r++) ts.add(readers[r]);
            }
            lines.add("key " + History.show(h.keyName(k)) + ": the versions of " + h.label(chainTail.get(a)) + " and " + h.label(chainTail.get(b))
                    + " can be ordered neither way");
        }
        CertificateBuilder b = new CertificateBuilder(h, null);
        List<Certificate.Txn> txns = new ArrayList<>();
        List<String> sub = new ArrayList<>();
        for (int t : ts) { txns.add(b.txn(t)); sub.add(h.name(t)); }
        String summary = "no snapshot-isolated order exists: " + cons.length + " write-order choice(s) among " + ts.size()
                + " transactions each close a cycle of the start/commit graph whichever way they go";
        return new Certificate(AnomalyKind.NOT_SNAPSHOT_ISOLATED, summary, List.of(), txns, sub, List.of(), lines);
    }
}
