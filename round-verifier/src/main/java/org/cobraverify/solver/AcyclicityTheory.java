package org.cobraverify.solver;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.cobraverify.history.IntVec;

/**
 * The acyclicity theory of an {@link Instance}: a literal switches on its edges; an assignment is consistent
 * when the fixed edges and the edges of the true literals form an acyclic graph.
 *
 * <p>Conflict: an edge u → v of literal l closes a cycle with a path v ⇝ u; the literals owning the path's
 * edges and l cannot all hold, so the clause is their negations. Propagation: an unassigned literal with an
 * edge (a, b) for which a path b ⇝ a exists now is impossible; its negation is implied, with the path's
 * literals as the reason. The search for such paths is bounded (sound, incomplete).
 * Invariant: the graph of fixed edges and assigned literals is acyclic ({@link TopologicalOrder}).
 */
final class AcyclicityTheory implements Theory {
    /** Vertices a propagation search may visit before giving up. */
    static final int PROPAGATION_SEARCH_LIMIT = 256;

    private final Instance in;
    private final boolean contrary;
    private final TopologicalOrder g;
    private final int[] edgesAdded; // per variable: edges its literal put in (retracted in reverse)
    private final int[] vlitStart, vlit; // per vertex: literals with an edge at it
    private final int[] litStamp, varStamp;
    private int litStampNow, varStampNow;

    /** {@code contrary}: first phases against the current order ({@link AcyclicitySolver#contrary}). */
    AcyclicityTheory(Instance in, boolean contrary) {
        this.contrary = contrary;
        this.in = in;
        int n = in.vertices, nv = in.variables;
        g = new TopologicalOrder(n);
        edgesAdded = new int[nv];
        vlitStart = new int[n + 1];
        for (int l = 0; l < 2 * nv; l++)
            for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) { vlitStart[in.litSrc[i] + 1]++; vlitStart[in.litDst[i] + 1]++; }
        for (int v = 0; v < n; v++) vlitStart[v + 1] += vlitStart[v];
        vlit = new int[vlitStart[n]];
        int[] fill = Arrays.copyOf(vlitStart, n);
        for (int l = 0; l < 2 * nv; l++)
            for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) { vlit[fill[in.litSrc[i]]++] = l; vlit[fill[in.litDst[i]]++] = l; }
        litStamp = new int[2 * nv];
        varStamp = new int[nv];
    }

    @Override
    public boolean initialize() {
        for (int i = 0; i < in.fixedSrc.length; i++) g.push(in.fixedSrc[i], in.fixedDst[i], -1);
        return g.initialize(in.priority);
    }

    /** The side whose edges agree more with the guessed serial order (the initial topological order). */
    @Override
    public boolean preferPositive(int var) { return contrary ^ (consistency(2 * var) >= consistency(2 * var + 1)); }

    private int consistency(int lit) {
        int c = 0;
        for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) if (g.ord(in.litSrc[i]) < g.ord(in.litDst[i])) c++;
        return c - (in.litStart[lit + 1] - in.litStart[lit]);
    }

    @Override
    public int[] assign(int lit) {
        int var = lit >> 1;
        edgesAdded[var] = 0;
        for (int i = in.litStart[lit]; i < in.litStart[lit + 1]; i++) {
            int u = in.litSrc[i], v = in.litDst[i];
            if (u == v) return new int[] {lit ^ 1};
            if (!g.insert(u, v, lit)) return clause(lit, g.pathOwners(u, v));
            edgesAdded[var]++;
        }
        return null;
    }

    @Override
    public void retract(int lit) {
        int var = lit >> 1;
        for (int e = 0; e < edgesAdded[var]; e++) g.pop();
        edgesAdded[var] = 0;
    }

    @Override
    public void propagate(int p, IntPredicate consider, Consumer<int[]> implied) {
        if (++litStampNow == Integer.MAX_VALUE) { Arrays.fill(litStamp, 0); litStampNow = 1; }
        for (int i = in.litStart[p]; i < in.litStart[p + 1]; i++) {
            for (int end = 0; end < 2; end++) {
                int w = end == 0 ? in.litSrc[i] : in.litDst[i];
                for (int j = vlitStart[w]; j < vlitStart[w + 1]; j++) {
                    int l = vlit[j];
                    if (litStamp[l] == litStampNow) continue;
                    litStamp[l] = litStampNow;
                    if (!consider.test(l)) continue;
                    int[] reason = blocked(l);
                    if (reason != null) implied.accept(reason);
                }
            }
        }
    }

    /** If an edge (a, b) of literal l has a path b ⇝ a (found within the search limit): the clause (¬l ∨ ¬path literals). */
    private int[] blocked(int l) {
        for (int i = in.litStart[l]; i < in.litStart[l + 1]; i++) {
            int a = in.litSrc[i], b = in.litDst[i];
            if (a == b) return new int[] {l ^ 1};
            if (g.pathWithin(b, a, PROPAGATION_SEARCH_LIMIT)) return clause(l, g.pathOwners(a, b));
        }
        return null;
    }

    /** ¬lit, then the negation of every other literal owning one of {@code owners} (fixed edges, -1, need none), once each. */
    private int[] clause(int lit, IntVec owners) {
        if (++varStampNow == Integer.MAX_VALUE) { Arrays.fill(varStamp, 0); varStampNow = 1; }
        IntVec c = new IntVec(owners.size() + 1);
        c.add(lit ^ 1);
        varStamp[lit >> 1] = varStampNow;
        for (int k = 0; k < owners.size(); k++) {
            int owner = owners.get(k);
            if (owner >= 0 && varStamp[owner >> 1] != varStampNow) {
                varStamp[owner >> 1] = varStampNow;
                c.add(owner ^ 1);
            }
        }
        return c.toArray();
    }
}
