package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Garbage collection below serializability: the <em>sealed past</em> (docs/DESIGN.md §7.11). A round's history here is one
 * whose initial state already stands for everything collected before (a read of a key's latest collected version is a read of
 * the initial state), and what this round may add to the past is a set {@code C} of old transactions such that, in the
 * round's session and read-from order alone ({@code so ∪ wr}, which every level's commit orders contain):
 * <ol>
 *   <li>every transaction of {@code C} reaches every entry fence, and every entry fence follows the previous past;</li>
 *   <li>{@code C} is closed under predecessors: no included transaction outside it precedes one inside;</li>
 *   <li>for each key {@code C} writes, its writers there form one chain, each after the one before by a read of the key or
 *       by session order, ending in a committed writer {@code W}: its version becomes the key's initial state from now on;</li>
 *   <li>every included writer of that key that stays follows {@code W} (by an entry fence, or down the same chain), and
 *       every transaction that stays and reads the key reads {@code W}'s version or a staying writer's.</li>
 * </ol>
 * Then some commit order of the whole history puts {@code C} first, and the history satisfies the level iff {@code C} does
 * (checked: it was part of this accepted round) and the rest does with {@code C} folded into the initial state, plus the
 * stale-read judgement of later reads of {@code C}'s other versions (§7.11 has the argument). Nothing here depends on the level
 * or on a solution the checker chose: only on facts every level shares. Pure.
 */
public final class SealedPast {
    private SealedPast() {}

    /**
     * Which transactions a level's premise (docs/DESIGN.md §11.1) may draw from before a reader: what decides whether a staying
     * reader's read of an older version is decided for good (§7.11).
     */
    public enum Premise {
        /** Read committed and read atomic: the reader's session and the writers it read (direct, fixed once it arrived). */
        DIRECT,
        /** Causal: everything before the reader in {@code so ∪ wr}. */
        CAUSAL,
        /** Snapshot isolation: everything before the reader, and its Conflict premise: the reader must write nothing. */
        SNAPSHOT
    }

    /** A collection that does not settle within this many passes (each blocks at least one key) is skipped. */
    static final int MAX_PASSES = 64;

    /** Keys whose writers' reachability is decided in one reverse pass (a bit each). */
    static final int REACH_BATCH = 4096;

    /**
     * What the analysis found: which transactions follow the past's fences in {@code so ∪ wr} (null when there is no past),
     * and the collection (null when none was planned).
     */
    public record Result(boolean[] follows, GarbageCollection gc) {}

    /**
     * The included transactions of {@code h} (docs/DESIGN.md §11.1): committed ones, and those of unknown outcome whose write
     * an included read observed.
     */
    public static boolean[] included(History h) { return included(h, writers(h)); }

