package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;

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
 * ones are kept as edges ({@link Contraction}), and a later transaction meets the collected past only through the
 * barrier and the stale-read judgement. The argument is written once, in docs/DESIGN.md §7.3–§7.5 and §7.8;
 * {@code RoundsAgainstOneShotPropertyTest} holds this class to one-shot checks of whole histories.
 * GC also checks the barrier the next round will use ({@link Barrier}): every retained old transaction
 * (and the previous barrier) must reach every entry fence in the facts; if one does not, nothing is
 * collected and {@link #skipped} says why. A transaction that later reads a collected write reads a
 * superseded value (T' wrote x after it, T' ⇝ every later transaction): a violation, reported with
 * {@link #supersededBy}.
 *
 * <p>The analysis, in order ({@link #analyze}, over the round's {@link CheckedRound}): the entry-fence check; the frontier
 * and the superseded transactions ({@link Frontier}); the open constraints settled for good ({@link Settlement}); the
 * collectible transactions and those collected as data ({@link FrontierAsData}), with the superseded marks; what later
 * rounds carry ({@link Contraction}); in strict mode, the next past's real-time point ({@link RealTimePoint}).
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
    /**
     * The sealed past only (docs/DESIGN.md §7.11): final writes of collected transactions that the sealing version of their key
     * supersedes by the check's choice, not by a fact (ascending); a later read of one is not checked ({@code UNORDERED}).
     */
    public int[] unorderedOps = new int[0];
    /**
     * Below serializability: the final writes of staying writers left open on their keys (ascending), each unordered with
     * its key's sealing writer in {@code so ∪ wr} (docs/DESIGN.md §7.11, condition 4's open writers).
     */
    public int[] openOps = new int[0];
    /**
     * The sealed past only: why the first key its analysis could not seal was not sealed (its writers stay, with all they
     * reach), or null when every key sealed. For whoever watches the retained set grow.
     */
    public String heldBack;
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
    private CheckedRound.Reach reach;
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
        Arrays.fill(KEPT_FOR, Kept.FRONTIER_WRITER.ordinal());
        KEPT_FOR[FrontierAsData.SHARED] = Kept.FRONTIER_SHARED.ordinal();
        KEPT_FOR[FrontierAsData.OLD_WRITER_STAYS] = Kept.FRONTIER_OLD_WRITER_STAYS.ordinal();
        KEPT_FOR[FrontierAsData.NOT_FOLLOWED] = Kept.FRONTIER_NOT_FOLLOWED.ordinal();
    }

    /** The {@link Kept} ordinal of a frontier writer that stays, given {@link FrontierAsData}'s why for it. */
    static int keptFor(byte frontierWhy) { return KEPT_FOR[frontierWhy]; }

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
        CARELESS_MARKS,
        /**
         * Below serializability (docs/DESIGN.md §7.11, Assumptions): leave the transactions that join without following the
         * sealed past unchecked without first checking the round without the past's reads, so that a violation among them
         * goes unreported. What that check finds.
         */
        CARELESS_UNCOVERED,
        /**
         * Below serializability (docs/DESIGN.md §7.11, condition 4's open writers): seal a key past a staying writer that its
         * sealing writer does not reach, but check the later readers of the sealed version that the writer may precede as if
         * the sealed version came first. What leaving them unchecked prevents (a false reject).
         */
        CARELESS_OPEN_READERS,
        /** Below serializability: hold back every writer of a key with a staying writer its sealing writer does not reach (for comparisons). */
        OPEN_WRITERS_HELD;

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
     * A collection of the sealed past ({@link SealedPast}, docs/DESIGN.md §7.11): {@code frontier} are the sealed versions'
     * write operations, each becoming its key's frontier record, {@code unordered} the superseded ones the history leaves
     * unordered with them (ascending); no fact is carried, nothing is settled or marked.
     */
    static GarbageCollection sealed(boolean[] collect, int[] supersededBy, int superseded, boolean[] old, int[] frontier, int[] unordered, int[] kept) {
        GarbageCollection gc = new GarbageCollection(collect, supersededBy, null, superseded);
        gc.unorderedOps = unordered;
        gc.old = old;
        gc.frontierOps = frontier;
        gc.frontierAsData = frontier;
        gc.kept = kept;
        return gc;
    }

    /** A sealed-past collection that takes nothing, with the reason. */
    static GarbageCollection sealedSkipped(String why, boolean[] old) {
        GarbageCollection gc = new GarbageCollection(new boolean[old.length], new int[0], why, 0);
        gc.old = old;
        return gc;
    }

    /**
     * Requires: {@code c} accepted its round ({@link CheckedRound#accepted}). {@code old[t]}: t's epoch is
     * closed; {@code entries}: the entry fences of the next barrier; {@code pinned[t]}: keep t.
     * Settles, in {@code c}, the constraints {@link Settlement} finds.
     */
    static GarbageCollection analyze(CheckedRound c, boolean[] old, int[] entries, boolean[] pinned, Rules rules, int synthetic) {
        boolean careless = rules == Rules.CARELESS_COLLECTION;
        History h = c.history();
        boolean[] included = c.included(), finalWrite = c.finalWrite();
        int[] opTxn = c.opTxn();
        int n = h.size(), vn = c.vertices(), keys = h.keyCount();
        boolean[] none = new boolean[n];
        int[] noSup = new int[h.opCount()];
        Arrays.fill(noSup, -1);
        CheckedRound.Adjacency out = c.facts();
        int[] topo = c.topologicalOrder(out);
        if (topo == null) return new GarbageCollection(none, noSup, "internal: the facts of an accepted round have a cycle", 0);
        CheckedRound.Reach r;
        try {
            r = c.reachability(out, topo);
        } catch (ReachabilityEngine.TooLarge e) {
            return new GarbageCollection(none, noSup, e.getMessage(), 0);
        }
        int b = c.barrierVertex();
        // the next barrier: the current barrier reaches every entry fence, and so does every old transaction of the checked
        // history that the next past will stand for (A4). One that does not (the last transactions of a session that
        // ended, which nothing later follows: no fence, no read, no real time) is not old this round: it stays, and so
        // does whatever it reaches (docs/DESIGN.md §7.2)
        boolean[] notBefore = null;
        for (int f : entries) {
            if (!included[f]) return new GarbageCollection(none, noSup, "entry fence " + h.label(f) + " is not a committed transaction", 0);
            if (b >= 0 && !r.reaches(b, f))
                return new GarbageCollection(none, noSup, "the collected past does not reach " + h.label(f) + ", the latest fence of its session", 0);
            for (int t = 0; t < n; t++) {
                if (old[t] && included[t] && !r.reaches(t, f)) {
                    if (notBefore == null) { notBefore = new boolean[n]; old = old.clone(); }
                    notBefore[t] = true;
                    old[t] = false;
                }
            }
        }
        // reached only from old transactions
        boolean[] bad = new boolean[vn];
        for (int t = 0; t < n; t++) bad[t] = included[t] && !old[t];
        int[] outStart = out.start(), outTarget = out.target();
        for (int v : topo) if (bad[v]) for (int p = outStart[v]; p < outStart[v + 1]; p++) bad[outTarget[p]] = true;
        // the frontier of each key, and the superseded transactions (Frontier)
        boolean[] frontierWrite = new boolean[h.opCount()];
        boolean[] superseded = new boolean[n];
        int supersededCount = Frontier.find(c, r, old, bad, frontierWrite, superseded);
        // open constraints that nothing later can reach are settled on the side this round chose (Settlement)
        boolean[] settled = careless ? new boolean[c.constraintCount()]
                : Settlement.settle(c, out, Settlement.sourcesOfTheFuture(c, r, old, frontierWrite, b, rules == Rules.CARELESS_SETTLING));
        int settledCount = 0;
        for (boolean x : settled) if (x) settledCount++;
        if (settledCount > 0) {
            // the facts become the facts plus the settled sides (the other choices of this round are dropped)
            c.settle(settled);
            out = c.facts();
            topo = c.topologicalOrder(out);
            if (topo == null) return new GarbageCollection(none, noSup, "internal: the settled sides of an accepted round have a cycle", 0);
            try {
                r = c.reachability(out, topo);
            } catch (ReachabilityEngine.TooLarge e) {
                return new GarbageCollection(none, noSup, e.getMessage(), 0);
            }
        }
        // open constraints pin: every transaction of a chain in a constraint pruning left open, and every source
        // of its sides (the readers of a chain's tail, or the tail itself). Their future resolution may still
        // matter; everything else a collected transaction took part in is a fact, and facts and paths are kept.
        boolean[] inOpen = new boolean[n];
        for (int ci = 0; ci < c.constraintCount(); ci++) if (c.leftOpen(ci) && !settled[ci]) c.markTransactionsOf(ci, inOpen);
        boolean[] collect = new boolean[n];
        for (int t = 0; t < n; t++) {
            if (!included[t]) {
                // aborted, or of unknown outcome and read by nobody so far: their writes are remembered as such
                collect[t] = old[t] && h.status(t) != History.COMMITTED && (pinned == null || !pinned[t]);
                continue;
            }
            collect[t] = superseded[t] && (pinned == null || !pinned[t]) && (careless || !inOpen[t]);
        }
        byte[] frontierWhy = new byte[n];
        Arrays.fill(frontierWhy, FrontierAsData.OTHER);
        // a writer whose write a transaction outside the checked history reads cannot have that write collected while it
        // stays (should a later read include the reader, its read could not be judged): no mark for it
        // (the read-from index never looks at the reads of those transactions: they are read from the history itself)
        boolean[] readOutside = new boolean[n];
        for (int t = 0; t < n; t++) {
            if (included[t] || h.status(t) == History.ABORTED) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = c.writerOf(h.key(op), h.value(op));
                if (w >= 0 && w != t) readOutside[w] = true;
            }
        }
        boolean[] asData = careless || rules == Rules.FRONTIER_KEPT ? new boolean[n]
                : FrontierAsData.collectible(h, c, out, frontierWrite, old, bad, pinned, inOpen, entries, collect, synthetic,
                                             rules == Rules.CARELESS_FRONTIER, rules.marks() ? readOutside : null, frontierWhy);
        // for each collected write, a frontier write of its key that it reaches: the proof a later read of it is stale
        int[] supBy = new int[h.opCount()];
        Arrays.fill(supBy, -1);
        IntVec[] frontierOfKey = new IntVec[keys];
        for (int t = 0; t < n; t++) {
            if (!old[t] || !included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!frontierWrite[op]) continue;
                int k = h.key(op);
                if (frontierOfKey[k] == null) frontierOfKey[k] = new IntVec(2);
                frontierOfKey[k].add(t);
            }
        }
        for (int t = 0; t < n; t++) {
            if (!collect[t] || !included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (!finalWrite[op] || (asData[t] && frontierWrite[op])) continue;
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
        IntVec[] marks = rules.marks() ? FrontierAsData.marks(h, c, old, collect, frontierWrite, asData, synthetic) : null;
        // what later rounds carry: the facts between what stays, and the paths through what goes (Contraction)
        String why = Contraction.carry(c, r, topo, b, collect, marks, carry, synthetic);
        if (why != null) return new GarbageCollection(new boolean[n], noSup, why, supersededCount);
        if (synthetic < n) carry = Contraction.withoutSynthetic(carry, synthetic);
        GarbageCollection done = new GarbageCollection(collect, supBy, null, supersededCount, settledCount, carry);
        done.old = old;
        done.reach = r;
        done.barrierVertex = b;
        if (c.strict()) RealTimePoint.before(c, c.factsReversed(), old, collect, synthetic, b, done);
        boolean[] onFrontier = new boolean[n];
        for (int t = 0; t < n; t++) for (int op = h.opStart(t); op < h.opEnd(t) && !onFrontier[t]; op++) onFrontier[t] = frontierWrite[op];
        for (int t = 0; t < synthetic; t++) {
            if (collect[t]) continue;
            int reason = notBefore != null && notBefore[t] ? Kept.NOT_BEFORE_ENTRY_FENCES.ordinal()
                    : !old[t] ? Kept.NOT_OLD.ordinal() : included[t] && bad[t] ? Kept.REACHED_FROM_LATER.ordinal()
                    : pinned != null && pinned[t] ? Kept.PINNED.ordinal() : inOpen[t] ? Kept.OPEN_CONSTRAINT.ordinal()
                    : !onFrontier[t] ? Kept.OTHER.ordinal() : keptFor(frontierWhy[t]);
            done.kept[reason]++;
        }
        IntVec fops = new IntVec(), dops = new IntVec();
        for (int op = 0; op < frontierWrite.length; op++) {
            if (!frontierWrite[op]) continue;
            fops.add(op);
            if (asData[opTxn[op]]) dops.add(op);
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
}
