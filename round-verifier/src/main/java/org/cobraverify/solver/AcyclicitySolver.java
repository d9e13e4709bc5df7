package org.cobraverify.solver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.IntVec;

/**
 * CDCL over one Boolean per constraint, with an acyclicity theory (the project's own replacement for
 * MonoSAT). Contents:
 * <ol>
 *   <li>the graph: fixed edges plus the edges of every assigned literal, in per-vertex adjacency stacks
 *       (edges are removed in reverse order of insertion, on backtrack);</li>
 *   <li>an incremental topological order (Pearce–Kelly): inserting (u, v) with ord[u] &gt; ord[v] searches
 *       forward from v and backward from u within the affected range, and either reorders or finds the
 *       path v ⇝ u that closes a cycle; removing edges keeps the order valid;</li>
 *   <li>theory conflicts: the literals owning the cycle's edges cannot all hold, which is the learned
 *       clause (the negations of those literals);</li>
 *   <li>theory propagation: after a literal's edges go in, unassigned literals with an edge at one of
 *       the touched vertices, whose variables have taken part in a conflict, are tested; one whose edge (a, b) already has a path b ⇝ a is impossible,
 *       so the other side is implied, with the path's literals as the reason (bounded searches: an
 *       incomplete but sound propagation);</li>
 *   <li>clauses with two watched literals, 1-UIP conflict analysis, VSIDS activity, phase saving with
 *       initial phases from a guessed serial order, Luby restarts, learnt clause reduction.</li>
 * </ol>
 * Invariant between steps: the graph of fixed edges and processed literals is acyclic and {@code ord} is a
 * topological order of it. Answers are exact: SAT with an assignment, UNSAT with the variables used by
 * the refutation, UNKNOWN only when the budget is spent.
 */
public final class AcyclicitySolver implements Solver {
    private static final int UNDEF = -1;

    @Override
    public String name() { return "cdcl"; }

    @Override
    public Result solve(Instance inst, Budget budget) {
        Search s = new Search(inst, budget);
        try {
            return s.run();
        } catch (Budget.Exhausted e) {
            return Result.unknown(e.getMessage(), s.conflicts, s.decisions);
        }
    }

    private static final class Search {
        final Instance in;
        final Budget budget;
        final int n, nv;
        // graph
        int[][] out, outOwner, inn;
        int[] outLen, innLen;
        final IntVec edgeStackSrc = new IntVec(1024), edgeStackDst = new IntVec(1024);
        int[] ord, at;
        // search state
        final byte[] value;       // per literal: 1 true, -1 false, 0 unassigned
        final int[] level, reason, edgesAdded;
        final boolean[] processed;
        final int[] trail;
        int trailLen, qhead;
        final IntVec trailLim = new IntVec();
        final List<int[]> clauses = new ArrayList<>();
        final IntVec learntIds = new IntVec();
        final List<IntVec> watches;
        final double[] activity;
        double varInc = 1, clauseInc = 1;
        double[] clauseAct = new double[1024];
        final boolean[] phase;
        final VarHeap heap;
        long conflicts, decisions, propagations;
        // scratch for searches
        int[] mark;
        int stamp;
        final IntVec queue = new IntVec(), deltaF = new IntVec(), deltaB = new IntVec();
        int[] parentOwner, parentVertex;
        final boolean[] seen;
        final boolean[] inTheoryConflict; // variables of some theory clause: every refutation uses only these
        int[] vlitStart, vlit; // per vertex: literals with an edge at that vertex
        int[] litStamp;
        int litStampNow;
        long theoryPropagations;
        static final int PROPAGATION_SEARCH_LIMIT = 256;
        static final boolean THEORY_PROPAGATION = !Boolean.getBoolean("cobra.noTheoryPropagation");

