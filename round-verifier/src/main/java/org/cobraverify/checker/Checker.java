package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.solver.Budget;
import org.cobraverify.solver.Result;

/**
 * The checker: decides whether a history is serializable (with session order) and proves its answer.
 * Pure: a {@link History} in, a {@link Verdict} out; no files, no printing.
 *
 * <p>Steps (docs/DESIGN.md §4): 1 {@link ReadFromIndex}; 2 {@link KnownGraph} (wr and so edges); 3–4
 * {@link Chains}; 5 {@link Constraints}; 6 {@link CycleFinder}; 7 {@link Pruner}; 8 {@link Decomposition}
 * into independent instances and {@link ParallelSolving} with the {@link org.cobraverify.solver.Solver};
 * 9 certificates ({@link CertificateBuilder}; for violations proved by search, {@link SearchCertificate}
 * within its own budget, after the decision is reported). Accept comes with a witness: a
 * topological order of the known graph completed with a side of every constraint, which is a serial
 * order that explains every read.
 */
public final class Checker {
    private final History h;
    private final CheckOptions options;
    private final CheckStats stats = new CheckStats();
    private final List<String> notes = new ArrayList<>();
    private ReadFromIndex rf;
    private KnownGraph g;
    private Constraints cons;
    private long[] priority;

    private final boolean minimize;
    /** The collected past of an incremental check (a barrier vertex), or null for a one-shot check. */
    private final CheckedRound.Past barrier;
    /** Vertex of the barrier in the graph, or -1. */
    int barrierVertex = -1;
    /** In strict mode with a barrier: the vertex of the past's real-time point (docs/DESIGN.md §7.3), or -1. */
    int realTimeVertex = -1;
    /** After an accept: edges 0..factEdges-1 of the graph are facts (known and pruning-forced); later ones are choices. */
    int factEdges = -1;
    /** After an accept: the constraints pruning left open (the solver or decomposition chose their sides). */
    boolean[] openAfterPrune;
    private int[] sessionPred;
    private boolean[] live; // vertices of the graph: included transactions, and time points in strict mode

    private Checker(History h, CheckOptions options, boolean minimize) { this(h, options, minimize, null); }

    private Checker(History h, CheckOptions options, boolean minimize, CheckedRound.Past barrier) {
        this.h = h;
        this.options = options;
        this.minimize = minimize;
        this.barrier = barrier;
    }

    /**
     * A check of one round of an incremental verification: {@code h} is the retained history plus the
     * round's transactions, {@code barrier} stands for the collected past. The returned checker keeps its
     * graph and constraints for garbage collection ({@link CheckedRound}).
     */
    static Checker forRound(History h, CheckOptions options, CheckedRound.Past barrier) {
        Checker c = new Checker(h, options, true, barrier);
        c.seekMore = true;
        return c;
    }

    /**
     * Whether a reject looks for {@link #moreViolations} (a round sets them all aside at once). A one-shot check reports one
     * violation: the search for more costs a full cycle search per violation (on Cobra's fauna-page history, 63 of them,
     * two thirds of the check), so it is left to rounds, and to {@code verify --all}, which finds them its own way.
     */
    private boolean seekMore;

    Verdict runForRound() { return run(); }

    History history() { return h; }

    KnownGraph graph() { return g; }

    Constraints constraints() { return cons; }

    ReadFromIndex readFrom() { return rf; }

    boolean[] liveVertices() { return live; }

    int[] sessionPredecessors() { return sessionPred; }

    public static Verdict check(History h) { return check(h, CheckOptions.defaults()); }

    public static Verdict check(History h, CheckOptions options) {
        return new Checker(h, options, true).run();
    }

    /**
     * As {@link #check}, but under the caller's budget (not a fresh one from the options), and a violation
     * proved by search is reported without shrinking it.
     */
    static Verdict checkWithoutMinimizing(History h, CheckOptions options, Budget budget) {
        Checker c = new Checker(h, options, false);
        c.callerBudget = budget;
        return c.run();
    }

    /** Set by {@link #checkWithoutMinimizing}: every step of this check spends it. */
    private Budget callerBudget;
    private long startNanos;

