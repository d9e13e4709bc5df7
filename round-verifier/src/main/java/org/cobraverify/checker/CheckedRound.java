package org.cobraverify.checker;

import java.util.List;
import org.cobraverify.history.History;

/**
 * One round of an incremental verification, checked: the checker run on the retained history plus the round's
 * transactions, with the collected past as one vertex of its known graph, and, once the round is accepted, what
 * garbage collection reads of that check. It exists for garbage collection (package {@code org.cobraverify.gc} and
 * its {@code analysis}), which must reason over the round's own graph of facts without the checker's internals
 * leaving this package: everything it may see of them is here, in primitive arrays and int ids, with no copying.
 * The arguments garbage collection builds on what it reads here are in docs/DESIGN.md §7.
 *
 * <p><b>Vertices.</b> {@code 0..history().size()-1} are the transactions of the round's history (those not
 * {@link #included()} have no edges); in strict mode the real-time order's time points follow
 * ({@link #timePoints()}), then the past's real-time point ({@link #realTimeVertex()}) and the barrier
 * ({@link #barrierVertex()}), when the round was checked with a {@link Past}.
 *
 * <p><b>Facts.</b> Edges {@code 0..factEdges()-1} of the graph: the observed ones and those pruning forced, never the
 * sides the solver or decomposition chose. {@link #settle} is the only change this class makes to them: the facts then
 * also hold the settled sides, and the round's other choices are gone from the graph.
 *
 * <p>Every array returned is the checker's own, returned without copying: read it, never write it. The methods from
 * {@link #vertices()} on require {@link #accepted()}.
 */
public final class CheckedRound {
    private final Checker c;
    private final Verdict verdict;
    private final KnownGraph g;
    private final ReadFromIndex rf;
    private final Constraints cons;
    private int facts;

    private CheckedRound(Checker c, Verdict verdict) {
        this.c = c;
        this.verdict = verdict;
        this.g = c.graph();
        this.rf = c.readFrom();
        this.cons = c.constraints();
        this.facts = c.factEdges;
    }

    /**
     * Checks {@code h}, the retained history plus the round's transactions, with {@code past} standing for the
     * collected past (null: none collected yet). Pure, like {@link Checker#check}.
     */
    public static CheckedRound check(History h, CheckOptions options, Past past) {
        Checker c = Checker.forRound(h, options, past);
        Verdict v = c.runForRound();
        return new CheckedRound(c, v);
    }

    /** The round's verdict. */
    public Verdict verdict() { return verdict; }

    /** On a reject, other violations found with the first ({@link Checker}: at most 63, none sharing a transaction). */
    public List<Certificate> moreViolations() { return c.moreViolations; }

    /** Whether the round was accepted with its facts known: what the methods from {@link #vertices()} on require. */
    public boolean accepted() { return verdict.outcome() == Verdict.Outcome.ACCEPT && c.factEdges >= 0; }

    /** The history checked. */
    public History history() { return c.history(); }

    // ---- the graph of facts ----

    /** Vertices of the known graph: the history's transactions, then the time points and the past's vertices. */
    public int vertices() { return g.n; }

    /** How many edges of the graph are facts (edges {@code 0..factEdges()-1}); more after {@link #settle}. */
    public int factEdges() { return facts; }

    /** The source vertex of edge {@code e}. */
    public int edgeSource(int e) { return g.src.get(e); }

    /** The target vertex of edge {@code e}. */
    public int edgeTarget(int e) { return g.dst.get(e); }

    /** The kind of edge {@code e}: {@link KnownGraph#SO}, {@link KnownGraph#WR}, ... {@link KnownGraph#SETTLED}. */
    public int edgeKind(int e) { return g.kind.get(e); }

    /** The key id edge {@code e} concerns, or -1. */
    public int edgeKey(int e) { return g.key.get(e); }

    /** The out-edges of the facts, as they are now (a fresh adjacency: it does not follow a later {@link #settle}). */
    public Adjacency facts() { return g.csr(facts, false); }

    /** The in-edges of the facts, as they are now ({@link Adjacency#target()} holds sources). */
    public Adjacency factsReversed() { return g.csr(facts, true); }

    /**
     * A topological order of the live vertices (included transactions, time points, the past's) over {@code facts}, which
     * must come from {@link #facts()}; null if they have a cycle (never, for the facts of an accepted round).
     */
    public int[] topologicalOrder(Adjacency facts) { return CycleFinder.topologicalOrder(g, (KnownGraph.Csr) facts, c.liveVertices(), null); }

    /**
     * All-pairs reachability over the facts: {@code facts} from {@link #facts()} and {@code topo} its
     * {@link #topologicalOrder}, both taken since the last {@link #settle}. Throws {@link ReachabilityEngine.TooLarge}
     * when the index would need more than {@link #reachabilityCellLimit()} cells.
     */
    public Reach reachability(Adjacency facts, int[] topo) {
        return new Reachability(g, (KnownGraph.Csr) facts, topo, c.sessionPredecessors(), this.facts);
    }

    /** The most cells (vertices times chains) a {@link Reach} index may take: a quarter of the heap, within one int array. */
    public static long reachabilityCellLimit() { return Reachability.defaultMaxCells(); }