        Search(Instance in, Budget budget) {
            this.in = in;
            this.budget = budget;
            n = in.vertices;
            nv = in.variables;
            out = new int[n][];
            outOwner = new int[n][];
            inn = new int[n][];
            outLen = new int[n];
            innLen = new int[n];
            for (int v = 0; v < n; v++) { out[v] = new int[4]; outOwner[v] = new int[4]; inn[v] = new int[4]; }
            value = new byte[2 * nv];
            level = new int[nv];
            reason = new int[nv];
            edgesAdded = new int[nv];
            processed = new boolean[nv];
            trail = new int[nv];
            watches = new ArrayList<>(2 * nv);
            for (int i = 0; i < 2 * nv; i++) watches.add(new IntVec(2));
            activity = new double[nv];
            phase = new boolean[nv];
            seen = new boolean[nv];
            inTheoryConflict = new boolean[nv];
            mark = new int[n];
            parentOwner = new int[n];
            parentVertex = new int[n];
            heap = new VarHeap(nv, activity);
            vlitStart = new int[n + 1];
            for (int l = 0; l < 2 * nv; l++)
                for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) { vlitStart[in.litSrc[i] + 1]++; vlitStart[in.litDst[i] + 1]++; }
            for (int v = 0; v < n; v++) vlitStart[v + 1] += vlitStart[v];
            vlit = new int[vlitStart[n]];
            int[] fill = Arrays.copyOf(vlitStart, n);
            for (int l = 0; l < 2 * nv; l++)
                for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) { vlit[fill[in.litSrc[i]]++] = l; vlit[fill[in.litDst[i]]++] = l; }
            litStamp = new int[2 * nv];
        }

        Result run() {
            // fixed edges, then an initial topological order that follows the guessed serial order
            for (int i = 0; i < in.fixedSrc.length; i++) pushEdge(in.fixedSrc[i], in.fixedDst[i], -1);
            int[] topo = initialOrder();
            if (topo == null) return Result.unsat(new int[0], 0, 0);
            ord = new int[n];
            at = new int[n];
            for (int i = 0; i < n; i++) { ord[topo[i]] = i; at[i] = topo[i]; }
            // phases: the side more consistent with that order
            for (int v = 0; v < nv; v++) {
                phase[v] = consistency(2 * v) >= consistency(2 * v + 1);
                heap.insert(v);
            }
            Arrays.fill(reason, UNDEF);
            int lubyIndex = 0;
            long restartAt = 100;
            long learntLimit = Math.max(2000, nv / 2);
            while (true) {
                int[] confl = propagate();
                if (confl != null) {
                    conflicts++;
                    if ((conflicts & 63) == 0) budget.check();
                    if (decisionLevel() == 0) return Result.unsat(coreOf(confl), conflicts, decisions);
                    IntVec learnt = new IntVec();
                    int bt = analyze(confl, learnt);
                    cancelUntil(bt);
                    int[] c = learnt.toArray();
                    if (c.length == 1) {
                        enqueue(c[0], UNDEF);
                    } else {
                        int id = addClause(c, true);
                        enqueue(c[0], id);
                    }
                    varInc /= 0.95;
                    clauseInc /= 0.999;
                } else {
                    if (conflicts >= restartAt) {
                        restartAt = conflicts + 100L * luby(++lubyIndex);
                        cancelUntil(0);
                    }
                    if (learntIds.size() > learntLimit) {
                        reduceLearnts();
                        learntLimit += learntLimit / 10;
                    }
                    int v = pickBranch();
                    if (v == UNDEF) return Result.sat(assignment(), conflicts, decisions);
                    decisions++;
                    if ((decisions & 255) == 0) budget.check();
                    trailLim.add(trailLen);
                    enqueue(phase[v] ? 2 * v : 2 * v + 1, UNDEF);
                }
            }
        }

        // ---- graph and incremental topological order ----

        void pushEdge(int u, int v, int owner) {
            if (outLen[u] == out[u].length) {
                out[u] = Arrays.copyOf(out[u], out[u].length * 2);
                outOwner[u] = Arrays.copyOf(outOwner[u], outOwner[u].length * 2);
            }
            out[u][outLen[u]] = v;
            outOwner[u][outLen[u]++] = owner;
            if (innLen[v] == inn[v].length) inn[v] = Arrays.copyOf(inn[v], inn[v].length * 2);
            inn[v][innLen[v]++] = u;
            edgeStackSrc.add(u);
            edgeStackDst.add(v);
        }

        void popEdge() {
            int u = edgeStackSrc.pop(), v = edgeStackDst.pop();
            outLen[u]--;
            innLen[v]--;
        }

        int[] initialOrder() {
            int[] indeg = new int[n];
            for (int u = 0; u < n; u++) for (int i = 0; i < outLen[u]; i++) indeg[out[u][i]]++;
            long[] prio = in.priority != null ? in.priority : new long[n];
            VertexHeap h = new VertexHeap(n, prio);
            for (int v = 0; v < n; v++) if (indeg[v] == 0) h.push(v);
            int[] topo = new int[n];
            int k = 0;
            while (!h.isEmpty()) {
                int u = h.pop();
                topo[k++] = u;
                for (int i = 0; i < outLen[u]; i++) if (--indeg[out[u][i]] == 0) h.push(out[u][i]);
            }
            return k == n ? topo : null;
        }

        int consistency(int lit) {
            int c = 0;
            for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) if (ord[in.litSrc[i]] < ord[in.litDst[i]]) c++;
            return c - (in.litStart[lit + 1] - in.litStart[lit]);
        }

        /**
         * Inserts the edges of literal {@code lit}; returns null, or a conflict clause (all false) when an
         * edge closes a cycle. The edges inserted before the conflict stay (recorded in edgesAdded).
         */
        int[] addEdgesOf(int lit) {
            int var = lit >> 1;
            edgesAdded[var] = 0;
            processed[var] = true;
            for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) {
                int u = in.litSrc[i], v = in.litDst[i];
                if (u == v) return new int[] {lit ^ 1};
                if (ord[u] > ord[v]) {
                    int[] c = reorder(u, v, lit);
                    if (c != null) return c;
                }
                pushEdge(u, v, lit);
                edgesAdded[var]++;
            }
            return null;
        }

        /** Pearce–Kelly for a new edge u → v with ord[u] > ord[v]: reorders, or returns the cycle's clause. */
        int[] reorder(int u, int v, int lit) {
            int ub = ord[u], lb = ord[v];
            stamp++;
            if (stamp == Integer.MAX_VALUE) { Arrays.fill(mark, 0); stamp = 1; }
            // forward breadth-first search from v over vertices with ord <= ub
            queue.clear();
            deltaF.clear();
            queue.add(v);
            mark[v] = stamp;
            parentVertex[v] = -1;
            for (int qi = 0; qi < queue.size(); qi++) {
                int x = queue.get(qi);
                deltaF.add(x);
                int[] ox = out[x], oo = outOwner[x];
                for (int i = 0, e = outLen[x]; i < e; i++) {
                    int y = ox[i];
                    if (y == u) {
                        parentVertex[u] = x;
                        parentOwner[u] = oo[i];
                        return cycleClause(u, v, lit);
                    }
                    if (mark[y] == stamp || ord[y] > ub) continue;
                    mark[y] = stamp;
                    parentVertex[y] = x;
                    parentOwner[y] = oo[i];
                    queue.add(y);
                }
            }
            // backward search from u over vertices with ord >= lb
            int fStamp = stamp;
            stamp++;
            queue.clear();
            deltaB.clear();
            queue.add(u);
            mark[u] = stamp;
            for (int qi = 0; qi < queue.size(); qi++) {
                int x = queue.get(qi);
                deltaB.add(x);
                int[] ix = inn[x];
                for (int i = 0, e = innLen[x]; i < e; i++) {
                    int y = ix[i];
                    if (mark[y] == stamp || mark[y] == fStamp || ord[y] < lb) continue;
                    mark[y] = stamp;
                    queue.add(y);
                }
            }
            // new order: the backward set, then the forward set, in the union of their old positions
            int nb = deltaB.size(), nf = deltaF.size();
            int[] b = deltaB.raw(), f = deltaF.raw();
            sortByOrd(b, nb);
            sortByOrd(f, nf);
            int[] slots = new int[nb + nf];
            for (int i = 0; i < nb; i++) slots[i] = ord[b[i]];
            for (int i = 0; i < nf; i++) slots[nb + i] = ord[f[i]];
            Arrays.sort(slots);
            for (int i = 0; i < nb; i++) { ord[b[i]] = slots[i]; at[slots[i]] = b[i]; }
            for (int i = 0; i < nf; i++) { ord[f[i]] = slots[nb + i]; at[slots[nb + i]] = f[i]; }
            return null;
        }

        void sortByOrd(int[] a, int len) {
            // small sets dominate: insertion sort, else pack (ord, vertex) into longs
            if (len < 32) {
                for (int i = 1; i < len; i++) {
                    int x = a[i], ox = ord[x], j = i - 1;
                    while (j >= 0 && ord[a[j]] > ox) { a[j + 1] = a[j]; j--; }
                    a[j + 1] = x;
                }
                return;
            }
            long[] tmp = new long[len];
            for (int i = 0; i < len; i++) tmp[i] = ((long) ord[a[i]] << 32) | a[i];
            Arrays.sort(tmp);
            for (int i = 0; i < len; i++) a[i] = (int) tmp[i];
        }

        /** The clause forbidding the cycle v ⇝ u → v: the negation of every literal owning one of its edges. */
        int[] cycleClause(int u, int v, int lit) {
            IntVec c = new IntVec();
            c.add(lit ^ 1);
            stamp++;
            seenVarStamp(lit >> 1);
            for (int x = u; x != v; x = parentVertex[x]) {
                int owner = parentOwner[x];
                if (owner >= 0 && varStamp[owner >> 1] != stamp) {
                    varStamp[owner >> 1] = stamp;
                    c.add(owner ^ 1);
                }
            }
            return c.toArray();
        }

        int[] varStamp;

        void seenVarStamp(int var) {
            if (varStamp == null) varStamp = new int[nv];
            varStamp[var] = stamp;
        }

        // ---- propagation ----

        int decisionLevel() { return trailLim.size(); }

        void enqueue(int lit, int from) {
            int var = lit >> 1;
            value[lit] = 1;
            value[lit ^ 1] = -1;
            level[var] = decisionLevel();
            reason[var] = from;
            trail[trailLen++] = lit;
        }

        int[] propagate() {
            while (qhead < trailLen) {
                int p = trail[qhead++];
                propagations++;
                int[] tc = addEdgesOf(p);
                if (tc != null) {
                    for (int q : tc) inTheoryConflict[q >> 1] = true;
                    qhead = trailLen;
                    return tc;
                }
                if (THEORY_PROPAGATION) theoryPropagate(p);
                int falseLit = p ^ 1;
                IntVec ws = watches.get(falseLit);
                int[] w = ws.raw();
                int i = 0, j = 0, end = ws.size();
                while (i < end) {
                    int ci = w[i++];
                    int[] c = clauses.get(ci);
                    if (c[0] == falseLit) { c[0] = c[1]; c[1] = falseLit; }
                    if (value[c[0]] == 1) { w[j++] = ci; continue; }
                    boolean moved = false;
                    for (int k = 2; k < c.length; k++) {
                        if (value[c[k]] != -1) {
                            c[1] = c[k];
                            c[k] = falseLit;
                            watches.get(c[1]).add(ci);
                            moved = true;
                            break;
                        }
                    }
                    if (moved) continue;
                    w[j++] = ci;
                    if (value[c[0]] == -1) {
                        while (i < end) w[j++] = w[i++];
                        ws.shrink(j);
                        qhead = trailLen;
                        return c;
                    }
                    enqueue(c[0], ci);
                }
                ws.shrink(j);
            }
            return null;
        }

        /**
         * For each unassigned literal with an edge at a vertex that {@code p}'s edges touch: if one of its
         * edges (a, b) has a path b ⇝ a now, it would close a cycle, so its negation is implied.
         */
        void theoryPropagate(int p) {
            if (++litStampNow == Integer.MAX_VALUE) { Arrays.fill(litStamp, 0); litStampNow = 1; }
            for (int i = in.litStart[p]; i < in.litStart[p + 1]; i++) {
                for (int end = 0; end < 2; end++) {
                    int w = end == 0 ? in.litSrc[i] : in.litDst[i];
                    for (int j = vlitStart[w]; j < vlitStart[w + 1]; j++) {
                        int l = vlit[j];
                        if (litStamp[l] == litStampNow) continue;
                        litStamp[l] = litStampNow;
                        // only where conflicts have been: elsewhere the initial guess is usually right and testing costs more than it saves
                        if (value[l] != 0 || activity[l >> 1] == 0) continue;
                        int[] reasonClause = blocked(l);
                        if (reasonClause == null) continue;
                        theoryPropagations++;
                        for (int q : reasonClause) inTheoryConflict[q >> 1] = true;
                        if (reasonClause.length == 1) {
                            if (decisionLevel() == 0) enqueue(reasonClause[0], UNDEF);
                            continue;
                        }
                        // watch the implied literal and the most recently assigned of the others
                        int maxI = 1;
                        for (int k = 2; k < reasonClause.length; k++) if (level[reasonClause[k] >> 1] > level[reasonClause[maxI] >> 1]) maxI = k;
                        int t = reasonClause[1]; reasonClause[1] = reasonClause[maxI]; reasonClause[maxI] = t;
                        int id = addClause(reasonClause, true);
                        enqueue(reasonClause[0], id);
                    }
                }
            }
        }

        /** If an edge (a, b) of literal l has a path b ⇝ a (found within the search limit): the clause (¬l ∨ ¬path literals), ¬l first. */
        int[] blocked(int l) {
            for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) {
                int a = in.litSrc[i], b = in.litDst[i];
                if (a == b) return new int[] {l ^ 1};
                if (ord[b] > ord[a]) continue; // b comes after a in a topological order: no path b ~> a
                stamp++;
                if (stamp == Integer.MAX_VALUE) { Arrays.fill(mark, 0); stamp = 1; }
                queue.clear();
                queue.add(b);
                mark[b] = stamp;
                int ub = ord[a];
                for (int qi = 0; qi < queue.size() && qi < PROPAGATION_SEARCH_LIMIT; qi++) {
                    int x = queue.get(qi);
                    int[] ox = out[x], oo = outOwner[x];
                    for (int k = 0, e = outLen[x]; k < e; k++) {
                        int y = ox[k];
                        if (mark[y] == stamp || ord[y] > ub) continue;
                        mark[y] = stamp;
                        parentVertex[y] = x;
                        parentOwner[y] = oo[k];
                        if (y == a) {
                            IntVec c = new IntVec();
                            c.add(l ^ 1);
                            if (varStamp == null) varStamp = new int[nv];
                            stamp++;
                            varStamp[l >> 1] = stamp;
                            for (int z = a; z != b; z = parentVertex[z]) {
                                int owner = parentOwner[z];
                                if (owner >= 0 && varStamp[owner >> 1] != stamp) { varStamp[owner >> 1] = stamp; c.add(owner ^ 1); }
                            }
                            return c.toArray();
                        }
                        queue.add(y);
                    }
                }
            }
            return null;
        }

        int addClause(int[] c, boolean learnt) {
            int id = clauses.size();
            clauses.add(c);
            watches.get(c[0]).add(id);
            watches.get(c[1]).add(id);
            if (learnt) {
                learntIds.add(id);
                if (id >= clauseAct.length) clauseAct = Arrays.copyOf(clauseAct, id * 2 + 1);
                clauseAct[id] = clauseInc;
            }
            return id;
        }

        // ---- conflict analysis (first UIP) ----

        int analyze(int[] confl, IntVec learnt) {
            learnt.add(0); // placeholder for the asserting literal
            int pathC = 0;
            int p = -1;
            int idx = trailLen - 1;
            int[] c = confl;
            int cur = decisionLevel();
            while (true) {
                for (int k = 0; k < c.length; k++) {
                    int q = c[k];
                    if (p != -1 && q == p) continue;
                    int var = q >> 1;
                    if (seen[var] || level[var] == 0) continue;
                    seen[var] = true;
                    bump(var);
                    if (level[var] >= cur) pathC++;
                    else learnt.add(q);
                }
                while (!seen[trail[idx] >> 1]) idx--;
                p = trail[idx--];
                seen[p >> 1] = false;
                pathC--;
                if (pathC == 0) break;
                int r = reason[p >> 1];
                c = clauses.get(r);
                if (r >= 0 && isLearnt(r)) bumpClause(r);
            }
            learnt.set(0, p ^ 1);
            for (int k = 1; k < learnt.size(); k++) seen[learnt.get(k) >> 1] = false;
            if (learnt.size() == 1) return 0;
            int maxI = 1;
            for (int k = 2; k < learnt.size(); k++) if (level[learnt.get(k) >> 1] > level[learnt.get(maxI) >> 1]) maxI = k;
            int t = learnt.get(1);
            learnt.set(1, learnt.get(maxI));
            learnt.set(maxI, t);
            return level[learnt.get(1) >> 1];
        }

        boolean isLearnt(int id) { return id < clauseAct.length && clauseAct[id] > 0; }

        void bumpClause(int id) {
            clauseAct[id] += clauseInc;
            if (clauseAct[id] > 1e100) {
                for (int i = 0; i < learntIds.size(); i++) clauseAct[learntIds.get(i)] *= 1e-100;
                clauseInc *= 1e-100;
            }
        }

        void bump(int var) {
            activity[var] += varInc;
            if (activity[var] > 1e100) {
                for (int v = 0; v < nv; v++) activity[v] *= 1e-100;
                varInc *= 1e-100;
            }
            heap.increased(var);
        }

        void cancelUntil(int lvl) {
            if (decisionLevel() <= lvl) return;
            int stop = trailLim.get(lvl);
            for (int i = trailLen - 1; i >= stop; i--) {
                int lit = trail[i];
                int var = lit >> 1;
                if (processed[var]) {
                    for (int e = 0; e < edgesAdded[var]; e++) popEdge();
                    processed[var] = false;
                    edgesAdded[var] = 0;
                }
                phase[var] = (lit & 1) == 0;
                value[lit] = 0;
                value[lit ^ 1] = 0;
                reason[var] = UNDEF;
                if (!heap.contains(var)) heap.insert(var);
            }
            trailLen = stop;
            qhead = stop;
            trailLim.shrink(lvl);
        }

        int pickBranch() {
            while (!heap.isEmpty()) {
                int v = heap.removeMax();
                if (value[2 * v] == 0) return v;
            }
            return UNDEF;
        }

        /** Removes the less active half of the learnt clauses that are not reasons. */
        void reduceLearnts() {
            int m = learntIds.size();
            long[] keyed = new long[m];
            for (int i = 0; i < m; i++) {
                int id = learntIds.get(i);
                keyed[i] = ((long) Float.floatToIntBits((float) clauseAct[id]) << 32) | i;
            }
            Arrays.sort(keyed);
            boolean[] drop = new boolean[clauses.size()];
            int dropped = 0;
            for (int k = 0; k < m / 2; k++) {
                int id = learntIds.get((int) keyed[k]);
                int[] c = clauses.get(id);
                if (c.length <= 2) continue;
                int var = c[0] >> 1;
                if (value[c[0]] == 1 && reason[var] == id) continue; // locked
                drop[id] = true;
                dropped++;
            }
            if (dropped == 0) return;
            for (int l = 0; l < 2 * nv; l++) {
                IntVec ws = watches.get(l);
                int j = 0;
                for (int i = 0; i < ws.size(); i++) if (!drop[ws.get(i)]) ws.set(j++, ws.get(i));
                ws.shrink(j);
            }
            IntVec keep = new IntVec(m);
            for (int i = 0; i < m; i++) {
                int id = learntIds.get(i);
                if (drop[id]) { clauses.set(id, EMPTY); clauseAct[id] = 0; } else keep.add(id);
            }
            learntIds.clear();
            for (int i = 0; i < keep.size(); i++) learntIds.add(keep.get(i));
        }

        static final int[] EMPTY = new int[0];

        boolean[] assignment() {
            boolean[] a = new boolean[nv];
            for (int v = 0; v < nv; v++) a[v] = value[2 * v] == 1;
            return a;
        }

        /**
         * The variables a refutation rests on. Every clause is a theory clause (a cycle's literals, valid
         * given the fixed edges and those variables alone) or a resolvent of such clauses, so the variables
         * of all theory clauses already admit no acyclic choice. A superset of a minimal core.
         */
        int[] coreOf(int[] confl) {
            IntVec core = new IntVec();
            for (int v = 0; v < nv; v++) if (inTheoryConflict[v]) core.add(v);
            return core.toArray();
        }

        static int luby(int x) {
            int size = 1, seq = 0;
            while (size < x + 1) { seq++; size = 2 * size + 1; }
            while (size - 1 != x) { size = (size - 1) >> 1; seq--; x = x % size; }
            return 1 << seq;
        }
    }

    /** Max-heap of variables by activity, with positions for decrease/increase. */
    static final class VarHeap {
        private final int[] heap, pos;
        private final double[] act;
        private int size;

        VarHeap(int n, double[] act) {
            heap = new int[n];
            pos = new int[n];
            Arrays.fill(pos, -1);
            this.act = act;
        }

        boolean isEmpty() { return size == 0; }

        boolean contains(int v) { return pos[v] >= 0; }

        void insert(int v) {
            if (pos[v] >= 0) return;
            heap[size] = v;
            pos[v] = size++;
            up(pos[v]);
        }

        void increased(int v) { if (pos[v] >= 0) up(pos[v]); }

        int removeMax() {
            int top = heap[0];
            pos[top] = -1;
            int last = heap[--size];
            if (size > 0) { heap[0] = last; pos[last] = 0; down(0); }
            return top;
        }

        private void up(int i) {
            int v = heap[i];
            while (i > 0) {
                int p = (i - 1) >> 1;
                if (act[heap[p]] >= act[v]) break;
                heap[i] = heap[p];
                pos[heap[i]] = i;
                i = p;
            }
            heap[i] = v;
            pos[v] = i;
        }

        private void down(int i) {
            int v = heap[i];
            while (true) {
                int l = 2 * i + 1;
                if (l >= size) break;
                int r = l + 1;
                int m = r < size && act[heap[r]] > act[heap[l]] ? r : l;
                if (act[heap[m]] <= act[v]) break;
                heap[i] = heap[m];
                pos[heap[i]] = i;
                i = m;
            }
            heap[i] = v;
            pos[v] = i;
        }
    }
}
