package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * {@link SealedPast}'s conditions 3 and 4 (docs/DESIGN.md §7.11), per key: each included transaction's final write of a key
 * with the writer it follows on that key (by the first operation on the key, a read, or else by session order), and the
 * reads of the key; which keys seal, with which writer, and which block.
 */
final class SealedKeys {
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

    /**
     * Whether a staying writer of a key that the key's sealing writer does not reach leaves the key open instead of blocking it
     * (condition 4's open writers, docs/DESIGN.md §7.11): then its final write is in {@link #openOps}.
     */
    private final boolean openWriters;
    /** The last pass's open writes: final writes of staying writers unordered with their key's sealing writer. */
    private final IntVec openOps = new IntVec(16);

    /** At the fixed point: the staying writers' final writes left open on their keys, ascending. */
    int[] openOps() {
        int[] out = openOps.toArray();
        Arrays.sort(out);
        return out;
    }

    /** The level's premise ({@link SealedPast.Premise}). */
    final SealedPast.Premise premise;
    /** Per transaction, this pass: whether every included transaction before it (in {@code so ∪ wr}, transitively) is in {@code C}. */
    final boolean[] afterC;
    /**
     * Why the first key the first pass blocked did not seal (its writers stay, with all they reach), or null: what holds
     * the collection back at its root (later passes only follow it), said for whoever watches the retained set grow.
     */
    private String firstBlock;

    String firstBlock() { return firstBlock; }

    /** Notes {@code why} key {@code k} blocked, if it is the first key blocked in the first pass. */
    private void blocked(int k, String why) { blocked(k, null, why); }

    /**
     * As above; {@code upTo}: the label of the writer whose version may still seal (the writers after it stay), or null
     * when none may.
     */
    private void blocked(int k, String upTo, String why) {
        if (firstBlock == null && pass == 1)
            firstBlock = "key " + History.show(h.keyName(k)) + (upTo == null ? " is not sealed: " : " is sealed no further than " + upTo + "'s version: ") + why;
    }

    /** The label of the writer of {@code k} at witness position {@code pos}. */
    private String writerAt(int k, int pos) {
        for (int i = from[k]; i < from[k + 1]; i++) if (h.kind(ops[i]) == History.WRITE && witnessPos[txnOf[ops[i]]] == pos) return h.label(txnOf[ops[i]]);
        return "?";
    }

    /** Per transaction: one before it in its session waits outside the round's history (null: none does). */
    private final boolean[] waitsBefore;