    private static boolean[] included(History h, LongIntMap writer) {
        int n = h.size();
        boolean[] inc = new boolean[n];
        int[] stack = new int[n];
        int sp = 0;
        for (int t = 0; t < n; t++) if (h.status(t) == History.COMMITTED) { inc[t] = true; stack[sp++] = t; }
        while (sp > 0) {
            int t = stack[--sp];
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = writer.get(LongIntMap.pack(h.key(op), h.value(op)));
                if (w == LongIntMap.MISSING || w == t || inc[w] || h.status(w) != History.UNKNOWN) continue;
                inc[w] = true;
                stack[sp++] = w;
            }
        }
        return inc;
    }

    /**
     * A round's history with what the analysis and the check before it share, built once: its included transactions and
     * their order ({@code so ∪ wr}, over one index of the writes).
     */
    public static final class Round {
        private final History h;
        private final boolean[] included;
        private final SealedOrder order;

        private Round(History h) {
            this.h = h;
            LongIntMap writer = writers(h);
            this.included = SealedPast.included(h, writer);
            this.order = new SealedOrder(h, included, writer);
        }

        /** The included transactions ({@link SealedPast#included}). */
        public boolean[] included() { return included; }

        /**
         * Which transactions follow {@code pastFences}, the previous past's fences present in the history, in {@code so ∪ wr}:
         * what {@link #analyze} answers as {@link Result#follows}, asked before the check.
         */
        public boolean[] follows(int[] pastFences) { return order.forwardFrom(pastFences); }

        /**
         * Condition 4's open writers, in a later round (docs/DESIGN.md §7.11): {@code openTxn[i]} is a writer left open on
         * key {@code openKey[i]} (a transaction and a key id of this history). Returns, per transaction, the first {@code i}
         * whose writer the level's premise may put before that transaction's read of the key's initial state (the sealed
         * version), or -1: under {@link Premise#DIRECT}, a writer before the reader in its session or one the reader read
         * from (the premise writers of read committed and read atomic); under {@link Premise#CAUSAL}, a writer that reaches
         * the reader in {@code so ∪ wr}; under {@link Premise#SNAPSHOT}, any writer the reader does not reach (only that
         * keeps the writer out of the reader's snapshot in every commit order).
         * Only external reads count: a read after the transaction's own write of the key is checked against that write.
         */
        public int[] readersAfterOpen(int[] openTxn, int[] openKey, Premise premise) {
            int n = h.size();
            int[] out = new int[n];
            Arrays.fill(out, -1);
            for (int i = 0; i < openTxn.length; i++) {
                int w = openTxn[i], k = openKey[i];
                boolean[] reach = premise == Premise.SNAPSHOT ? order.backwardFrom(w) : premise == Premise.CAUSAL ? order.forwardFrom(new int[] {w}) : null;
                for (int t = 0; t < n; t++) {
                    if (out[t] >= 0 || t == w || !readsInitial(t, k)) continue;
                    boolean may = premise == Premise.SNAPSHOT ? !reach[t] : premise == Premise.CAUSAL ? reach[t] : directlyAfter(w, t);
                    if (may) out[t] = i;
                }
            }
            return out;
        }

        /** Whether {@code w} is before {@code t} in its session, or {@code t} read a version {@code w} wrote. */
        private boolean directlyAfter(int w, int t) {
            if (h.session(w) == h.session(t) && w < t) return true;
            for (int e = order.inStart[t]; e < order.inStart[t + 1]; e++) if (order.from[e] == w) return true;
            return false;
        }

        /** Whether {@code t} reads key {@code k}'s initial state before writing the key. */
        private boolean readsInitial(int t, int k) {
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.key(op) != k) continue;
                if (h.kind(op) == History.WRITE) return false;
                if (h.kind(op) == History.READ && h.value(op) == History.NIL) return true;
            }
            return false;
        }
    }

    /** {@code h}, prepared for {@link Round#follows} and {@link #analyze}. */
    public static Round prepare(History h) { return new Round(h); }

    /**
     * Analyses an accepted round's history {@code h}. {@code pastFences}: the previous past's fences present in {@code h}
     * (null: nothing was collected yet). {@code old}, {@code pinned}, {@code entries}: the collection's plan (null
     * {@code old}: none). Returns what follows the past and, when planned, the collection.
     */
    public static Result analyze(History h, boolean[] included, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries, int[] witness,
                                 Premise premise) {
        return analyze(h, included, new SealedOrder(h, included), pastFences, old, pinned, entries, witness, premise, null, false);
    }

    /**
     * As above, on a {@link #prepare}d round; {@code waitsBefore[t]}: a transaction before {@code t} in its session is not in the round's history yet (it
     * waits for a write), so what {@code t}'s level's premise may draw on is not all known, and none of {@code t}'s reads of
     * older versions is decided (null: none waits).
     */
    public static Result analyze(Round round, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries, int[] witness, Premise premise,
                                 boolean[] waitsBefore) {
        return analyze(round, pastFences, old, pinned, entries, witness, premise, waitsBefore, false);
    }

    /**
     * As above; {@code openWriters}: a staying writer of a key that the key's sealing writer does not reach leaves the key
     * <em>open</em> (condition 4's open writers, docs/DESIGN.md §7.11) instead of holding back every writer of it: the key
     * seals all the same, and the open writes are the collection's {@link GarbageCollection#openOps}. Sound only for a caller
     * that leaves unchecked, in every later round, each reader of the sealed version an open writer of the key may precede
     * ({@link Round#readersAfterOpen}).
     */
    public static Result analyze(Round round, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries, int[] witness, Premise premise,
                                 boolean[] waitsBefore, boolean openWriters) {
        return analyze(round.h, round.included, round.order, pastFences, old, pinned, entries, witness, premise, waitsBefore, openWriters);
    }

    private static Result analyze(History h, boolean[] included, SealedOrder o, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries,
                                  int[] witness, Premise premise, boolean[] waitsBefore, boolean openWriters) {
        boolean[] follows = pastFences == null ? null : o.forwardFrom(pastFences);
        if (old == null) return new Result(follows, null);
        int n = h.size();
        boolean[] oldNow = old.clone();
        if (h.hasLists()) return new Result(follows, GarbageCollection.sealedSkipped("list reads: the sealed past is for registers", oldNow));
        if (o.topo == null) return new Result(follows, GarbageCollection.sealedSkipped("the round's session and read-from order has a cycle", oldNow));
        for (int e : entries) {
            if (!included[e]) return new Result(follows, GarbageCollection.sealedSkipped("entry fence " + h.label(e) + " is not committed", oldNow));
            if (follows != null && !follows[e])
                return new Result(follows, GarbageCollection.sealedSkipped("entry fence " + h.label(e) + " does not follow the collected past", oldNow));
        }
        boolean[] reachesAll = o.reachingAll(entries);
        int[] kept = new int[GarbageCollection.Kept.values().length];
        boolean[] cand = new boolean[n];
        for (int t = 0; t < n; t++) {
            if (!old[t]) { if (included[t]) kept[GarbageCollection.Kept.NOT_OLD.ordinal()]++; continue; }
            if (included[t] && !reachesAll[t]) { oldNow[t] = false; kept[GarbageCollection.Kept.NOT_BEFORE_ENTRY_FENCES.ordinal()]++; continue; }
            // a writer outside the checked history (aborted, or of unknown outcome) that a transaction which may still join
            // reads stays: that read is judged when its reader joins (a writer in it goes, condition 4 and waiting readers)
            if (!included[t] && pinned != null && pinned[t]) { kept[GarbageCollection.Kept.PINNED.ordinal()]++; continue; }
            cand[t] = true;
        }
        boolean[] followsNew = o.forwardFrom(entries);
        SealedKeys keys = new SealedKeys(h, included, o, witness, premise, waitsBefore, openWriters);
        boolean[] out = new boolean[n]; // writers of keys whose version cannot be sealed, kept with all they reach
        boolean[] inC = new boolean[n];
        int passes = 0;
        while (true) {
            o.closure(cand, included, out, inC);
            if (!keys.block(inC, followsNew, out)) break;
            if (++passes >= MAX_PASSES)
                return new Result(follows, GarbageCollection.sealedSkipped("the sealed past did not settle in " + MAX_PASSES + " passes", oldNow));
        }
        boolean[] collect = new boolean[n];
        int superseded = 0;
        for (int t = 0; t < n; t++) {
            if (inC[t]) { collect[t] = true; superseded++; continue; }
            if (cand[t] && !included[t]) { collect[t] = true; continue; }
            if (cand[t]) kept[out[t] ? GarbageCollection.Kept.FRONTIER_WRITER.ordinal() : GarbageCollection.Kept.REACHED_FROM_LATER.ordinal()]++;
        }
        int[] supersededBy = new int[h.opCount()];
        Arrays.fill(supersededBy, -1);
        IntVec unordered = new IntVec(16);
        int[] frontier = keys.seal(inC, supersededBy, unordered);
        GarbageCollection gc = GarbageCollection.sealed(collect, supersededBy, superseded, oldNow, frontier, unordered.toArray(), kept);
        gc.heldBack = keys.firstBlock();
        gc.openOps = keys.openOps();
        return new Result(follows, gc);
    }

    /** Every write of {@code h} by (key, value), to its transaction. */
    static LongIntMap writers(History h) {
        LongIntMap w = new LongIntMap(Math.max(16, h.opCount() / 2));
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.WRITE) w.put(LongIntMap.pack(h.key(op), h.value(op)), t);
        return w;
    }
}