    // ---- the read-from index (step 1) ----

    /** Per transaction: whether the checker reasons about it (committed, or of unknown outcome and read by an included read). */
    public boolean[] included() { return rf.included; }

    /** Per operation: whether it is its transaction's final write of its key. */
    public boolean[] finalWrite() { return rf.finalWrite; }

    /** Per operation: its transaction. */
    public int[] opTxn() { return rf.opTxn; }

    /** How many external reads of included transactions the index lists (each once). */
    public int reads() { return rf.readTxn.size(); }

    /** The reader of read {@code i}. */
    public int readTxn(int i) { return rf.readTxn.get(i); }

    /** The key id of read {@code i}. */
    public int readKey(int i) { return rf.readKey.get(i); }

    /** The writer read {@code i} observed, or {@link ReadFromIndex#INIT} for the initial state. */
    public int readWriter(int i) { return rf.readWriter.get(i); }

    /** The transaction that wrote ({@code key}, {@code value}) in the history, or -1. */
    public int writerOf(int key, int value) { return rf.writerOf(key, value); }

    // ---- the open constraints ----

    /**
     * How many constraints the round had. Constraint {@code k} orders two chains of writes of one key: side A (B) puts
     * every source of the side before its target; exactly one side holds in any serial order.
     */
    public int constraintCount() { return cons.size(); }

    /** Whether pruning left constraint {@code k} open (the solver or decomposition chose its side). */
    public boolean leftOpen(int k) { return c.openAfterPrune[k]; }

    /** The target of every edge of side {@code sideB ? B : A} of constraint {@code k}: the head of the other chain. */
    public int sideTarget(int k, boolean sideB) { return cons.target(k, sideB); }

    /** The sources of side {@code sideB ? B : A} of constraint {@code k} are {@link #sideSource} of {@code sideSourcesStart..sideSourcesEnd-1}. */
    public int sideSourcesStart(int k, boolean sideB) { return cons.sourcesStart(k, sideB); }

    /** See {@link #sideSourcesStart}. */
    public int sideSourcesEnd(int k, boolean sideB) { return cons.sourcesEnd(k, sideB); }

    /** A source of a side (the readers of a chain's tail version, or the tail itself when it has none): a vertex. */
    public int sideSource(int i) { return cons.chains.rt[i]; }

    /**
     * Marks, among transactions below {@code marks.length}, every one constraint {@code k} involves: the writers of both its
     * chains and the sources of both its sides.
     */
    public void markTransactionsOf(int k, boolean[] marks) {
        Chains ch = cons.chains;
        int n = marks.length;
        for (int side = 0; side < 2; side++) {
            boolean sb = side == 1;
            int chain = cons.fromChain(k, sb);
            for (int slot = ch.chainTailSlot.get(chain); slot >= 0; slot = ch.pred[slot]) {
                int t = ch.slotTxn.get(slot);
                if (t >= 0 && t < n) marks[t] = true;
            }
            for (int i = cons.sourcesStart(k, sb); i < cons.sourcesEnd(k, sb); i++) if (ch.rt[i] < n) marks[ch.rt[i]] = true;
        }
    }

    /**
     * Settles for good every constraint {@code k} with {@code settled[k]} (each left open), on the side the round's solution
     * took: the graph drops the round's choices and the facts become the facts plus those sides, as
     * {@link KnownGraph#SETTLED} edges. Which constraints may be settled without changing a verdict is the caller's
     * argument (docs/DESIGN.md §7.7). Adjacencies, orders and reachability taken before are of the facts before.
     */
    public void settle(boolean[] settled) {
        g.truncate(facts, g.derivConstraint.size());
        for (int k = 0; k < cons.size(); k++) if (settled[k]) cons.addSettledSide(g, k);
        facts = g.edgeCount();
    }

    // ---- the past and real time ----

    /** The collected past the round was checked with, or null. */
    public Past past() { return c.past(); }

    /** The past's vertex B in the graph, or -1. */
    public int barrierVertex() { return c.barrierVertex; }

    /** In strict mode with a past: the vertex of the past's real-time point R, or -1. */
    public int realTimeVertex() { return c.realTimeVertex; }

    /** Whether real-time order is part of the property checked. */
    public boolean strict() { return c.strict(); }

    /** Strict mode: the end times of the real-time order's time points (vertices from {@code history().size()} on), ascending; else empty. */
    public long[] timePoints() { return c.timePoints(); }

    /**
     * When {@code t} ended, for real-time order: its recorded end, except for a transaction of unknown outcome (its commit
     * may take effect after its client gave up): {@link History#NO_TIME}.
     */
    public static long realTimeEnd(History h, int t) { return RealTimeOrder.end(h, t); }