    SealedKeys(History h, boolean[] included, SealedOrder order, int[] witness, SealedPast.Premise premise, boolean[] waitsBefore,
               boolean openWriters) {
        this.h = h;
        this.openWriters = openWriters;
        this.waitsBefore = waitsBefore;
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
                    if (h.acknowledged(t)) lastWriterInSession.put(sk, t); // (none follows it by session order, §1.2)
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
        openOps.clear();
        for (int u = 0; u < h.size(); u++) afterC[u] = !order.behind(u);
        java.util.Arrays.fill(lastOfKey, -1);
        IntVec unchained = new IntVec(16), lasts = new IntVec(16), reachKeys = new IntVec(16), reachLasts = new IntVec(16);
        for (int k = 0; k + 1 < from.length; k++) {
            if (from[k] == from[k + 1] || !writesIn(k, inC)) continue;
            int last = chainLast(k, inC);
            if (last < 0) { // not one chain: the witness chooses, reachability says which choices are forced (below)
                last = witnessLast(k, inC);
                if (last >= 0 && h.status(last) == History.COMMITTED) { unchained.add(k); lasts.add(last); }
                else {
                    if (firstBlock == null && pass == 1) blocked(k, last < 0 ? "a writer of it is outside the check's commit order"
                            : "its writers do not chain and the last of them, " + h.label(last) + ", is not committed");
                    any |= block(k, inC, out);
                }
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
            IntVec unreached = new IntVec(16), unreachedAt = new IntVec(16);
            boolean[] reached = reachedFromLasts(reachKeys, reachLasts, inC, followsNew, unreached, unreachedAt);
            for (int i = 0; i < reachKeys.size(); i++) {
                if (reached[i]) lastOfKey[reachKeys.get(i)] = reachLasts.get(i);
                else if (openWriters) { // condition 4's open writers: sealed all the same, each staying writer left open on the key
                    lastOfKey[reachKeys.get(i)] = reachLasts.get(i);
                    for (int j = 0; j < unreached.size(); j++) if (unreachedAt.get(j) == i) openOps.add(unreached.get(j));
                } else {
                    if (firstBlock == null && pass == 1) blocked(reachKeys.get(i), "a writer of it that stays neither follows the entry fences nor follows "
                            + h.label(reachLasts.get(i)) + ", whose version would seal (unordered writes of one key)");
                    any |= block(reachKeys.get(i), inC, out);
                }
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
        if (a == BROKEN) {
            if (firstBlock == null && pass == 1) blocked(k, cutAt >= 0 ? writerAt(k, cutAt) : null, whyBroken(last));
            return cutAt >= 0 ? blockAfter(k, inC, out, cutAt) : block(k, inC, out);
        }
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

    /**
     * Marks {@code out} the writers of {@code k} in {@code C} after witness position {@code cut} (the version a staying
     * reader's undecided read returned): with them gone, that version is the last, and the reader reads it (condition 4).
     * Every writer there must be in the witness, else all are marked ({@link #block}). Returns whether any was marked.
     */
    private boolean blockAfter(int k, boolean[] inC, boolean[] out, int cut) {
        for (int i = from[k]; i < from[k + 1]; i++) {
            int op = ops[i], t = txnOf[op];
            if (h.kind(op) == History.WRITE && inC[t] && witnessPos[t] < 0) return block(k, inC, out);
        }
        boolean any = false;
        for (int i = from[k]; i < from[k + 1]; i++) {
            int op = ops[i], t = txnOf[op];
            if (h.kind(op) == History.WRITE && inC[t] && witnessPos[t] > cut) { out[t] = true; any = true; }
        }
        return any || block(k, inC, out);
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
        for (int from0 = 0; from0 < keys.size(); from0 += SealedPast.REACH_BATCH) {
            int to0 = Math.min(keys.size(), from0 + SealedPast.REACH_BATCH), words = (to0 - from0 + 63) / 64;
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
        cutAt = Integer.MAX_VALUE;
        brokenBy = -1;
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
                if (w == LongIntMap.MISSING) { cutAt = -1; brokenBy = t; brokenByMissing = true; return BROKEN; }
                if (w != INITIAL && (!inC[w] || w == last)) continue;
                // (a version at or after the cut so far: its writer goes with the cut, and the read is then of a version
                // written outside C)
                if (w != INITIAL && witnessPos[w] >= 0 && witnessPos[w] >= cutAt) continue;
                // of unknown outcome, unread (the check did not decide its reads), or an older version whose read is not
                // decided for good (it is when nothing its level's premise may draw on stays; later rounds leave it out,
                // §7.11): the version it read may seal instead, the writers after it in the witness staying
                if (included[t] && decided(t, k, inC)) continue;
                if (brokenBy < 0) { brokenBy = t; brokenByMissing = false; }
                if (w == INITIAL || witnessPos[w] < 0) { cutAt = -1; return BROKEN; }
                cutAt = Math.min(cutAt, witnessPos[w]);
            }
        }
        return cutAt != Integer.MAX_VALUE ? BROKEN : answer;
    }

    /**
     * Where {@link #after} found condition 4 broken: the witness position of the oldest version a staying reader's undecided
     * read returned (the writers of the key after it stay), or -1 when every writer of the key in {@code C} stays.
     */
    private int cutAt;

    /** The first staying reader {@link #after} found breaking condition 4 (-1: none), and whether it read a version nobody wrote. */
    private int brokenBy;
    private boolean brokenByMissing;

    /** Why {@link #brokenBy} broke condition 4 for a key sealed by {@code last}, said (for {@link #firstBlock}). */
    private String whyBroken(int last) {
        int t = brokenBy;
        if (t < 0) return "a reader of it that stays";
        if (brokenByMissing) return h.label(t) + ", which stays, reads a version of it no transaction of the round wrote";
        String older = h.label(t) + ", which stays, reads an older version than " + h.label(last) + "'s";
        if (!included[t]) return older + " and is of unknown outcome, unread (the check did not decide its reads)";
        if (waitsBefore != null && waitsBefore[t]) return older + ", and a transaction before it in its session waits for a write not yet seen";
        return older + ", and its read is not decided for good: " + switch (premise) {
            case SNAPSHOT -> !afterC[t] ? "a transaction before it stays" : "it writes, and a later writer of a key it writes could still precede it";
            case CAUSAL -> "a writer of the key in its causal past stays";
            case DIRECT -> "an earlier writer of the key in its session, or one whose write it read, stays";
        };
    }

    /**
     * For each key (parallel to {@code lasts}, its sealing writer) whose condition 4 holds if its sealing writer reaches its
     * staying writers: whether it does, for every staying writer that neither follows an entry fence nor chains to it; the
     * final writes of the staying writers it does not reach into {@code unreached}, each with its key's place in {@code keys}
     * in {@code unreachedAt}. One forward pass over the order with a bit per key.
     */
    private boolean[] reachedFromLasts(IntVec keys, IntVec lasts, boolean[] inC, boolean[] followsNew, IntVec unreached, IntVec unreachedAt) {
        boolean[] ok = new boolean[keys.size()];
        Arrays.fill(ok, true);
        for (int from0 = 0; from0 < keys.size(); from0 += SealedPast.REACH_BATCH) {
            int to0 = Math.min(keys.size(), from0 + SealedPast.REACH_BATCH), words = (to0 - from0 + 63) / 64;
            long[] mask = order.reached(lasts, from0, to0, words);
            for (int i = from0; i < to0; i++) {
                int k = keys.get(i), b = i - from0, last = lasts.get(i);
                for (int j = from[k]; j < from[k + 1]; j++) {
                    int op = ops[j], t = txnOf[op];
                    if (h.kind(op) != History.WRITE || inC[t] || followsNew[t]) continue;
                    if (anchorOf(op, k, inC) != last && (mask[t * words + b / 64] & (1L << (b % 64))) == 0) {
                        ok[i] = false;
                        unreached.add(op);
                        unreachedAt.add(i);
                    }
                }
            }
        }
        return ok;
    }

    /**
     * Whether staying reader {@code t}'s read of an older version of {@code k} is decided for good: no writer of {@code k}
     * its level's premise may draw on stays ({@link SealedPast.Premise}).
     */
    private boolean decided(int t, int k, boolean[] inC) {
        // a transaction before it in its session that waits outside the history is in every level's premise (its session)
        if (waitsBefore != null && waitsBefore[t]) return false;
        if (premise == SealedPast.Premise.SNAPSHOT) return afterC[t] && !writes(t);
        if (premise == SealedPast.Premise.CAUSAL) return !stayingCausalWriter(t, k, inC);
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