    private Verdict run() {
        startNanos = System.nanoTime();
        Budget budget = callerBudget != null ? callerBudget : Budget.of(options.timeoutSeconds(), options.maxHeapBytes());
        stats.solver = options.solver().name();
        stats.reachability = options.reachability().name();
        stats.strict = options.strict();
        stats.transactions = h.size();
        stats.keys = h.keyCount();
        stats.sessions = h.sessionCount();
        long t0 = System.nanoTime();
        try {
            rf = new ReadFromIndex(h);
            stats.included = rf.includedCount();
            if (!rf.anomalies.isEmpty()) {
                if (seekMore) moreReads(rf.anomalies);
                return reject(certs().anomaly(rf.anomalies));
            }
            newGraph();
            List<Anomaly> chainAnomalies = new ArrayList<>();
            Chains chains = new Chains(h, rf, g, chainAnomalies);
            if (!chainAnomalies.isEmpty()) {
                if (seekMore) moreReads(chainAnomalies);
                return reject(certs().anomaly(chainAnomalies));
            }
            cons = new Constraints(chains);
            stats.chains = chains.chainCount();
            stats.constraintsBefore = cons.size();
            priority = serialGuess(sessionPred);
            long t1 = System.nanoTime();
            stats.constructNanos = t1 - t0;

            Pruner pruner = new Pruner();
            int[] cycle = pruner.prune(g, cons, live, sessionPred, priority, options.reachability(), budget);
            long t2 = System.nanoTime();
            stats.pruneNanos = t2 - t1;
            stats.pruneRounds = pruner.rounds;
            if (pruner.skipped != null) notes.add(pruner.skipped);
            stats.constraintsAfterPrune = cons.activeCount;
            if (cycle != null) {
                if (seekMore) moreCycles(cycle);
                return reject(certs().cycle(cycle));
            }
            factEdges = g.edgeCount();
            openAfterPrune = cons.active.clone();

            Verdict v = solveRemaining(budget);
            stats.solveNanos = System.nanoTime() - t2 - stats.certificateNanos;
            stats.knownEdges = g.edgeCount();
            if (v != null) return v;
            int[] order = CycleFinder.topologicalOrder(g, g.outCsr(), live, priority);
            if (order == null) throw new IllegalStateException("internal error: the completed graph has a cycle");
            if (g.n > h.size()) order = Arrays.stream(order).filter(x -> x < h.size()).toArray(); // drop time points
            return new Verdict(Verdict.Outcome.ACCEPT, null, order, null, stats, notes);
        } catch (Budget.Exhausted e) {
            return new Verdict(Verdict.Outcome.UNKNOWN, null, null, e.getMessage(), stats, notes);
        }
    }

    /**
     * Step 2 (and 10): the known graph with wr and so edges and, in strict mode, the real-time order
     * through auxiliary time points (vertices from {@code h.size()} on).
     */
    private void newGraph() {
        int[] ended = options.strict() ? RealTimeOrder.ended(h, rf.included) : new int[0];
        if (options.strict()) {
            String untimed = RealTimeOrder.untimedNote(h, rf.included);
            if (untimed != null) notes.add(untimed);
        }
        boolean pastTimes = barrier != null && options.strict();
        g = new KnownGraph(h.size() + ended.length + (pastTimes ? 1 : 0) + (barrier != null ? 1 : 0), Math.min(h.size() + h.opCount(), 1 << 20)); // (session order, and about an edge per operation)
        live = Arrays.copyOf(rf.included, g.n);
        for (int v = h.size(); v < g.n; v++) live[v] = true;
        buildGraph();
        if (options.strict()) auxTimes = RealTimeOrder.addEdges(h, ended, rf.included, g, options.driftNanos(), h.size());
        if (barrier != null) {
            barrierVertex = g.n - 1;
            if (pastTimes) realTimeVertex = g.n - 2;
            CheckedRound.addPastEdges(barrier, h, rf.included, g, barrierVertex, realTimeVertex, options.strict() ? options.driftNanos() : -1);
        }
    }