    /**
     * Adds the past's B edges to {@code g}, with B at vertex {@code b}, and in strict mode ({@code driftNanos} not negative)
     * R's, with R at vertex {@code rt} (-1 outside strict mode): the edges {@link Past} lists.
     */
    static void addPastEdges(Past past, History h, boolean[] included, KnownGraph g, int b, int rt, long driftNanos) {
        int[] carriedSrc = past.carriedSrc(), carriedDst = past.carriedDst(), carriedKind = past.carriedKind(), carriedKey = past.carriedKey();
        for (int i = 0; i < carriedSrc.length; i++)
            if (included[carriedSrc[i]] && included[carriedDst[i]]) g.add(carriedSrc[i], carriedDst[i], carriedKind[i], carriedKey[i], KnownGraph.CARRIED);
        for (int t : past.before()) if (included[t]) g.add(t, b, KnownGraph.PAST, -1);
        for (int t : past.after()) if (included[t]) g.add(b, t, KnownGraph.PAST, -1);
        if (driftNanos < 0 || rt < 0) return;
        for (int t : past.rtBefore()) if (included[t]) g.add(t, rt, KnownGraph.PAST, -1);
        if (past.pastBeforeRt()) g.add(b, rt, KnownGraph.PAST, -1);
        long oldMaxEnd = past.oldMaxEnd(), oldMaxStart = past.oldMaxStart();
        for (int t = 0; t < h.size(); t++) {
            if (!included[t]) continue;
            if (oldMaxEnd != History.NO_TIME && h.start(t) != History.NO_TIME && h.start(t) > oldMaxEnd + driftNanos)
                g.add(rt, t, KnownGraph.RT, -1);
            long end = RealTimeOrder.end(h, t);
            if (oldMaxStart != History.NO_TIME && end != History.NO_TIME && end + driftNanos < oldMaxStart)
                g.add(t, b, KnownGraph.RT, -1);
        }
    }

    /**
     * The collected past, as the checker takes it: a vertex B placed after every old transaction (of an epoch garbage
     * collection has closed) and, in strict mode, a vertex R, the past's real-time point. The checker adds, as facts:
     * the carried facts between included transactions ({@code carriedSrc[i] → carriedDst[i]}, of kind
     * {@code carriedKind[i]} on key {@code carriedKey[i]}); {@code T → B} for T in {@link #before()} and
     * {@code B → F} for F in {@link #after()} ({@link KnownGraph#PAST}); and in strict mode {@code U → R} for U in
     * {@link #rtBefore()}, {@code B → R} when {@link #pastBeforeRt()}, {@code R → T} ({@link KnownGraph#RT}) for every T
     * that started after {@link #oldMaxEnd()} plus drift, and {@code T → B} for every T that ended, plus drift, before
     * {@link #oldMaxStart()}. Edges that touch a transaction the checker does not include are left out. Why these are
     * facts, and the assumptions they rest on (A3, A4, A9): docs/DESIGN.md §7.3.
     */
    public interface Past {
        /** Transactions (indexes into the round's history) with an edge to B. */
        int[] before();
        /** Entry fences (indexes) that B precedes. */
        int[] after();
        /** Strict mode: transactions (indexes) with an edge to R. */
        int[] rtBefore();
        /** Strict mode: whether B precedes R. */
        boolean pastBeforeRt();
        /** The latest end time of any old transaction, or {@link History#NO_TIME}. */
        long oldMaxEnd();
        /** The latest start time of any old transaction, or {@link History#NO_TIME}. */
        long oldMaxStart();
        /** How certificates explain a path through B. */
        String description();
        /** Carried facts: sources (indexes), parallel to {@link #carriedDst}, {@link #carriedKind} and {@link #carriedKey}. */
        int[] carriedSrc();
        int[] carriedDst();
        /** {@link KnownGraph#RW}, {@link KnownGraph#WW}, {@link KnownGraph#PATH} or {@link KnownGraph#SETTLED}. */
        int[] carriedKind();
        /** Key ids, or -1. */
        int[] carriedKey();
    }

    /**
     * Out-adjacency (or in-adjacency) of the facts in CSR form: the edges of vertex {@code v} lead to
     * {@code target()[start()[v] .. start()[v+1]-1]}.
     */
    public interface Adjacency {
        /** Per vertex, and one past the last: where its edges begin in {@link #target()}. */
        int[] start();
        /** The other ends of the edges, grouped by vertex. */
        int[] target();
        /** The vertices below {@code n} reached from any of {@code sources} (themselves included). */
        boolean[] reachedFrom(int n, int... sources);
    }

    /**
     * All-pairs reachability over the facts, compressed by a chain cover: {@code u ⇝ v} iff
     * {@code reachTable()[u*chains() + chainOf()[v]] <= positions()[v]}, for {@code v} on a chain; a vertex on none
     * ({@code chainOf()[v] == -1}, a satellite: no in-edge and no session successor) is reached only by itself.
     */
    public interface Reach {
        /** True iff there is a path from {@code u} to {@code v} in the facts (of length zero when u == v). Both must be live. */
        boolean reaches(int u, int v);
        /** How many chains the cover has (at least 1). */
        int chains();
        /** Per vertex: its chain, or -1 for a satellite. */
        int[] chainOf();
        /** Per vertex on a chain: its position on it, from 0 in topological order. */
        int[] positions();
        /** {@code reachTable()[v*chains() + c]}: the smallest position on chain {@code c} that {@code v} reaches, or more than any. */
        int[] reachTable();
    }
}
