package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.KnownGraph;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * What an accepted round carries into later rounds when garbage collection deletes some of its transactions
 * (docs/DESIGN.md §7.4): the facts between transactions that stay (a rebuild of the retained history would lose those
 * whose proof involved collected ones), the reads of marked writes by transactions that stay (§7.9), and the paths
 * through what goes, contracted into edges between what stays.
 *
 * <p>Contract: with the round's facts among staying transactions plus what is carried, {@code u ⇝ v} holds between two
 * staying transactions iff it held in the round's facts; no carried edge touches a collected or synthetic transaction;
 * each pair is carried once. Beyond {@link #MAX_CARRIED_PER_TRANSACTION} edges per transaction, or when the backward
 * index would not fit, nothing is carried and nothing may be collected.
 */
final class Contraction {
    private Contraction() {}

    /** A bound on the facts and paths carried into the next round, per transaction of the round: beyond it GC waits. */
    static final int MAX_CARRIED_PER_TRANSACTION = 40;

    /** The kinds of fact edges carried between transactions that stay (a mask by kind: rare kinds, such as settled sides, take no branch of their own). */
    private static final int CARRIED_KINDS = 1 << KnownGraph.RW | 1 << KnownGraph.WW | 1 << KnownGraph.PATH | 1 << KnownGraph.SETTLED;

    /**
     * Fills {@code carry} (source, target, kind and key id; four empty vectors on entry) with what later rounds carry, the
     * synthetic writers' edges included ({@link #withoutSynthetic} drops them). {@code r} and {@code topo}: the round's
     * reachability and topological order over its facts as they are now; {@code b}: the barrier's vertex or -1;
     * {@code marks}: the superseded marks ({@link FrontierAsData#marks}), or null. Returns why nothing may be collected,
     * or null.
     */
    static String carry(CheckedRound round, CheckedRound.Reach r, int[] topo, int b, boolean[] collect, IntVec[] marks, IntVec[] carry,
                        int synthetic) {
        History h = round.history();
        boolean[] included = round.included();
        int n = h.size(), facts = round.factEdges();
        LongIntMap pairs = new LongIntMap(Math.max(16, facts / 4));
        for (int e = 0; e < facts; e++) {
            int k = round.edgeKind(e), u = round.edgeSource(e), v = round.edgeTarget(e);
            if ((CARRIED_KINDS & (1 << k)) == 0 || u >= n || v >= n || collect[u] || collect[v] || u >= synthetic || v >= synthetic) continue;
            if (!addPair(pairs, u, v)) continue;
            carry[0].add(u); carry[1].add(v); carry[2].add(k); carry[3].add(round.edgeKey(e));
        }
        // a marked write leaves the later rounds' histories, and with it the reads of it by transactions that stay: the
        // order writer -> reader is carried instead (a fact: the reader read the write)
        if (marks != null && marks[0].size() > 0) {
            LongIntMap markedAt = new LongIntMap(Math.max(16, marks[0].size() * 2));
            for (int i = 0; i < marks[0].size(); i++) markedAt.put(LongIntMap.pack(h.key(marks[0].get(i)), marks[1].get(i)), i);
            for (int i = 0; i < round.reads(); i++) {
                int w = round.readWriter(i), t = round.readTxn(i);
                if (w < 0 || t == w || t >= synthetic || collect[t] || !included[t]) continue;
                if (markedAt.get(LongIntMap.pack(round.readKey(i), w)) != LongIntMap.MISSING) addPath(w, t, pairs, carry);
            }
        }
        return contract(round, r, topo, n, b, collect, pairs, carry, synthetic);
    }

    /**
     * Keeps every path between transactions that stay when the ones between them go: for each chain of the
     * cover, an edge between consecutive members that stay; and for each staying transaction y entered
     * from a collected one (or from the barrier, which is rebuilt), an edge from the latest staying member
     * of every chain that reaches y. Then u ⇝ v among staying transactions holds after collection iff it
     * held before: a path's detours through collected vertices are replaced by chain edges and those edges.
     * Returns why nothing may be collected if the backward index would not fit or the paths are too many; else null.
     */
    private static String contract(CheckedRound round, CheckedRound.Reach r, int[] topo, int n, int b,
                                   boolean[] collect, LongIntMap pairs, IntVec[] carry, int synthetic) {
        int vn = round.vertices(), cs = r.chains();
        if ((long) vn * cs > CheckedRound.reachabilityCellLimit()) return "a reachability index of the retained graph would not fit in memory";
        boolean[] included = round.included();
        int[] chainOf = r.chainOf(), pos = r.positions(), reach = r.reachTable();
        long limit = MAX_CARRIED_PER_TRANSACTION * (long) Math.max(1, n);
        // the synthetic writers do not stay: they are rebuilt each round with their own edges only, so a path through one
        // (into it from a marked writer or a reader of the initial value, out of it through the barrier) is carried
        // between real transactions like a path through a collected one (seed 2951 of the differential lost one)
        boolean[] kept = new boolean[vn];
        for (int t = 0; t < Math.min(n, synthetic); t++) kept[t] = included[t] && !collect[t];
        // chain members by position, and the latest kept member at or before each position
        int[] len = new int[cs];
        for (int v : topo) if (chainOf[v] >= 0) len[chainOf[v]]++;
        int[] start = new int[cs + 1];
        for (int c = 0; c < cs; c++) start[c + 1] = start[c] + len[c];
        int[] member = new int[start[cs]];
        for (int v : topo) if (chainOf[v] >= 0) member[start[chainOf[v]] + pos[v]] = v;
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
        CheckedRound.Adjacency in = round.factsReversed();
        int[] inStart = in.start(), inTarget = in.target();
        int[] back = new int[vn * cs];
        Arrays.fill(back, -1);
        for (int v : topo) {
            int base = v * cs;
            for (int p = inStart[v]; p < inStart[v + 1]; p++) {
                int u = inTarget[p], ub = u * cs;
                for (int k = 0; k < cs; k++) if (back[ub + k] > back[base + k]) back[base + k] = back[ub + k];
            }
            if (chainOf[v] >= 0) back[base + chainOf[v]] = pos[v];
        }
        IntVec sources = new IntVec();
        for (int y = 0; y < n; y++) {
            if (!kept[y]) continue;
            boolean boundary = false;
            for (int p = inStart[y]; p < inStart[y + 1] && !boundary; p++) {
                int u = inTarget[p];
                boundary = u == b || (u < n && collect[u]);
            }
            if (!boundary) continue;
            // y's staying predecessor on its own chain, which the chain edges above keep before y: a path from a source
            // that reaches it is redundant; so is one from a source that reaches another source (transitive reduction,
            // docs/DESIGN.md §7.4)
            int cy = chainOf[y], q = cy >= 0 && pos[y] > 0 ? latestKept[start[cy] + pos[y] - 1] : -1;
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
        // satellites (on no chain, CheckedRound.Reach) that stay: an edge to the earliest kept member of each chain they reach.
        // Not the synthetic writers of frontier records: they are rebuilt each round with the edges they need (PastFrontier)
        int[] nextKept = null;
        for (int s = 0; s < Math.min(n, synthetic); s++) {
            if (!kept[s] || chainOf[s] >= 0) continue;
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
                int p = reach[s * cs + c];
                if (p >= len[c]) continue;
                int u = nextKept[start[c] + p];
                if (u >= 0) addPath(s, u, pairs, carry);
            }
        }
        return null;
    }

    /** The carried facts without those that start or end at a synthetic writer (rebuilt each round with its edges). */
    static IntVec[] withoutSynthetic(IntVec[] carry, int synthetic) {
        IntVec[] out = {new IntVec(), new IntVec(), new IntVec(), new IntVec()};
        for (int i = 0; i < carry[0].size(); i++) {
            if (carry[0].get(i) >= synthetic || carry[1].get(i) >= synthetic) continue;
            for (int j = 0; j < 4; j++) out[j].add(carry[j].get(i));
        }
        return out;
    }

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
