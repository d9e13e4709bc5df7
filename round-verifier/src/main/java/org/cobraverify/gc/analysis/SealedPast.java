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

    /** A collection that does not settle within this many passes (each blocks at least one key) is skipped. */
    static final int MAX_PASSES = 64;

    /**
     * What the analysis found: which transactions follow the past's fences in {@code so ∪ wr} (null when there is no past),
     * and the collection (null when none was planned).
     */
    public record Result(boolean[] follows, GarbageCollection gc) {}

    /**
     * The included transactions of {@code h} (docs/DESIGN.md §11.1): committed ones, and those of unknown outcome whose write
     * an included read observed.
     */
    public static boolean[] included(History h) {
        int n = h.size();
        boolean[] inc = new boolean[n];
        LongIntMap writer = writers(h);
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
     * Analyses an accepted round's history {@code h}. {@code pastFences}: the previous past's fences present in {@code h}
     * (null: nothing was collected yet). {@code old}, {@code pinned}, {@code entries}: the collection's plan (null
     * {@code old}: none). Returns what follows the past and, when planned, the collection.
     */
    public static Result analyze(History h, boolean[] included, int[] pastFences, boolean[] old, boolean[] pinned, int[] entries) {
        Order o = new Order(h);
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
            if (pinned != null && pinned[t]) { kept[GarbageCollection.Kept.PINNED.ordinal()]++; continue; }
            cand[t] = true;
        }
        boolean[] followsNew = o.forwardFrom(entries);
        Keys keys = new Keys(h, included, o.writer);
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
        int[] frontier = keys.seal(inC, followsNew, supersededBy);
        return new Result(follows, GarbageCollection.sealed(collect, supersededBy, superseded, oldNow, frontier, kept));
    }

    /** Every write of {@code h} by (key, value), to its transaction. */
    static LongIntMap writers(History h) {
        LongIntMap w = new LongIntMap(Math.max(16, h.opCount() / 2));
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++)
                if (h.kind(op) == History.WRITE) w.put(LongIntMap.pack(h.key(op), h.value(op)), t);
        return w;
    }

    /** The round's {@code so ∪ wr} order as arrays: out-edges, and a topological order (null when it has a cycle). */
    private static final class Order {
        final int n;
        final int[] start, to;
        final int[] topo;
        final LongIntMap writer;

        Order(History h) {
            n = h.size();
            writer = writers(h);
            int[] lastOfSession = new int[h.sessionCount()];
            Arrays.fill(lastOfSession, -1);
            int[] srcs = new int[n + h.opCount()], dsts = new int[n + h.opCount()];
            int m = 0;
            for (int t = 0; t < n; t++) {
                int s = h.session(t);
                if (lastOfSession[s] >= 0) { srcs[m] = lastOfSession[s]; dsts[m++] = t; }
                lastOfSession[s] = t;
                for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                    if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                    int w = writer.get(LongIntMap.pack(h.key(op), h.value(op)));
                    if (w == LongIntMap.MISSING || w == t) continue;
                    srcs[m] = w; dsts[m++] = t;
                }
            }
            start = new int[n + 1];
            for (int i = 0; i < m; i++) start[srcs[i] + 1]++;
            for (int i = 0; i < n; i++) start[i + 1] += start[i];
            to = new int[m];
            int[] fill = Arrays.copyOf(start, n);
            for (int i = 0; i < m; i++) to[fill[srcs[i]]++] = dsts[i];
            int[] indeg = new int[n];
            for (int i = 0; i < m; i++) indeg[to[i]]++;
            int[] order = new int[n];
            int head = 0, tail = 0;
            for (int t = 0; t < n; t++) if (indeg[t] == 0) order[tail++] = t;
            while (head < tail) {
                int u = order[head++];
                for (int e = start[u]; e < start[u + 1]; e++) if (--indeg[to[e]] == 0) order[tail++] = to[e];
            }
            topo = tail == n ? order : null;
        }

        /** What {@code from} reaches, {@code from} included. */
        boolean[] forwardFrom(int[] from) {
            boolean[] seen = new boolean[n];
            int[] stack = new int[n];
            int sp = 0;
            for (int f : from) if (!seen[f]) { seen[f] = true; stack[sp++] = f; }
            while (sp > 0) {
                int u = stack[--sp];
                for (int e = start[u]; e < start[u + 1]; e++) if (!seen[to[e]]) { seen[to[e]] = true; stack[sp++] = to[e]; }
            }
            return seen;
        }

        /** Per transaction: whether it reaches every one of {@code targets} (in reverse topological order, a bit per target). */
        boolean[] reachingAll(int[] targets) {
            int words = Math.max(1, (targets.length + 63) / 64);
            long[] mask = new long[n * words];
            int[] bit = new int[n];
            Arrays.fill(bit, -1);
            for (int j = 0; j < targets.length; j++) if (bit[targets[j]] < 0) bit[targets[j]] = j;
            for (int j = 0; j < targets.length; j++) mask[targets[j] * words + j / 64] |= 1L << (j % 64);
            for (int i = n - 1; i >= 0; i--) {
                int u = topo[i];
                for (int e = start[u]; e < start[u + 1]; e++)
                    for (int w = 0; w < words; w++) mask[u * words + w] |= mask[to[e] * words + w];
            }
            boolean[] all = new boolean[n];
            for (int t = 0; t < n; t++) {
                boolean ok = true;
                for (int j = 0; j < targets.length && ok; j++) ok = (mask[t * words + j / 64] & (1L << (j % 64))) != 0;
                all[t] = ok;
            }
            return all;
        }

        /**
         * Into {@code inC}: the candidates that are included, not {@code out}, and whose included predecessors are all in it
         * (a transaction that stays holds back everything it reaches).
         */
        void closure(boolean[] cand, boolean[] included, boolean[] out, boolean[] inC) {
            boolean[] held = new boolean[n];
            for (int u : topo) {
                inC[u] = cand[u] && included[u] && !out[u] && !held[u];
                if (included[u] && !inC[u]) for (int e = start[u]; e < start[u + 1]; e++) held[to[e]] = true;
            }
        }
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

        Keys(History h, boolean[] included, LongIntMap writer) {
            this.h = h;
            this.included = included;
            this.followers = new int[h.size()];
            this.writer = writer;
            int n = h.size(), ops = h.opCount();
            txnOf = new int[ops];
            finalWrite = new boolean[ops];
            pred = new int[ops];
            Arrays.fill(pred, -2);
            LongIntMap lastWriterInSession = new LongIntMap(64);
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
                            int w = v == History.NIL ? -1 : writer.get(LongIntMap.pack(k, v));
                            pred[op] = w == LongIntMap.MISSING ? -2 : w;
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
         * or 4. Returns whether any was marked.
         */
        boolean block(boolean[] inC, boolean[] followsNew, boolean[] out) {
            boolean any = false;
            for (int k = 0; k + 1 < from.length; k++) {
                if (from[k] == from[k + 1] || !writesIn(k, inC) || lastOf(k, inC, followsNew) >= 0) continue;
                for (int i = from[k]; i < from[k + 1]; i++) {
                    int op = ops[i], t = txnOf[op];
                    if (h.kind(op) == History.WRITE && inC[t]) { out[t] = true; any = true; }
                }
            }
            return any;
        }

        private boolean writesIn(int k, boolean[] inC) {
            for (int i = from[k]; i < from[k + 1]; i++) if (h.kind(ops[i]) == History.WRITE && inC[txnOf[ops[i]]]) return true;
            return false;
        }

        /**
         * The writer of key {@code k} in {@code C} whose version seals (conditions 3 and 4 hold), or -1 when they do not.
         * Requires that {@code C} writes {@code k}.
         */
        int lastOf(int k, boolean[] inC, boolean[] followsNew) {
            int heads = 0, last = -1, lasts = 0;
            boolean forked = false;
            // condition 3: one chain. Each writer of C is followed by at most one other of C; exactly one by none.
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
            if (forked || heads != 1 || lasts != 1 || h.status(last) != History.COMMITTED) return -1;
            // condition 4: staying writers follow the last, staying readers read it or a staying writer
            for (int i = from[k]; i < from[k + 1]; i++) {
                int op = ops[i], t = txnOf[op];
                if (inC[t]) continue;
                if (h.kind(op) == History.WRITE) {
                    if (followsNew[t]) continue;
                    int p = pred[op], steps = from[k + 1] - from[k];
                    while (p >= 0 && !inC[p] && steps-- > 0) p = predOf(p, k);
                    if (p != last) return -1;
                } else {
                    if (h.status(t) == History.ABORTED) continue;
                    int v = h.value(op);
                    if (v == History.NIL) return -1;
                    int w = writer.get(LongIntMap.pack(k, v));
                    if (w == LongIntMap.MISSING || (inC[w] && w != last)) return -1;
                }
            }
            return last;
        }

        /** The writer that writer {@code t}'s final write of {@code k} follows (negative: none in the round). */
        private int predOf(int t, int k) {
            for (int op = h.opEnd(t) - 1; op >= h.opStart(t); op--) if (h.key(op) == k && finalWrite[op]) return pred[op];
            return -2;
        }

        /**
         * Fills {@code supersededBy} for the final writes of {@code C}'s writers that a later one of their key superseded;
         * returns the sealed versions' write operations, ascending. Requires the fixed point ({@link #block} found nothing).
         */
        int[] seal(boolean[] inC, boolean[] followsNew, int[] supersededBy) {
            IntVec sealed = new IntVec(16);
            for (int k = 0; k + 1 < from.length; k++) {
                if (from[k] == from[k + 1] || !writesIn(k, inC)) continue;
                int last = lastOf(k, inC, followsNew);
                if (last < 0) throw new IllegalStateException("internal: key " + History.show(h.keyName(k)) + " does not seal at the fixed point");
                for (int i = from[k]; i < from[k + 1]; i++) {
                    int op = ops[i], t = txnOf[op];
                    if (h.kind(op) != History.WRITE || !inC[t]) continue;
                    if (t == last) sealed.add(op); else supersededBy[op] = last;
                }
            }
            int[] out = sealed.toArray();
            Arrays.sort(out);
            return out;
        }
    }
}