    /** Strict mode: the end times of the real-time order's time points (vertices from {@code h.size()} on), ascending; else empty. */
    long[] timePoints() { return auxTimes == null ? new long[0] : auxTimes; }

    /** Whether real-time order is part of the property checked. */
    boolean strict() { return options.strict(); }

    /** The collected past the round was checked with, or null. */
    CheckedRound.Past past() { return barrier; }

    private long[] auxTimes;

    /**
     * Step 2: wr edges from resolved reads; so edges from each included transaction to its session predecessor, the last
     * included one before it that is not of unknown outcome (a transaction of unknown outcome follows its predecessors, and
     * none follows it: docs/DESIGN.md §1.2).
     */
    private void buildGraph() {
        for (int i = 0; i < rf.readKey.size(); i++) {
            int w = rf.readWriter.get(i);
            if (w >= 0) g.add(w, rf.readTxn.get(i), KnownGraph.WR, rf.readKey.get(i));
        }
        sessionPred = new int[g.n];
        Arrays.fill(sessionPred, -1);
        int[] last = new int[h.sessionCount()];
        Arrays.fill(last, -1);
        for (int t = 0; t < h.size(); t++) {
            if (!rf.included[t]) continue;
            int s = h.session(t);
            if (last[s] >= 0) {
                g.add(last[s], t, KnownGraph.SO, -1);
                sessionPred[t] = last[s];
            }
            if (h.acknowledged(t)) last[s] = t;
        }
    }

    /**
     * A guess at each transaction's place in a serial order: its start time where recorded, else its
     * relative progress through its session (sessions are assumed to run side by side).
     */
    private long[] serialGuess(int[] sessionPred) {
        int n = h.size();
        long[] p = new long[g.n];
        if (h.hasTimestamps()) {
            for (int t = 0; t < n; t++) p[t] = h.start(t) == History.NO_TIME ? Long.MAX_VALUE : h.start(t);
            for (int v = n; v < g.n; v++)
                p[v] = v == barrierVertex ? Long.MIN_VALUE : v == realTimeVertex ? (barrier.oldMaxEnd() == History.NO_TIME ? Long.MIN_VALUE : barrier.oldMaxEnd())
                        : auxTimes[v - n];
            return p;
        }
        int[] count = new int[h.sessionCount()];
        int[] index = new int[n];
        for (int t = 0; t < n; t++) if (rf.included[t]) index[t] = count[h.session(t)]++;
        for (int t = 0; t < n; t++) if (rf.included[t]) p[t] = (long) ((index[t] + 0.5) / count[h.session(t)] * (1L << 40));
        if (barrierVertex >= 0) p[barrierVertex] = Long.MIN_VALUE;
        if (realTimeVertex >= 0) p[realTimeVertex] = Long.MIN_VALUE;
        return p;
    }

    /** At most this many violations besides the first one a reject reports (a verifier in rounds sets them all aside at once). */
    static final int MORE_VIOLATIONS = 63;

    /**
     * Besides the reject's certificate: other violations found with it, each with its own certificate and transactions
     * none of the others has, lost updates excepted (empty unless the reject was an anomaly of reads or of the facts'
     * chains, or a cycle of the known graph).
     */
    List<Certificate> moreViolations = List.of();

