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
        return analyze(h, included, new SealedOrder(h, included), pastFences, old, pinned, entries, witness, premise);
    }

    /** As above, on a {@link #prepare}d round. */
    public static Result analyze(Round round, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries, int[] witness, Premise premise) {
        return analyze(round.h, round.included, round.order, pastFences, old, pinned, entries, witness, premise);
    }

    private static Result analyze(History h, boolean[] included, SealedOrder o, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries,
                                  int[] witness, Premise premise) {
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
        Keys keys = new Keys(h, included, o, witness, premise);
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
        return new Result(follows, GarbageCollection.sealed(collect, supersededBy, superseded, oldNow, frontier, unordered.toArray(), kept));
    }

    /** Every write of {@code h} by (key, value), to its transaction. */
    static LongIntMap writers(History h) {
        LongIntMap w = new LongIntMap(Math.max(16, h.opCount() / 2));
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.WRITE) w.put(LongIntMap.pack(h.key(op), h.value(op)), t);
        return w;
    }


    /**
     * Conditions 3 and 4, per key: each included transaction's final write of a key with the writer it follows on that key
     * (by the first operation on the key, a read, or else by session order), and the reads of the key.
     */
    private static final class Keys {
        /** Per key, its operations (reads and final writes of included transactions), grouped: {@code ops[from[k] .. from[k+1])}. */
        final int[] from, ops, txnOf;
        /** Per final write op: the writer it follows on its key (-1: the initial state, -2: none), else unused. */
        final int[] pred;
        /** Per transaction and op: whether the op is its transaction's final write of the key. */
        final boolean[] finalWrite;
        final boolean[] included;
        final LongIntMap writer;
        final History h;
        /** Scratch, per transaction: how many writers of the key being looked at follow it (zero between keys). */
        final int[] followers;

        /** The round's order, for keys whose writers do not chain: does every other writer reach the last? */
        final SealedOrder order;
        /** Per key: the writer whose version seals, as the last pass found (-1: none). */
        final int[] lastOfKey;

        /** Each transaction's place in the check's witness commit order (-1: not in it). */
        final int[] witnessPos;
        /** Per final write op of a writer in {@code C}: not forced before its key's sealing writer (chosen by the witness). */
        final boolean[] unforced;

        /** The level's premise ({@link Premise}). */
        final Premise premise;
        /** Per transaction, this pass: whether every included transaction before it (in {@code so ∪ wr}, transitively) is in {@code C}. */
        final boolean[] afterC;

        Keys(History h, boolean[] included, SealedOrder order, int[] witness, Premise premise) {
            this.h = h;
            this.premise = premise;
            this.afterC = new boolean[h.size()];
            this.witnessPos = new int[h.size()];
            java.util.Arrays.fill(witnessPos, -1);
            if (witness != null) for (int i = 0; i < witness.length; i++) if (witness[i] >= 0 && witness[i] < h.size()) witnessPos[witness[i]] = i;
            this.unforced = new boolean[h.opCount()];
            this.included = included;
            this.followers = new int[h.size()];
            this.order = order;
            this.writer = order.writer;
            this.lastOfKey = new int[h.keyCount()];
            int n = h.size(), ops = h.opCount();
            txnOf = new int[ops];
            finalWrite = new boolean[ops];
            pred = new int[ops];
            Arrays.fill(pred, -2);
            anchor = new int[ops];
            anchorPass = new int[ops];
            LongIntMap lastWriterInSession = new LongIntMap(Math.max(64, h.size()));
            int[] count = new int[h.keyCount() + 1];
            for (int t = 0; t < n; t++) {
                for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                    txnOf[op] = t;
                    int k = h.key(op);
                    if (h.kind(op) == History.WRITE) {
                        if (!isLastWrite(h, t, op)) continue;
                        finalWrite[op] = true;
                        if (!included[t]) continue;
                        count[k + 1]++;
                        int first = h.opStart(t);
                        while (h.key(first) != k) first++;
                        long sk = LongIntMap.pack(h.session(t), k);
                        if (h.kind(first) == History.READ) {
                            int v = h.value(first);
                            int w = v == History.NIL ? LongIntMap.MISSING : writer.get(LongIntMap.pack(k, v));
                            pred[op] = w == LongIntMap.MISSING ? -1 : w;
                        } else {
                            int w = lastWriterInSession.get(sk);
                            pred[op] = w == LongIntMap.MISSING ? -2 : w;
                        }
                        lastWriterInSession.put(sk, t);
                    } else if (h.kind(op) == History.READ && isExternal(h, t, op)) count[k + 1]++;
                }
            }
            from = new int[h.keyCount() + 1];
            for (int k = 0; k < h.keyCount(); k++) from[k + 1] = from[k] + count[k + 1];
            this.ops = new int[from[h.keyCount()]];
            int[] fill = Arrays.copyOf(from, h.keyCount());
            for (int t = 0; t < n; t++)
                for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                    if (h.kind(op) == History.WRITE) { if (finalWrite[op] && included[t]) this.ops[fill[h.key(op)]++] = op; }
                    else if (h.kind(op) == History.READ && isExternal(h, t, op)) this.ops[fill[h.key(op)]++] = op;
                }
        }

        /** Whether write {@code op} of {@code t} is its last write of the key. */
        private static boolean isLastWrite(History h, int t, int op) {
            for (int o = op + 1; o < h.opEnd(t); o++) if (h.key(o) == h.key(op) && h.kind(o) == History.WRITE) return false;
            return true;
        }

        /** Whether read {@code op} of {@code t} precedes every write of its key in {@code t} (it reads another's version). */
        private static boolean isExternal(History h, int t, int op) {
            for (int o = h.opStart(t); o < op; o++) if (h.key(o) == h.key(op) && h.kind(o) == History.WRITE) return false;
            return true;
        }

        /**
         * One pass over the keys {@code inC} writes: marks {@code out} the writers there of every key that breaks condition 3
         * or 4, and notes each other key's sealing writer ({@link #lastOfKey}). Returns whether any was marked.
         */
        boolean block(boolean[] inC, boolean[] followsNew, boolean[] out) {
            boolean any = false;
            pass++;
            for (int u = 0; u < h.size(); u++) afterC[u] = !order.behind(u);
            java.util.Arrays.fill(lastOfKey, -1);
            IntVec unchained = new IntVec(16), lasts = new IntVec(16), reachKeys = new IntVec(16), reachLasts = new IntVec(16);
            for (int k = 0; k + 1 < from.length; k++) {
                if (from[k] == from[k + 1] || !writesIn(k, inC)) continue;
                int last = chainLast(k, inC);
                if (last < 0) { // not one chain: the witness chooses, reachability says which choices are forced (below)
                    last = witnessLast(k, inC);
                    if (last >= 0 && h.status(last) == History.COMMITTED) { unchained.add(k); lasts.add(last); }
                    else any |= block(k, inC, out);
                    continue;
                }
                markForced(k, inC);
                any |= decide(k, inC, followsNew, last, out, reachKeys, reachLasts);
            }
            if (unchained.size() > 0) {
                markReaching(unchained, lasts, inC);
                for (int i = 0; i < unchained.size(); i++) {
                    int k = unchained.get(i), last = lasts.get(i);
                    any |= decide(k, inC, followsNew, last, out, reachKeys, reachLasts);
                }
            }
            if (reachKeys.size() > 0) {
                boolean[] reached = reachedFromLasts(reachKeys, reachLasts, inC, followsNew);
                for (int i = 0; i < reachKeys.size(); i++) {
                    if (reached[i]) lastOfKey[reachKeys.get(i)] = reachLasts.get(i);
                    else any |= block(reachKeys.get(i), inC, out);
                }
            }
            return any;
        }

        /**
         * Seals key {@code k} with {@code last} when condition 4 holds ({@link #after}), or blocks it (returns whether it
         * blocked); when it holds if {@code last} reaches the key's staying writers, adds it to {@code reach} for later.
         */
        private boolean decide(int k, boolean[] inC, boolean[] followsNew, int last, boolean[] out, IntVec reachKeys, IntVec reachLasts) {
            int a = after(k, inC, followsNew, last);
            if (a == BROKEN) return block(k, inC, out);
            if (a == IF_REACHED) { reachKeys.add(k); reachLasts.add(last); return false; }
            lastOfKey[k] = last;
            return false;
        }

        private boolean block(int k, boolean[] inC, boolean[] out) {
            boolean any = false;
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i], t = txnOf[op];
                if (h.kind(op) == History.WRITE && inC[t]) { out[t] = true; any = true; }
            }
            return any;
        }

        private boolean writesIn(int k, boolean[] inC) {
            for (int i = from[k]; i < from[k + 1]; i++) if (h.kind(ops[i]) == History.WRITE && inC[txnOf[ops[i]]]) return true;
            return false;
        }

        /** The writer of {@code k} in {@code C} latest in the check's witness commit order; -1 when one is not in it. */
        private int witnessLast(int k, boolean[] inC) {
            int best = -1;
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i], t = txnOf[op];
                if (h.kind(op) != History.WRITE || !inC[t]) continue;
                if (witnessPos[t] < 0) return -1;
                if (best < 0 || witnessPos[t] > witnessPos[best]) best = t;
            }
            return best;
        }

        /** Key {@code k}'s writers in {@code C} all chain to its last one: every final write there is forced before it. */
        private void markForced(int k, boolean[] inC) {
            for (int i = from[k]; i < from[k + 1]; i++) if (h.kind(ops[i]) == History.WRITE) unforced[ops[i]] = false;
        }

        /**
         * For each unchained key (parallel to {@code lasts}, its sealing writer): marks {@link #unforced} each final write
         * there whose writer does not reach the sealing one (the history leaves their order open; the witness chose). One
         * reverse pass over the order with a bit per key.
         */
        private void markReaching(IntVec keys, IntVec lasts, boolean[] inC) {
            for (int from0 = 0; from0 < keys.size(); from0 += REACH_BATCH) {
                int to0 = Math.min(keys.size(), from0 + REACH_BATCH), words = (to0 - from0 + 63) / 64;
                long[] mask = order.reaching(lasts, from0, to0, words);
                for (int i = from0; i < to0; i++) {
                    int k = keys.get(i), b = i - from0;
                    for (int j = from[k]; j < from[k + 1]; j++) {
                        int op = ops[j], t = txnOf[op];
                        if (h.kind(op) == History.WRITE && inC[t]) unforced[op] = (mask[t * words + b / 64] & (1L << (b % 64))) == 0;
                    }
                }
            }
        }

        /**
         * Condition 3 by chains: the writer of key {@code k} in {@code C} whose version seals when each writer there follows
         * the one before it on the key (by a read, or by session order) and one is followed by none; -1 when they do not
         * chain, fork, or end in a writer not committed (then the witness chooses: {@link #witnessLast}).
         */
        int chainLast(int k, boolean[] inC) {
            int heads = 0, last = -1, lasts = 0;
            boolean forked = false;
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i];
                if (h.kind(op) != History.WRITE || !inC[txnOf[op]]) continue;
                int p = pred[op];
                if (p < 0 || !inC[p]) heads++;
                else if (++followers[p] > 1) forked = true;
            }
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i], t = txnOf[op];
                if (h.kind(op) != History.WRITE || !inC[t]) continue;
                if (followers[t] == 0) { last = t; lasts++; }
            }
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i];
                if (h.kind(op) == History.WRITE && pred[op] >= 0) followers[pred[op]] = 0;
            }
            return heads != 1 || lasts != 1 || forked || h.status(last) != History.COMMITTED ? -1 : last;
        }

        /** The writer of a key's initial state, in {@link #after} (never a transaction, never {@link LongIntMap#MISSING}). */
        private static final int INITIAL = -2;

        /** {@link #after}'s answers. */
        static final int HOLDS = 0, BROKEN = 1, IF_REACHED = 2;

        /**
         * Condition 4 for key {@code k} sealed by {@code last}: every staying writer follows {@code last} (by an entry fence, down
         * the key's chain, or, {@link #IF_REACHED}, if {@code last} reaches it in {@code so ∪ wr}: {@link #reachedFromLasts}
         * decides), and every staying reader reads it, a staying writer's version, or an older version whose read is decided
         * for good ({@link #decided}).
         */
        private int after(int k, boolean[] inC, boolean[] followsNew, int last) {
            int answer = HOLDS;
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i], t = txnOf[op];
                if (inC[t]) continue;
                if (h.kind(op) == History.WRITE) {
                    if (followsNew[t]) continue;
                    if (anchorOf(op, k, inC) != last) answer = IF_REACHED;
                } else {
                    if (h.status(t) == History.ABORTED) continue;
                    int v = h.value(op);
                    int w = v == History.NIL ? INITIAL : writer.get(LongIntMap.pack(k, v));
                    if (w == LongIntMap.MISSING) return BROKEN;
                    if (w != INITIAL && (!inC[w] || w == last)) continue;
                    if (!included[t]) return BROKEN; // of unknown outcome, unread: the check did not decide its reads
                    // an older version: its read is decided for good when nothing its level's premise may draw on stays
                    // (later rounds leave it out, §7.11)
                    if (!decided(t, k, inC)) return BROKEN;
                }
            }
            return answer;
        }

        /**
         * For each key (parallel to {@code lasts}, its sealing writer) whose condition 4 holds if its sealing writer reaches its
         * staying writers: whether it does, for every staying writer that neither follows an entry fence nor chains to it. One
         * forward pass over the order with a bit per key.
         */
        private boolean[] reachedFromLasts(IntVec keys, IntVec lasts, boolean[] inC, boolean[] followsNew) {
            boolean[] ok = new boolean[keys.size()];
            Arrays.fill(ok, true);
            for (int from0 = 0; from0 < keys.size(); from0 += REACH_BATCH) {
                int to0 = Math.min(keys.size(), from0 + REACH_BATCH), words = (to0 - from0 + 63) / 64;
                long[] mask = order.reached(lasts, from0, to0, words);
                for (int i = from0; i < to0; i++) {
                    int k = keys.get(i), b = i - from0, last = lasts.get(i);
                    for (int j = from[k]; j < from[k + 1] && ok[i]; j++) {
                        int op = ops[j], t = txnOf[op];
                        if (h.kind(op) != History.WRITE || inC[t] || followsNew[t]) continue;
                        if (anchorOf(op, k, inC) != last && (mask[t * words + b / 64] & (1L << (b % 64))) == 0) ok[i] = false;
                    }
                }
            }
            return ok;
        }

        /**
         * Whether staying reader {@code t}'s read of an older version of {@code k} is decided for good: no writer of {@code k}
         * its level's premise may draw on stays ({@link Premise}).
         */
        private boolean decided(int t, int k, boolean[] inC) {
            if (premise == Premise.SNAPSHOT) return afterC[t] && !writes(t);
            if (premise == Premise.CAUSAL) return !stayingCausalWriter(t, k, inC);
            for (int i = from[k]; i < from[k + 1]; i++) { // an earlier writer of k in its session that stays
                int op = ops[i], y = txnOf[op];
                if (h.kind(op) == History.WRITE && !inC[y] && y != t && h.session(y) == h.session(t) && y < t) return false;
            }
            for (int op = h.opStart(t); op < h.opEnd(t); op++) { // a writer it read that stays and writes k
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = writer.get(LongIntMap.pack(h.key(op), h.value(op)));
                if (w >= 0 && w != t && !inC[w] && included[w] && writesKey(w, k)) return false;
            }
            return true;
        }

        /** Scratch for {@link #stayingCausalWriter}: a stamp per transaction. */
        private int[] seen;
        private int stamp;
        private int[] stack;
        /** How far {@link #stayingCausalWriter} looks before it answers yes (so: blocked). */
        static final int CAUSAL_LOOK = 20_000;

        /**
         * Whether a staying included writer of {@code k} is in {@code t}'s causal past. Only transactions outside {@code C} lead to
         * one ({@code C} is closed under predecessors), so the search walks back through those only (through ones outside the
         * checked history too: session order runs through them).
         */
        private boolean stayingCausalWriter(int t, int k, boolean[] inC) {
            if (seen == null) { seen = new int[h.size()]; stack = new int[h.size()]; }
            stamp++;
            int sp = 0, steps = 0;
            stack[sp++] = t;
            seen[t] = stamp;
            while (sp > 0) {
                int u = stack[--sp];
                for (int e = order.inStart[u]; e < order.inStart[u + 1]; e++) {
                    int p = order.from[e];
                    if (seen[p] == stamp || inC[p]) continue;
                    if (++steps > CAUSAL_LOOK || (included[p] && writesKey(p, k))) return true;
                    seen[p] = stamp;
                    stack[sp++] = p;
                }
            }
            return false;
        }

        private boolean writesKey(int t, int k) {
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.WRITE && h.key(op) == k) return true;
            return false;
        }

        private boolean writes(int t) {
            for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.WRITE) return true;
            return false;
        }

        /** {@link #anchorOf}'s answer for a chain that runs in a circle outside {@code C}: never a writer, so never a key's last. */
        private static final int CIRCLE = -3;
        /** Per final write op: {@link #anchorOf}'s answer, valid while {@code anchorPass[op] == pass}. */
        private final int[] anchor, anchorPass;
        /** Advanced by each {@link #block}: {@code C} changes between passes only. */
        private int pass;
        private final IntVec path = new IntVec(16);

        /**
         * Down key {@code k}'s chain from final write {@code op}: the first writer in {@code C} it follows, or a negative when
         * it reaches the initial state (-1), no writer in the round (-2), or a circle of writers outside {@code C}
         * ({@link #CIRCLE}). Memoized for the pass: every op on the walk gets the walk's answer, so a chain of staying writers
         * is walked once per pass, not once for each of them (which was quadratic in a hot key's chain).
         */
        private int anchorOf(int op, int k, boolean[] inC) {
            path.clear();
            int answer;
            for (int cur = op; ; ) {
                if (anchorPass[cur] == pass) { answer = anchor[cur]; break; } // known, or on this walk: a circle
                anchorPass[cur] = pass;
                anchor[cur] = CIRCLE;
                path.add(cur);
                int p = pred[cur];
                if (p < 0 || inC[p]) { answer = p; break; }
                cur = finalWriteOf(p, k);
                if (cur < 0) { answer = -2; break; }
            }
            for (int i = 0; i < path.size(); i++) anchor[path.get(i)] = answer;
            return answer;
        }

        /** Transaction {@code t}'s final write of {@code k}, or -1. */
        private int finalWriteOf(int t, int k) {
            for (int op = h.opEnd(t) - 1; op >= h.opStart(t); op--) if (h.key(op) == k && finalWrite[op]) return op;
            return -1;
        }

        /**
         * Fills {@code supersededBy} for the final writes of {@code C}'s writers that a later one of their key superseded;
         * returns the sealed versions' write operations, ascending. Requires the fixed point ({@link #block} found nothing).
         */
        int[] seal(boolean[] inC, int[] supersededBy, IntVec unordered) {
            IntVec sealed = new IntVec(16);
            for (int k = 0; k + 1 < from.length; k++) {
                if (from[k] == from[k + 1] || !writesIn(k, inC)) continue;
                int last = lastOfKey[k];
                if (last < 0 || !inC[last]) throw new IllegalStateException("internal: key " + History.show(h.keyName(k)) + " does not seal at the fixed point");
                for (int i = from[k]; i < from[k + 1]; i++) {
                    int op = ops[i], t = txnOf[op];
                    if (h.kind(op) != History.WRITE || !inC[t]) continue;
                    if (t == last) { sealed.add(op); continue; }
                    supersededBy[op] = last;
                    if (unforced[op]) unordered.add(op);
                }
            }
            int[] out = sealed.toArray();
            Arrays.sort(out);
            return out;
        }
    }
}
