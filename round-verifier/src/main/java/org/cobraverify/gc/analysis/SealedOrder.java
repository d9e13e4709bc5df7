package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * The order a round's sealed past is judged by ({@link SealedPast}, docs/DESIGN.md §7.11): session order (from every
 * transaction not of unknown outcome, §1.2) and reads-from among included transactions ({@code so ∪ wr}) as arrays of out- and in-edges, a topological order (null when it has a cycle), and
 * the passes the analysis makes over them: what a set reaches, what reaches every one of a set, and the closure of condition 2.
 */
final class SealedOrder {
    final int n;
    final int[] start, to;
    /** In-edges: {@code from[inStart[v] .. inStart[v+1])} precede {@code v}. */
    final int[] inStart, from;
    final int[] topo;
    /** {@link #closure}'s answer: an included transaction outside {@code C} precedes it. */
    private final boolean[] behind;
    final LongIntMap writer;

    /** The order of {@code h}'s included transactions: an aborted reader's reads, or one of unknown outcome nobody read, order nothing. */
    SealedOrder(History h, boolean[] included) { this(h, included, SealedPast.writers(h)); }

    /** As above, with {@code writer}: every write of {@code h} by (key, value), to its transaction ({@link SealedPast#writers}). */
    SealedOrder(History h, boolean[] included, LongIntMap writer) {
        n = h.size();
        this.writer = writer;
        int[] lastOfSession = new int[h.sessionCount()];
        Arrays.fill(lastOfSession, -1);
        int[] srcs = new int[n + h.opCount()], dsts = new int[n + h.opCount()];
        int m = 0;
        for (int t = 0; t < n; t++) {
            int s = h.session(t);
            if (lastOfSession[s] >= 0) { srcs[m] = lastOfSession[s]; dsts[m++] = t; }
            if (h.acknowledged(t)) lastOfSession[s] = t; // nothing follows one of unknown outcome by session order (§1.2)
            if (!included[t]) continue;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                int w = writer.get(LongIntMap.pack(h.key(op), h.value(op)));
                if (w == LongIntMap.MISSING || w == t) continue;
                srcs[m] = w; dsts[m++] = t;
            }
        }
        int[][] out = ReachabilityEngine.Dag.csr(n, srcs, dsts, m), in = ReachabilityEngine.Dag.csr(n, dsts, srcs, m);
        start = out[0];
        to = out[1];
        inStart = in[0];
        from = in[1];
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
        behind = new boolean[n];
    }

    /**
     * Per transaction, {@code words} longs: bit {@code i - first} set when {@code sources.get(i)} reaches it (itself
     * included), for {@code i} in {@code [first, end)}. Requires the topological order.
     */
    long[] reached(IntVec sources, int first, int end, int words) {
        long[] mask = new long[n * words];
        for (int i = first; i < end; i++) mask[sources.get(i) * words + (i - first) / 64] |= 1L << ((i - first) % 64);
        for (int u : topo)
            for (int e = start[u]; e < start[u + 1]; e++)
                for (int w = 0; w < words; w++) mask[to[e] * words + w] |= mask[u * words + w];
        return mask;
    }

    /**
     * Per transaction, {@code words} longs: bit {@code i - first} set when it reaches {@code targets.get(i)} (itself
     * included), for {@code i} in {@code [first, end)}. Requires the topological order.
     */
    long[] reaching(IntVec targets, int first, int end, int words) {
        long[] mask = new long[n * words];
        for (int i = first; i < end; i++) mask[targets.get(i) * words + (i - first) / 64] |= 1L << ((i - first) % 64);
        for (int i = n - 1; i >= 0; i--) {
            int u = topo[i];
            for (int e = start[u]; e < start[u + 1]; e++)
                for (int w = 0; w < words; w++) mask[u * words + w] |= mask[to[e] * words + w];
        }
        return mask;
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

    /** What reaches {@code to}, {@code to} included. */
    boolean[] backwardFrom(int to) {
        boolean[] seen = new boolean[n];
        int[] stack = new int[n];
        int sp = 0;
        seen[to] = true;
        stack[sp++] = to;
        while (sp > 0) {
            int u = stack[--sp];
            for (int e = inStart[u]; e < inStart[u + 1]; e++) if (!seen[from[e]]) { seen[from[e]] = true; stack[sp++] = from[e]; }
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
        java.util.Arrays.fill(behind, false);
        for (int u : topo) {
            inC[u] = cand[u] && included[u] && !out[u] && !behind[u];
            // held back: behind an included transaction that stays, directly or through ones outside the checked history
            // (session order runs through an aborted transaction: its predecessors precede its successors)
            if ((included[u] && !inC[u]) || behind[u]) for (int e = start[u]; e < start[u + 1]; e++) behind[to[e]] = true;
        }
    }

    /** After {@link #closure}: whether an included transaction outside {@code C} precedes it ({@code so ∪ wr}, transitively). */
    boolean behind(int t) { return behind[t]; }
}