    /**
     * The anomalies of reads (or of the facts' chains) after the first, each naming none of the transactions the earlier
     * ones name, and every lost update (two observed read-modify-writes of one version are a violation whatever else the
     * history holds: lost updates may share a transaction, docs/DESIGN.md §7.10).
     */
    private void moreReads(List<Anomaly> found) {
        List<Certificate> more = new ArrayList<>();
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int t : found.get(0).txns()) seen.add(t);
        for (int i = 1; i < found.size() && more.size() < MORE_VIOLATIONS; i++) {
            Anomaly a = found.get(i);
            boolean fresh = true;
            if (a.kind() != AnomalyKind.LOST_UPDATE) for (int t : a.txns()) fresh &= !seen.contains(t);
            if (!fresh) continue;
            for (int t : a.txns()) seen.add(t);
            more.add(certs().anomaly(List.of(a)));
        }
        moreViolations = more;
    }

    /**
     * Other cycles of the known graph as pruning left it, with no transaction in common with {@code first} or one another
     * (each found with the transactions of those before it taken out; the barrier and time points stay), made of observed
     * edges only. A derived edge holds in every serial order of the history, but its derivation may go through the other
     * violations' transactions: with them set aside it may not hold, and its cycle would be theirs, not a violation of its
     * own. Such a cycle stops the search (the verifier checks again without the others, and finds it then if it stands).
     */
    private void moreCycles(int[] first) {
        List<Certificate> more = new ArrayList<>();
        boolean[] alive = live.clone();
        int[] c = first;
        KnownGraph.Csr out = null;
        while (more.size() < MORE_VIOLATIONS) {
            for (int e : c) {
                int u = g.src.get(e), v = g.dst.get(e);
                if (u < h.size()) alive[u] = false;
                if (v < h.size()) alive[v] = false;
            }
            if (out == null) out = g.outCsr();
            c = CycleFinder.findCycle(g, out, alive);
            if (c == null) break;
            Certificate cert = certs().cycle(c);
            boolean observed = true;
            for (Certificate.Edge e : cert.cycle()) observed &= e.derivedBecause() == null || e.kind().equals("rt") || e.kind().equals("past");
            if (!observed) break;
            more.add(cert);
        }
        moreViolations = more;
    }

    private Verdict reject(Certificate c) {
        if (stats.decisionNanos == 0) stats.decisionNanos = System.nanoTime() - startNanos;
        return new Verdict(Verdict.Outcome.REJECT, c, null, null, stats, notes);
    }

    // ---- step 8: decompose, then solve ----

    private Verdict solveRemaining(Budget budget) {
        if (cons.activeCount == 0) return null;
        Decomposition d = new Decomposition(g, cons, priority);
        stats.constraintsToSolver = d.constraints;
        stats.components = d.groups.size();
        stats.largestComponent = d.largest;
        if (d.groups.isEmpty()) return null;
        List<IntVec> groups = d.groups;
        Integer[] order = d.order;
        int[][] globalOf = d.globalOf;
        Result[] results = ParallelSolving.solveAll(options.solver(), d.instances, order, budget);
        // apply in the same order as a sequential run would: the first refuted component (smallest first) decides
        int decided = 0;
        for (int gi : order) {
            Result r = results[gi];
            if (r == null) continue;
            stats.conflicts += r.conflicts();
            stats.decisions += r.decisions();
            if (r.status() == Result.Status.UNSAT) {
                IntVec grp = groups.get(gi);
                int[] core = r.coreVariables();
                int[] coreCons = new int[core.length];
                for (int i = 0; i < core.length; i++) coreCons[i] = grp.get(core[i]);
                return rejectFoundBySearch(coreCons, globalOf[gi]);
            }
        }
        for (int gi : order) {
            Result r = results[gi];
            if (r == null || r.status() != Result.Status.SAT) {
                String why = r == null ? "not reached" : r.reason();
                for (int x : order) if (results[x] != null && results[x].status() == Result.Status.SAT) decided++;
                return new Verdict(Verdict.Outcome.UNKNOWN, null, null, why + " (" + decided + " of " + groups.size()
                        + " independent components decided, all serializable so far)", stats, notes);
            }
            IntVec grp = groups.get(gi);
            for (int x = 0; x < grp.size(); x++) {
                int c = grp.get(x);
                cons.choose(g, c, !r.sideA()[x]);
            }
        }
        return null;
    }

    // ---- step 9: certificates (CertificateBuilder), and minimal ones for refutations by search ----

    private String tx(int t) { return h.label(t); }

    private CertificateBuilder certs() { return new CertificateBuilder(h, g, barrierVertex, barrier == null ? null : barrier.description(), realTimeVertex,
            barrier == null ? History.NO_TIME : barrier.oldMaxEnd()); }

    /**
     * The decision is made: report it at once (to {@link CheckOptions#onDecision}) with the solver's core as
     * the certificate, then improve that certificate within its own budget ({@link SearchCertificate}).
     */
    private Verdict rejectFoundBySearch(int[] coreCons, int[] group) {
        Certificate found = certs().unsat(cons, coreCons, group.length);
        stats.decisionNanos = System.nanoTime() - startNanos;
        String skip = !minimize ? "not asked for" : barrier != null ? "a sub-history would lose the collected past"
                : options.certificateSeconds() <= 0 ? "the certificate budget is 0" : null;
        if (skip != null) {
            int size = found.transactions().size();
            return reject(SearchCertificate.withReduction(found, new Certificate.Reduction(Certificate.Reduction.Status.AS_FOUND, size, size, 0, 0, skip)));
        }
        if (options.onDecision() != null) options.onDecision().accept(reject(found));
        long t = System.nanoTime();
        Certificate shrunk = SearchCertificate.shrink(h, options, subHistories(options), g, cons, coreCons, group, found, certs());
        stats.certificateNanos = System.nanoTime() - t;
        return reject(shrunk);
    }

    /** A case split for a small history refuted by search, within the caller's budget. */
    static List<String> caseAnalysis(History small, CheckOptions options, Budget budget) {
        return new Checker(small, options, false).caseAnalysis(budget);
    }

    /** The checker as the certificate's search needs it ({@link SubHistoryChecks}), with {@code options}. */
    static SubHistoryChecks subHistories(CheckOptions options) {
        return new SubHistoryChecks() {
            @Override
            public Verdict check(History sub, Budget budget) { return checkWithoutMinimizing(sub, options, budget); }

            @Override
            public List<String> caseAnalysis(History small, Budget budget) { return Checker.caseAnalysis(small, options, budget); }
        };
    }

    /** Steps 1 to 7 on this (small, search-refuted) history, then a case split on open write orders, up to depth 3. */
    private List<String> caseAnalysis(Budget budget) {
        List<String> lines = new ArrayList<>();
        rf = new ReadFromIndex(h);
        if (!rf.anomalies.isEmpty()) { lines.add("already: " + rf.anomalies.get(0).explanation()); return lines; }
        newGraph();
        List<Anomaly> chainAnomalies = new ArrayList<>();
        cons = new Constraints(new Chains(h, rf, g, chainAnomalies));
        if (!chainAnomalies.isEmpty()) { lines.add("already: " + chainAnomalies.get(0).explanation()); return lines; }
        priority = serialGuess(sessionPred);
        int[] cycle = new Pruner().prune(g, cons, live, sessionPred, priority, options.reachability(), budget);
        if (cycle != null) lines.add("already: " + certs().cycle(cycle).summary());
        else split(0, "", lines, budget);
        return lines;
    }

    private void split(int depth, String indent, List<String> lines, Budget budget) {
        int c = -1;
        for (int i = 0; i < cons.size() && c < 0; i++) if (cons.active[i]) c = i;
        if (c < 0) { lines.add(indent + "(no open write order left)"); return; }
        Chains ch = cons.chains;
        for (int side = 0; side < 2; side++) {
            boolean b = side == 1;
            int before = b ? cons.second.get(c) : cons.first.get(c), after = b ? cons.first.get(c) : cons.second.get(c);
            String text = "if " + tx(ch.chainTail.get(before)) + "'s write of " + History.show(h.keyName(cons.key(c))) + " precedes "
                    + tx(ch.chainHead.get(after)) + "'s";
            int edges = g.edgeCount(), derivs = g.derivConstraint.size();
            boolean[] active = cons.active.clone();
            int activeCount = cons.activeCount;
            cons.addSide(g, c, b, -1);
            cons.deactivate(c);
            int[] cycle = new Pruner().prune(g, cons, live, sessionPred, priority, options.reachability(), budget);
            if (cycle != null) lines.add(indent + text + ": " + certs().cycle(cycle).summary());
            else if (depth >= 2) lines.add(indent + text + ": (further cases omitted)");
            else {
                lines.add(indent + text + ":");
                split(depth + 1, indent + "  ", lines, budget);
            }
            g.truncate(edges, derivs);
            cons.active = active;
            cons.activeCount = activeCount;
        }
    }

}
