package org.cobraverify.checker;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Which transactions of an accepted round can be deleted for good (paper §4.3, made checkable).
 *
 * <p>Definitions, over the facts of the round's known graph (observed edges and the sides pruning forced;
 * never the solver's choices), where "old" transactions are those of epochs GC has closed:
 * <ul>
 *   <li>the <em>frontier</em> of key x: the old writers of x that reach no other old writer of x (the
 *       writes a later transaction may still legally read; with blind writes there can be several);</li>
 *   <li><em>superseded</em>: old, on the frontier of no key, and reached only from old transactions;</li>
 *   <li><em>collectible</em>: superseded, not pinned (a waiting transaction reads it), and in no constraint
 *       pruning left open (not in either chain, not a source of either side).</li>
 * </ul>
 * The paper keeps instead every superseded transaction on a cycle of g' (the facts plus both sides of every
 * open constraint) through a non-superseded one. On blind writes that rule keeps nearly everything (its
 * limitation L6): an open constraint between two old writers that a later transaction read joins one
 * strongly connected component with every transaction between them. The local rule is enough because
 * deletion loses nothing else: facts between transactions that stay are carried, paths through collected
 * ones are kept as edges ({@code contract}), and a later transaction meets the collected past only through the
 * barrier and the stale-read judgement. The argument is written once, in docs/DESIGN.md §7.3–§7.5 and §7.8;
 * {@code RoundsAgainstOneShotPropertyTest} holds this class to one-shot checks of whole histories.
 * GC also checks the barrier the next round will use ({@link Barrier}): every retained old transaction
 * (and the previous barrier) must reach every entry fence in the facts; if one does not, nothing is
 * collected and {@link #skipped} says why. A transaction that later reads a collected write reads a
 * superseded value (T' wrote x after it, T' ⇝ every later transaction): a violation, reported with
 * {@link #supersededBy}.
 *
 * <p>Definitions, soundness argument and the assumptions it rests on (A3, A4, A6): docs/DESIGN.md §7.2–§7.8.
 */
public final class GarbageCollection {
    /** Per transaction of the round's history: delete it. */
    public final boolean[] collect;
    /** Per operation: for a final write of a collected transaction, the frontier writer of that key it reaches; else -1. */
    public final int[] supersededBy;
    /** Why nothing was collected, or null. */
    public final String skipped;
    /** How many transactions were superseded (collected or not). */
    public final int superseded;
    /** The operations that are frontier writes (an old writer's last write of a key that reaches no other old writer of it), ascending. */
    public int[] frontierOps = new int[0];
    /** The frontier writes of transactions collected as data ({@link FrontierAsData}): each becomes its key's frontier record. */
    public int[] frontierAsData = new int[0];
    /**
     * Superseded marks made now (docs/DESIGN.md §7.9): final writes of old writers that stay, of keys whose frontier
     * writer goes as data in this collection ({@code markOps}), each with its transaction ({@code markTxn}) and that writer
     * ({@code markBy}, parallel). The caller collects those writes (superseded by that writer) while their transactions
     * stay; the reads of them by transactions that stay are carried as facts (writer before reader).
     */
    public int[] markOps = new int[0], markTxn = new int[0], markBy = new int[0];
    /**
     * Strict mode (docs/DESIGN.md §7.3): per transaction of the round's history, whether it stays and reaches, in the facts,
     * the past's real-time point of this round or a transaction that ended by {@link #rtMaxEnd} (it precedes whatever starts
     * after that, plus drift); null outside strict mode. {@link #pastBeforeRt}: whether every transaction the next past
     * stands for (this round's old ones and the previous past) does.
     */
    public boolean[] rtBefore;
    public boolean pastBeforeRt = true;
    /** Strict mode: the latest end of an old transaction of the checked history, the previous past's included (or {@link History#NO_TIME}). */
    public long rtMaxEnd = History.NO_TIME;
    /**
     * Per transaction of the round's history: old as this collection treats it (the plan's old ones, less those that do not
     * reach every entry fence, {@link Kept#NOT_BEFORE_ENTRY_FENCES}). What the next past stands for.
     */
    public boolean[] old;
    /** After an analysis that collects: u ⇝ v in the facts (vertices of the round's graph), for the caller's own questions this round. */
    private Reachability reach;
    /** The barrier's vertex in the round's graph, or -1. */
    public int barrierVertex = -1;

    /** Whether {@code u} reaches {@code v} in the facts the analysis used (transactions of the round's history, or the barrier). */
    public boolean reaches(int u, int v) { return reach != null && reach.reaches(u, v); }
    /** Why a transaction of the round's history stays after collection (the first reason that applies, in this order). */
    public enum Kept {
        /** Its epoch is not closed yet. */
        NOT_OLD,
        /**
         * Its epoch is closed, but it does not reach every entry fence of the next past in the facts (a session's last
         * transactions that nothing later follows), so the past cannot stand for it: it is not old this round.
         */
        NOT_BEFORE_ENTRY_FENCES,
        /** A transaction that is not old reaches it in the facts. */
        REACHED_FROM_LATER,
        /** A waiting transaction, or one of unknown outcome that may still join, reads it. */
        PINNED,
        /** It is in an open constraint that settlement left open (a chain or a source of a side). */
        OPEN_CONSTRAINT,
        /** A frontier writer of a key whose frontier several unordered old writers share (docs/DESIGN.md §7.9, condition 1). */
        FRONTIER_SHARED,
        /**
         * A frontier writer of a key another old writer of which stays and cannot have its writes of the key collected
         * (condition 2: synthetic, outside the checked history, or a write of it read by a transaction outside it).
         */
        FRONTIER_OLD_WRITER_STAYS,
        /** A frontier writer of a key a writer or reader of which stays without following the next past (condition 3). */
        FRONTIER_NOT_FOLLOWED,
        /** Any other frontier writer that stays (kept by the rules, or a write by list append). */
        FRONTIER_WRITER,
        /** Anything else (for example an old transaction of unknown outcome not yet set aside). */
        OTHER
    }

    /**
     * How many transactions of the round stay, by {@link Kept} reason (indexed by ordinal): what the retained set is
     * made of, for people watching it grow. All zero when nothing could be analysed.
     */
    public int[] kept = new int[Kept.values().length];

    /**
     * The {@link Kept} reason (its ordinal) of a frontier writer that stays, by {@link FrontierAsData}'s why: a lookup, not a
     * chain of tests. Some reasons turn up only after hundreds of rounds (a handful of old writers that stay in a TPC-C
     * round); a test the JIT had never seen taken sent this whole method back to the interpreter, twice in a 1M check,
     * and C2 compiled it again for a second each time.
     */
    private static final int[] KEPT_FOR = new int[FrontierAsData.OTHER + 1];
    static {
        java.util.Arrays.fill(KEPT_FOR, Kept.FRONTIER_WRITER.ordinal());
        KEPT_FOR[FrontierAsData.SHARED] = Kept.FRONTIER_SHARED.ordinal();
        KEPT_FOR[FrontierAsData.OLD_WRITER_STAYS] = Kept.FRONTIER_OLD_WRITER_STAYS.ordinal();
        KEPT_FOR[FrontierAsData.NOT_FOLLOWED] = Kept.FRONTIER_NOT_FOLLOWED.ordinal();
    }

    /** The {@link Kept} ordinal of a frontier writer that stays, given {@link FrontierAsData}'s why for it. */
    static int keptFor(byte frontierWhy) { return KEPT_FOR[frontierWhy]; }

    /** The kinds of fact edges carried between transactions that stay (a mask by kind: rare kinds, such as settled sides, take no branch of their own). */
    private static final int CARRIED_KINDS = 1 << KnownGraph.RW | 1 << KnownGraph.WW | 1 << KnownGraph.PATH | 1 << KnownGraph.SETTLED;

    /** How many open constraints were settled for good ({@link Settlement}); their sides are carried as facts. */
    public final int settled;
    /**
     * Facts to carry into later rounds: the rw and ww edges of the facts between transactions that stay
     * (a rebuild of the retained history would lose those whose proof involved collected ones), as
     * source, target, kind and key id; pairs are listed once.
     */
    public final int[] carrySrc, carryDst, carryKind, carryKey;

    /**
     * The rules GC follows. Every command uses {@link #SOUND}; the careless rules exist so that tests can show what
     * the sound ones prevent (each careless rule turns a verdict a test names into the wrong one).
     */
    public enum Rules {
        /** The rules of this class comment and docs/DESIGN.md §7. */
        SOUND,
        /**
         * The paper's "careless" GC, which its own example defeats: collect every superseded transaction, even in an
         * open constraint, keep no paths through the collected ones and carry no facts; settle nothing.
         */
        CARELESS_COLLECTION,
        /**
         * Settle open constraints without treating old frontier writers as sources of the future (a later read of
         * one of two unordered frontier writers then contradicts a settled order).
         */
        CARELESS_SETTLING,
        /**
         * The sound rules, but a frontier writer is never collected (as before docs/DESIGN.md §7.9): for comparisons.
         */
        FRONTIER_KEPT,
        /**
         * Collect an old frontier writer as data whenever it is the only frontier writer of its keys, without waiting for
         * the other old writers of those keys to go with it, or for later writers and readers to follow the next past.
         */
        CARELESS_FRONTIER,
        /**
         * The sound rules as before superseded marks (docs/DESIGN.md §7.9): a frontier writer waits until every other old
         * writer of its keys goes with it. For comparisons.
         */
        FRONTIER_WAITS,
        /**
         * Collect a frontier writer as data while an older writer of its key stays, as the sound rules do, but leave that
         * writer's write unmarked: later rounds take it for the key's frontier. What the marks prevent.
         */
        CARELESS_MARKS;

        /** Whether a frontier writer may go as data while an older writer of its key stays, marked superseded. */
        public boolean marks() { return this == SOUND || this == CARELESS_MARKS; }
    }

    private GarbageCollection(boolean[] collect, int[] supersededBy, String skipped, int superseded, int settled, IntVec[] carry) {
        this.collect = collect;
        this.supersededBy = supersededBy;
        this.skipped = skipped;
        this.superseded = superseded;
        this.settled = settled;
        this.carrySrc = carry == null ? new int[0] : carry[0].toArray();
        this.carryDst = carry == null ? new int[0] : carry[1].toArray();
        this.carryKind = carry == null ? new int[0] : carry[2].toArray();
        this.carryKey = carry == null ? new int[0] : carry[3].toArray();
    }

    private GarbageCollection(boolean[] collect, int[] supersededBy, String skipped, int superseded) {
        this(collect, supersededBy, skipped, superseded, 0, null);
    }

    /**
     * Requires: {@code c} accepted its round ({@code c.factEdges >= 0}). {@code old[t]}: t's epoch is
     * closed; {@code entries}: the entry fences of the next barrier; {@code pinned[t]}: keep t.
     */
    static GarbageCollection analyze(Checker c, boolean[] old, int[] entries, boolean[] pinned, Rules rules, int synthetic) {
        boolean careless = rules == Rules.CARELESS_COLLECTION;
        History h = c.history();
        KnownGraph g = c.graph();
        ReadFromIndex rf = c.readFrom();
        boolean[] live = c.liveVertices();
        int n = h.size(), vn = g.n;
        int facts = c.factEdges;
        boolean[] none = new boolean[n];
        int[] noSup = new int[h.opCount()];
        Arrays.fill(noSup, -1);
        KnownGraph.Csr out = g.csr(facts, false);
        int[] topo = CycleFinder.topologicalOrder(g, out, live, null);
        if (topo == null) return new GarbageCollection(none, noSup, "internal: the facts of an accepted round have a cycle", 0);
        Reachability r;
        try {
            r = new Reachability(g, out, topo, c.sessionPredecessors(), facts);
        } catch (ReachabilityEngine.TooLarge e) {
            return new GarbageCollection(none, noSup, e.getMessage(), 0);
        }
        int b = c.barrierVertex;
        // the next barrier: the current barrier reaches every entry fence, and so does every old transaction of the checked
        // history that the next past will stand for (A4). One that does not (the last transactions of a session that
        // ended, which nothing later follows: no fence, no read, no real time) is not old this round: it stays, and so
        // does whatever it reaches (docs/DESIGN.md §7.2)
        boolean[] notBefore = null;
        for (int f : entries) {
            if (!rf.included[f]) return new GarbageCollection(none, noSup, "entry fence " + h.label(f) + " is not a committed transaction", 0);
            if (b >= 0 && !r.reaches(b, f))
                return new GarbageCollection(none, noSup, "the collected past does not reach " + h.label(f) + ", the latest fence of its session", 0);
            for (int t = 0; t < n; t++) {
                if (old[t] && rf.included[t] && !r.reaches(t, f)) {
                    if (notBefore == null) { notBefore = new boolean[n]; old = old.clone(); }
                    notBefore[t] = true;
                    old[t] = false;
                }
            }
        }
        // reached only from old transactions
        boolean[] bad = new boolean[vn];
        for (int t = 0; t < n; t++) bad[t] = rf.included[t] && !old[t];
        for (int v : topo) if (bad[v]) for (int p = out.start[v]; p < out.start[v + 1]; p++) bad[out.target[p]] = true;

        // per key, per chain of the cover: the latest old final write on that chain
        // (counted first: grown by doubling, these four were 3.5% of a TPC-C check's allocation)
        int finals = 0;
        for (int t = 0; t < n; t++) {
            if (!old[t] || !rf.included[t] || r.chainOf[t] < 0) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (rf.finalWrite[op]) finals++;
        }
        IntVec wKey = new IntVec(finals), wChain = new IntVec(finals), wPos = new IntVec(finals), wTxn = new IntVec(finals);
        for (int t = 0; t < n; t++) {
            if (!old[t] || !rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!rf.finalWrite[op] || r.chainOf[t] < 0) continue; // a satellite: nothing else reaches it
                wKey.add(h.key(op)); wChain.add(r.chainOf[t]); wPos.add(r.pos[t]); wTxn.add(t);
            }
        }
        int m = wKey.size();
        // grouped by key (a primitive sort of key and index), then per chain the latest position (a stamped scratch row)
        long[] byKey = new long[m];
        for (int i = 0; i < m; i++) byKey[i] = ((long) wKey.get(i) << 32) | i;
        Arrays.sort(byKey);
        int keys = h.keyCount();
        int[] keyStart = new int[keys + 1];
        IntVec gChain = new IntVec(m), gPos = new IntVec(m);
        int[] chainStamp = new int[Math.max(1, r.chains)], chainLatest = new int[Math.max(1, r.chains)];
        IntVec chainsSeen = new IntVec();
        for (int a = 0, group = 0; a < m; group++) {
            int key = (int) (byKey[a] >>> 32), z = a;
            chainsSeen.clear();
            for (; z < m && (int) (byKey[z] >>> 32) == key; z++) {
                int w = (int) byKey[z], ch = wChain.get(w), p = wPos.get(w);
                if (chainStamp[ch] != group + 1) { chainStamp[ch] = group + 1; chainLatest[ch] = p; chainsSeen.add(ch); }
                else if (p > chainLatest[ch]) chainLatest[ch] = p;
            }
            for (int j = 0; j < chainsSeen.size(); j++) {
                gChain.add(chainsSeen.get(j));
                gPos.add(chainLatest[chainsSeen.get(j)]);
                keyStart[key + 1]++;
            }
            a = z;
        }
        for (int k = 0; k < keys; k++) keyStart[k + 1] += keyStart[k];
        // frontier: old writers of x that reach no other old writer of x
        boolean[] frontierWrite = new boolean[h.opCount()];
        boolean[] superseded = new boolean[n];
        int supersededCount = 0;
        for (int t = 0; t < n; t++) {
            if (!old[t] || !rf.included[t]) continue;
            boolean sup = !bad[t];
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!rf.finalWrite[op]) continue;
                int k = h.key(op);
                boolean reachesLater = false;
                for (int j = keyStart[k]; j < keyStart[k + 1] && !reachesLater; j++) {
                    int ch = gChain.get(j), mp = gPos.get(j);
                    reachesLater = ch == r.chainOf[t] ? mp > r.pos[t] : r.reach[t * r.chains + ch] <= mp;
                }
                if (!reachesLater) { frontierWrite[op] = true; sup = false; }
            }
            superseded[t] = sup;
            if (sup) supersededCount++;
        }
        // open constraints that nothing later can reach are settled on the side this round chose (Settlement)
        Constraints cons = c.constraints();
        boolean[] settled = careless ? new boolean[cons.size()]
                : Settlement.settle(vn, out, cons, c.openAfterPrune, sourcesOfTheFuture(h, rf, r, old, frontierWrite, vn, b, rules == Rules.CARELESS_SETTLING));
        int settledCount = 0;
        for (boolean x : settled) if (x) settledCount++;
        if (settledCount > 0) {
            // the facts become the facts plus the settled sides (the other choices of this round are dropped)
            g.truncate(facts, g.derivConstraint.size());
            for (int ci = 0; ci < cons.size(); ci++) if (settled[ci]) cons.addSettledSide(g, ci);
            facts = g.edgeCount();
            out = g.csr(facts, false);
            topo = CycleFinder.topologicalOrder(g, out, live, null);
            if (topo == null) return new GarbageCollection(none, noSup, "internal: the settled sides of an accepted round have a cycle", 0);
            try {
                r = new Reachability(g, out, topo, c.sessionPredecessors(), facts);
            } catch (ReachabilityEngine.TooLarge e) {
                return new GarbageCollection(none, noSup, e.getMessage(), 0);
            }
        }
        // open constraints pin: every transaction of a chain in a constraint pruning left open, and every source
        // of its sides (the readers of a chain's tail, or the tail itself). Their future resolution may still
        // matter; everything else a collected transaction took part in is a fact, and facts and paths are kept.
        Chains ch = cons.chains;
        boolean[] inOpen = new boolean[n];
        for (int ci = 0; ci < cons.size(); ci++) {
            if (!c.openAfterPrune[ci] || settled[ci]) continue;
            for (int side = 0; side < 2; side++) {
                boolean sb = side == 1;
                int chain = cons.fromChain(ci, sb);
                for (int slot = ch.chainTailSlot.get(chain); slot >= 0; slot = ch.pred[slot]) {
                    int t = ch.slotTxn.get(slot);
                    if (t >= 0 && t < n) inOpen[t] = true;
                }
                for (int i = cons.sourcesStart(ci, sb); i < cons.sourcesEnd(ci, sb); i++) if (ch.rt[i] < n) inOpen[ch.rt[i]] = true;
            }
        }
        boolean[] collect = new boolean[n];
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) {
                // aborted, or of unknown outcome and read by nobody so far: their writes are remembered as such
                collect[t] = old[t] && h.status(t) != History.COMMITTED && (pinned == null || !pinned[t]);
                continue;
            }
            collect[t] = superseded[t] && (pinned == null || !pinned[t]) && (careless || !inOpen[t]);
        }
        byte[] frontierWhy = new byte[n];
        java.util.Arrays.fill(frontierWhy, FrontierAsData.OTHER);
        // a writer whose write a transaction outside the checked history reads cannot have that write collected while it
        // stays (should a later read include the reader, its read could not be judged): no mark for it
        // (the read-from index never looks at the reads of those transactions: they are read from the history itself)
        boolean[] readOutside = new boolean[n];
        for (int t = 0; t < n; t++) {
            if (rf.included[t] || h.status(t) == History.ABORTED) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = rf.writerOf(h.key(op), h.value(op));
                if (w >= 0 && w != t) readOutside[w] = true;
            }
        }
        boolean[] asData = careless || rules == Rules.FRONTIER_KEPT ? new boolean[n]
                : FrontierAsData.collectible(h, rf, out, frontierWrite, old, bad, pinned, inOpen, entries, collect, synthetic,
                                             rules == Rules.CARELESS_FRONTIER, rules.marks() ? readOutside : null, frontierWhy);
        // for each collected write, a frontier write of its key that it reaches: the proof a later read of it is stale
        int[] supBy = new int[h.opCount()];
        Arrays.fill(supBy, -1);
        IntVec[] frontierOfKey = new IntVec[keys];
        for (int t = 0; t < n; t++) {
            if (!old[t] || !rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!frontierWrite[op]) continue;
                int k = h.key(op);
                if (frontierOfKey[k] == null) frontierOfKey[k] = new IntVec(2);
                frontierOfKey[k].add(t);
            }
        }
        for (int t = 0; t < n; t++) {
            if (!collect[t] || !rf.included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!rf.finalWrite[op] || (asData[t] && frontierWrite[op])) continue;
                IntVec fr = frontierOfKey[h.key(op)];
                for (int i = 0; fr != null && i < fr.size(); i++) if (r.reaches(t, fr.get(i))) { supBy[op] = fr.get(i); break; }
                if (supBy[op] < 0) throw new IllegalStateException("internal: superseded " + h.label(t) + " reaches no frontier write of its key");
            }
        }
        IntVec[] carry = {new IntVec(), new IntVec(), new IntVec(), new IntVec()};
        if (careless) {
            GarbageCollection g0 = new GarbageCollection(collect, supBy, null, supersededCount, 0, carry);
            g0.old = old;
            return g0;
        }
        IntVec[] marks = rules.marks() ? marks(h, rf, old, collect, frontierWrite, asData, synthetic) : null;
        LongIntMap pairs = new LongIntMap(Math.max(16, facts / 4));
        for (int e = 0; e < facts; e++) {
            int k = g.kind.get(e), u = g.src.get(e), v = g.dst.get(e);
            if ((CARRIED_KINDS & (1 << k)) == 0 || u >= n || v >= n || collect[u] || collect[v] || u >= synthetic || v >= synthetic) continue;
            if (!addPair(pairs, u, v)) continue;
            carry[0].add(u); carry[1].add(v); carry[2].add(k); carry[3].add(g.key.get(e));
        }
        // a marked write leaves the later rounds' histories, and with it the reads of it by transactions that stay: the
        // order writer -> reader is carried instead (a fact: the reader read the write)
        if (marks != null && marks[0].size() > 0) {
            LongIntMap markedAt = new LongIntMap(Math.max(16, marks[0].size() * 2));
            for (int i = 0; i < marks[0].size(); i++) markedAt.put(LongIntMap.pack(h.key(marks[0].get(i)), marks[1].get(i)), i);
            for (int i = 0; i < rf.readTxn.size(); i++) {
                int w = rf.readWriter.get(i), t = rf.readTxn.get(i);
                if (w < 0 || t == w || t >= synthetic || collect[t] || !rf.included[t]) continue;
                if (markedAt.get(LongIntMap.pack(rf.readKey.get(i), w)) != LongIntMap.MISSING) addPath(w, t, pairs, carry);
            }
        }
        String why = contract(g, rf, r, topo, facts, n, b, collect, pairs, carry, synthetic);
        if (why != null) return new GarbageCollection(new boolean[n], noSup, why, supersededCount);
        if (synthetic < n) carry = withoutSynthetic(carry, synthetic);
        GarbageCollection done = new GarbageCollection(collect, supBy, null, supersededCount, settledCount, carry);
        done.old = old;
        done.reach = r;
        done.barrierVertex = b;
        if (c.strict()) realTimeBefore(c, h, rf, g.csr(facts, true), old, collect, synthetic, b, done);
        boolean[] onFrontier = new boolean[n];
        for (int t = 0; t < n; t++) for (int op = h.opStart(t); op < h.opEnd(t) && !onFrontier[t]; op++) onFrontier[t] = frontierWrite[op];
        for (int t = 0; t < synthetic; t++) {
            if (collect[t]) continue;
            int reason = notBefore != null && notBefore[t] ? Kept.NOT_BEFORE_ENTRY_FENCES.ordinal()
                    : !old[t] ? Kept.NOT_OLD.ordinal() : rf.included[t] && bad[t] ? Kept.REACHED_FROM_LATER.ordinal()
                    : pinned != null && pinned[t] ? Kept.PINNED.ordinal() : inOpen[t] ? Kept.OPEN_CONSTRAINT.ordinal()
                    : !onFrontier[t] ? Kept.OTHER.ordinal() : keptFor(frontierWhy[t]);
            done.kept[reason]++;
        }
        IntVec fops = new IntVec(), dops = new IntVec();
        for (int op = 0; op < frontierWrite.length; op++) {
            if (!frontierWrite[op]) continue;
            fops.add(op);
            if (asData[rf.opTxn[op]]) dops.add(op);
        }
        done.frontierOps = fops.toArray();
        done.frontierAsData = dops.toArray();
        if (marks != null) {
            done.markOps = marks[0].toArray();
            done.markTxn = marks[1].toArray();
            done.markBy = marks[2].toArray();
        }
        return done;
    }

    /**
     * Strict mode: which staying transactions precede the next past's real-time point, and whether the next past does
     * (docs/DESIGN.md §7.3). The point stands for {@code maxEnd}, the latest end of an old transaction (this round's included
     * ones and the previous past's); a vertex precedes it when it reaches, in the facts, the previous point or a time point
     * of the round's real-time order at or before {@code maxEnd} (so a transaction that ended by then). An old transaction
     * without an end that reaches neither does not precede it, and then neither does the past.
     */
    private static void realTimeBefore(Checker c, History h, ReadFromIndex rf, KnownGraph.Csr in, boolean[] old, boolean[] collect, int synthetic,
                                       int b, GarbageCollection done) {
        int n = h.size(), vn = in.start.length - 1;
        long maxEnd = c.barrier() == null ? History.NO_TIME : c.barrier().oldMaxEnd();
        for (int t = 0; t < n; t++)
            if (old[t] && rf.included[t] && RealTimeOrder.end(h, t) != History.NO_TIME && (maxEnd == History.NO_TIME || h.end(t) > maxEnd)) maxEnd = h.end(t);
        done.rtMaxEnd = maxEnd;
        long[] points = c.timePoints();
        int last = -1; // the latest time point at or before maxEnd
        if (maxEnd != History.NO_TIME) for (int k = 0; k < points.length && points[k] <= maxEnd; k++) last = k;
        int[] sources = c.realTimeVertex >= 0 && last >= 0 ? new int[] {c.realTimeVertex, n + last}
                : c.realTimeVertex >= 0 ? new int[] {c.realTimeVertex} : last >= 0 ? new int[] {n + last} : new int[0];
        boolean[] reaches = in.reachedFrom(vn, sources); // backwards over the facts
        boolean all = b < 0 || reaches[b];
        for (int t = 0; t < n && all; t++) if (old[t] && rf.included[t] && !reaches[t]) all = false;
        done.pastBeforeRt = all;
        done.rtBefore = new boolean[n];
        for (int t = 0; t < Math.min(n, synthetic); t++) done.rtBefore[t] = reaches[t] && rf.included[t] && !collect[t];
    }

    /**
     * The superseded marks of a collection: for each key whose frontier write goes as data, the final writes of the old
     * writers of that key that stay (each reaches that frontier write: it is the only one, FrontierAsData condition 1).
     */
    private static IntVec[] marks(History h, ReadFromIndex rf, boolean[] old, boolean[] collect, boolean[] frontierWrite,
                                  boolean[] asData, int synthetic) {
        int[] by = new int[h.keyCount()];
        Arrays.fill(by, -1);
        for (int op = 0; op < frontierWrite.length; op++) if (frontierWrite[op] && asData[rf.opTxn[op]]) by[h.key(op)] = rf.opTxn[op];
        IntVec ops = new IntVec(), txns = new IntVec(), bys = new IntVec();
        for (int op = 0; op < h.opCount(); op++) {
            if (!rf.finalWrite[op] || frontierWrite[op]) continue;
            int t = rf.opTxn[op], f = by[h.key(op)];
            if (f < 0 || t == f || t >= synthetic || collect[t] || !old[t] || !rf.included[t]) continue;
            ops.add(op);
            txns.add(t);
            bys.add(f);
        }
        return new IntVec[] {ops, txns, bys};
    }

    /**
     * Keeps every path between transactions that stay when the ones between them go: for each chain of the
     * cover, an edge between consecutive members that stay; and for each staying transaction y entered
     * from a collected one (or from the barrier, which is rebuilt), an edge from the latest staying member
     * of every chain that reaches y. Then u ⇝ v among staying transactions holds after collection iff it
     * held before: a path's detours through collected vertices are replaced by chain edges and those edges.
     * Returns false if the backward index would not fit.
     */
    private static String contract(KnownGraph g, ReadFromIndex rf, Reachability r, int[] topo, int facts, int n, int b,
                                   boolean[] collect, LongIntMap pairs, IntVec[] carry, int synthetic) {
        int vn = g.n, cs = r.chains;
        if ((long) vn * cs > Reachability.defaultMaxCells()) return "a reachability index of the retained graph would not fit in memory";
        long limit = MAX_CARRIED_PER_TRANSACTION * (long) Math.max(1, n);
        // the synthetic writers do not stay: they are rebuilt each round with their own edges only, so a path through one
        // (into it from a marked writer or a reader of the initial value, out of it through the barrier) is carried
        // between real transactions like a path through a collected one (seed 2951 of the differential lost one)
        boolean[] kept = new boolean[vn];
        for (int t = 0; t < Math.min(n, synthetic); t++) kept[t] = rf.included[t] && !collect[t];
        // chain members by position, and the latest kept member at or before each position
        int[] len = new int[cs];
        for (int v : topo) if (r.chainOf[v] >= 0) len[r.chainOf[v]]++;
        int[] start = new int[cs + 1];
        for (int c = 0; c < cs; c++) start[c + 1] = start[c] + len[c];
        int[] member = new int[start[cs]];
        for (int v : topo) if (r.chainOf[v] >= 0) member[start[r.chainOf[v]] + r.pos[v]] = v;
        int[] latestKept = new int[start[cs]];
        for (int c = 0; c < cs; c++) {
            int last = -1;
            for (int i = start[c]; i < start[c + 1]; i++) {
                int v = member[i];
                if (kept[v]) {
                    if (last >= 0 && (i == start[c] || member[i - 1] != last)) addPath(last, v, pairs, carry);
                    last = v;
                }
                latestKept[i] = last;
            }
        }
        // backward index: back[v*cs + c] = latest position on chain c of a vertex that reaches v (-1: none)
        KnownGraph.Csr in = g.csr(facts, true);
        int[] back = new int[vn * cs];
        Arrays.fill(back, -1);
        for (int v : topo) {
            int base = v * cs;
            for (int p = in.start[v]; p < in.start[v + 1]; p++) {
                int u = in.target[p], ub = u * cs;
                for (int k = 0; k < cs; k++) if (back[ub + k] > back[base + k]) back[base + k] = back[ub + k];
            }
            if (r.chainOf[v] >= 0) back[base + r.chainOf[v]] = r.pos[v];
        }
        IntVec sources = new IntVec();
        for (int y = 0; y < n; y++) {
            if (!kept[y]) continue;
            boolean boundary = false;
            for (int p = in.start[y]; p < in.start[y + 1] && !boundary; p++) {
                int u = in.target[p];
                boundary = u == b || (u < n && collect[u]);
            }
            if (!boundary) continue;
            // y's staying predecessor on its own chain, which the chain edges above keep before y: a path from a source
            // that reaches it is redundant; so is one from a source that reaches another source (transitive reduction,
            // docs/DESIGN.md §7.4)
            int cy = r.chainOf[y], q = cy >= 0 && r.pos[y] > 0 ? latestKept[start[cy] + r.pos[y] - 1] : -1;
            sources.clear();
            for (int c = 0; c < cs; c++) {
                int p = back[y * cs + c];
                if (p < 0) continue;
                int u = latestKept[start[c] + p];
                if (u < 0 || u == y) continue;
                if (q >= 0 && (u == q || r.reaches(u, q))) continue;
                sources.add(u);
            }
            for (int i = 0; i < sources.size(); i++) {
                int u = sources.get(i);
                boolean implied = false;
                for (int j = 0; j < sources.size() && !implied; j++) implied = j != i && sources.get(j) != u && r.reaches(u, sources.get(j));
                if (!implied) addPath(u, y, pairs, carry);
            }
            if (carry[0].size() > limit)
                return "keeping the paths through the collected transactions would take more than " + MAX_CARRIED_PER_TRANSACTION
                        + " edges per transaction; nothing collected this round";
        }
        // satellites (on no chain, Reachability) that stay: an edge to the earliest kept member of each chain they reach.
        // Not the synthetic writers of frontier records: they are rebuilt each round with the edges they need (PastFrontier)
        int[] nextKept = null;
        for (int s = 0; s < Math.min(n, synthetic); s++) {
            if (!kept[s] || r.chainOf[s] >= 0) continue;
            if (nextKept == null) {
                nextKept = new int[start[cs]];
                for (int c = 0; c < cs; c++) {
                    int next = -1;
                    for (int i = start[c + 1] - 1; i >= start[c]; i--) {
                        if (kept[member[i]]) next = member[i];
                        nextKept[i] = next;
                    }
                }
            }
            for (int c = 0; c < cs; c++) {
                int p = r.reach[s * cs + c];
                if (p >= len[c]) continue;
                int u = nextKept[start[c] + p];
                if (u >= 0) addPath(s, u, pairs, carry);
            }
        }
        return null;
    }

    /**
     * The sources of the future for {@link Settlement}: every included transaction that is not old, the
     * barrier, and each old frontier writer F of a key x that shares the frontier of x or does not reach
     * some writer of x that is not old. Time points are not sources: a later transaction's edge into one
     * would lead it to an old transaction, which a serializable completion cannot have. With {@code carelessSettling}
     * (tests only, {@link Rules#CARELESS_SETTLING}) old frontier writers are left out.
     */
    private static boolean[] sourcesOfTheFuture(History h, ReadFromIndex rf, Reachability r, boolean[] old, boolean[] frontierWrite, int vn, int b,
                                                 boolean carelessSettling) {
        int n = h.size(), keys = h.keyCount();
        boolean[] seed = new boolean[vn];
        if (b >= 0) seed[b] = true;
        int[] frontierCount = new int[keys];
        IntVec[] laterWriters = new IntVec[keys];
        for (int t = 0; t < n; t++) {
            if (!rf.included[t]) continue;
            if (!old[t]) seed[t] = true;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!rf.finalWrite[op]) continue;
                int k = h.key(op);
                if (old[t]) { if (frontierWrite[op]) frontierCount[k]++; }
                else {
                    if (laterWriters[k] == null) laterWriters[k] = new IntVec(2);
                    laterWriters[k].add(t);
                }
            }
        }
        for (int t = 0; t < n && !carelessSettling; t++) {
            if (!rf.included[t] || !old[t] || seed[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t) && !seed[t]; op++) {
                if (!frontierWrite[op]) continue;
                int k = h.key(op);
                if (frontierCount[k] > 1) { seed[t] = true; break; }
                IntVec later = laterWriters[k];
                for (int i = 0; later != null && i < later.size() && !seed[t]; i++) if (!r.reaches(t, later.get(i))) seed[t] = true;
            }
        }
        return seed;
    }

    /** The carried facts without those that start or end at a synthetic writer (rebuilt each round with its edges). */
    private static IntVec[] withoutSynthetic(IntVec[] carry, int synthetic) {
        IntVec[] out = {new IntVec(), new IntVec(), new IntVec(), new IntVec()};
        for (int i = 0; i < carry[0].size(); i++) {
            if (carry[0].get(i) >= synthetic || carry[1].get(i) >= synthetic) continue;
            for (int j = 0; j < 4; j++) out[j].add(carry[j].get(i));
        }
        return out;
    }

    /** A bound on the facts and paths carried into the next round, per transaction of the round: beyond it GC waits. */
    static final int MAX_CARRIED_PER_TRANSACTION = 40;

    private static boolean addPair(LongIntMap pairs, int u, int v) {
        long k = ((long) u << 32) | v;
        if (pairs.get(k) != LongIntMap.MISSING) return false;
        pairs.put(k, 1);
        return true;
    }

    private static void addPath(int u, int v, LongIntMap pairs, IntVec[] carry) {
        if (!addPair(pairs, u, v)) return;
        carry[0].add(u); carry[1].add(v); carry[2].add(KnownGraph.PATH); carry[3].add(-1);
    }
}
