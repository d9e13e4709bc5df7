package org.cobraverify.solver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.IntVec;

/**
 * Conflict-driven clause learning over variables 0..nv-1 modulo a {@link Theory}. It knows nothing of graphs.
 * Contents: the trail and propagation (two watched literals, then the theory's consistency check and its
 * propagation); 1-UIP conflict analysis; VSIDS activity with phase saving (first phases from the theory);
 * Luby restarts; reduction of learnt clauses.
 *
 * <p>Contract of {@link #run}: SAT with an assignment the theory accepts, UNSAT with the variables of every
 * theory clause seen (a set whose constraints alone admit no model), or {@link Budget.Exhausted} thrown
 * when the budget runs out (a step of it at every conflict and every decision).
 */
final class CdclSearch {
    private static final int UNDEF = -1;
    static final boolean THEORY_PROPAGATION = !Boolean.getBoolean("cobra.noTheoryPropagation");

    private final Theory theory;
    private final Budget budget;
    private final int nv;
    private final byte[] value;       // per literal: 1 true, -1 false, 0 unassigned
    private final int[] level, reason;
    private final boolean[] processed; // the theory has seen the literal assigned (it must retract it)
    private final int[] trail;
    private int trailLen, qhead;
    private final IntVec trailLim = new IntVec();
    private final List<int[]> clauses = new ArrayList<>();
    private final IntVec learntIds = new IntVec();
    private final List<IntVec> watches;
    private final double[] activity;
    private double varInc = 1, clauseInc = 1;
    private double[] clauseAct = new double[1024];
    private final boolean[] phase, seen;
    private final boolean[] inTheoryConflict; // variables of some theory clause: every refutation uses only these
    private final VarHeap heap;
    long conflicts, decisions;

    CdclSearch(Theory theory, int variables, Budget budget) {
        this.theory = theory;
        this.budget = budget;
        nv = variables;
        value = new byte[2 * nv];
        level = new int[nv];
        reason = new int[nv];
        processed = new boolean[nv];
        trail = new int[nv];
        watches = new ArrayList<>(2 * nv);
        for (int i = 0; i < 2 * nv; i++) watches.add(new IntVec(2));
        activity = new double[nv];
        phase = new boolean[nv];
        seen = new boolean[nv];
        inTheoryConflict = new boolean[nv];
        heap = new VarHeap(nv, activity);
    }

    Result run() {
        if (!theory.initialize()) return Result.unsat(new int[0], 0, 0);
        for (int v = 0; v < nv; v++) {
            phase[v] = theory.preferPositive(v);
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
                budget.step();
                if (decisionLevel() == 0) return Result.unsat(core(), conflicts, decisions);
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
                budget.step();
                trailLim.add(trailLen);
                enqueue(phase[v] ? 2 * v : 2 * v + 1, UNDEF);
            }
        }
    }

    // ---- propagation ----

    private int decisionLevel() { return trailLim.size(); }

    private void enqueue(int lit, int from) {
        int var = lit >> 1;
        value[lit] = 1;
        value[lit ^ 1] = -1;
        level[var] = decisionLevel();
        reason[var] = from;
        trail[trailLen++] = lit;
    }

    private int[] propagate() {
        while (qhead < trailLen) {
            int p = trail[qhead++];
            processed[p >> 1] = true;
            int[] tc = theory.assign(p);
            if (tc != null) {
                for (int q : tc) inTheoryConflict[q >> 1] = true;
                qhead = trailLen;
                return tc;
            }
            // only where conflicts have been: elsewhere the initial guess is usually right and testing costs more than it saves
            if (THEORY_PROPAGATION) theory.propagate(p, l -> value[l] == 0 && activity[l >> 1] != 0, this::implied);
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

    /** A literal the theory rules out: learn its reason clause and assert the implied literal (first). */
    private void implied(int[] reasonClause) {
        if (value[reasonClause[0]] != 0) return;
        for (int q : reasonClause) inTheoryConflict[q >> 1] = true;
        if (reasonClause.length == 1) {
            if (decisionLevel() == 0) enqueue(reasonClause[0], UNDEF);
            return;
        }
        // watch the implied literal and the most recently assigned of the others
        int maxI = 1;
        for (int k = 2; k < reasonClause.length; k++) if (level[reasonClause[k] >> 1] > level[reasonClause[maxI] >> 1]) maxI = k;
        int t = reasonClause[1]; reasonClause[1] = reasonClause[maxI]; reasonClause[maxI] = t;
        int id = addClause(reasonClause, true);
        enqueue(reasonClause[0], id);
    }

    private int addClause(int[] c, boolean learnt) {
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

    private int analyze(int[] confl, IntVec learnt) {
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

    private boolean isLearnt(int id) { return id < clauseAct.length && clauseAct[id] > 0; }

    private void bumpClause(int id) {
        clauseAct[id] += clauseInc;
        if (clauseAct[id] > 1e100) {
            for (int i = 0; i < learntIds.size(); i++) clauseAct[learntIds.get(i)] *= 1e-100;
            clauseInc *= 1e-100;
        }
    }

    private void bump(int var) {
        activity[var] += varInc;
        if (activity[var] > 1e100) {
            for (int v = 0; v < nv; v++) activity[v] *= 1e-100;
            varInc *= 1e-100;
        }
        heap.increased(var);
    }

    private void cancelUntil(int lvl) {
        if (decisionLevel() <= lvl) return;
        int stop = trailLim.get(lvl);
        for (int i = trailLen - 1; i >= stop; i--) {
            int lit = trail[i];
            int var = lit >> 1;
            if (processed[var]) {
                theory.retract(lit);
                processed[var] = false;
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

    private int pickBranch() {
        while (!heap.isEmpty()) {
            int v = heap.removeMax();
            if (value[2 * v] == 0) return v;
        }
        return UNDEF;
    }

    /** Removes the less active half of the learnt clauses that are not reasons. */
    private void reduceLearnts() {
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

    private static final int[] EMPTY = new int[0];

    private boolean[] assignment() {
        boolean[] a = new boolean[nv];
        for (int v = 0; v < nv; v++) a[v] = value[2 * v] == 1;
        return a;
    }

    /**
     * The variables a refutation rests on. Every clause is a theory clause (valid given the theory and those
     * variables alone) or a resolvent of such clauses, so the variables of all theory clauses already admit
     * no model. A superset of a minimal core.
     */
    private int[] core() {
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
