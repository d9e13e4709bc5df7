package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.solver.Budget;

/**
 * The certificate of a violation proved by search, improved after the decision within its own budget.
 *
 * <p>Contract: {@link #shrink} starts from the certificate available at the decision (the solver's core: the
 * write-order choices that admit no acyclic completion, and the transactions they involve), spends at most
 * the certificate budget (every inner check gets what is left of it, never a fresh one), and returns a
 * certificate whose {@link Certificate.Reduction} says what was achieved: {@code MINIMAL} only when the
 * deletion pass completed, {@code REDUCED} with the sizes before and after otherwise. It never claims more
 * than it proved: every sub-history it reports was itself checked and rejected.
 */
final class SearchCertificate {
    /** Beyond this many transactions a case split would be unreadable (and slow): the sub-history speaks for itself. */
    private static final int MAX_CASE_ANALYSIS = 60;

    private SearchCertificate() {}

    /**
     * Requires: the closure of {@code group} (vertices of the refuted component) is not serializable, and
     * {@code found} is the certificate given at the decision.
     */
    static Certificate shrink(History h, CheckOptions options, SubHistoryChecks checks, KnownGraph g, Constraints cons, int[] coreCons, int[] group,
                              Certificate found, CertificateBuilder certs) {
        long t0 = System.nanoTime();
        Budget budget = Budget.of(options.certificateSeconds(), options.maxHeapBytes());
        Chains ch = cons.chains;
        IntVec start = new IntVec();
        for (int c : coreCons) {
            start.add(ch.chainHead.get(cons.first.get(c)));
            start.add(ch.chainHead.get(cons.second.get(c)));
            for (int x = cons.sourcesStart(c, false); x < cons.sourcesEnd(c, false); x++) start.add(ch.rt[x]);
            for (int x = cons.sourcesStart(c, true); x < cons.sourcesEnd(c, true); x++) start.add(ch.rt[x]);
        }
        int[] seed = transactionsOf(start.toArray(), h.size());
        Minimizer m = new Minimizer(h, checks, budget);
        int before = found.transactions().size();
        int[] sub;
        try {
            // Sub-histories are closed under read-from, and one late reader can pull in most of the history; so
            // grow from the core's transactions with the smallest closures, doubling, until a prefix is refuted
            // (if the core's own transactions never suffice, the paths between them are part of the proof:
            // continue with the rest of the component, nearest first).
            int[] prefix = refutedPrefix(m, byClosureSize(m, seed), 8);
            if (prefix == null) prefix = refutedPrefix(m, byDistance(g, seed, group, h.size()), Math.max(8, seed.length * 2));
            if (prefix == null) throw new IllegalStateException("internal: the refuted component is serializable on its own");
            sub = m.minimize(prefix);
        } catch (Budget.Exhausted e) {
            sub = null;
        }
        boolean minimal = m.provedMinimal;
        if (sub == null || (!minimal && sub.length >= before))
            return withReduction(found, new Certificate.Reduction(Certificate.Reduction.Status.AS_FOUND, found.transactions().size(),
                    found.transactions().size(), System.nanoTime() - t0, m.checksRun, "the certificate budget ran out before a smaller proof was found"));
        List<Certificate.Txn> txns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int t : sub) { txns.add(certs.txn(t)); names.add(h.name(t)); }
        List<String> cases = new ArrayList<>();
        if (sub.length <= MAX_CASE_ANALYSIS) {
            try {
                cases = checks.caseAnalysis(h.restrict(sub), budget);
            } catch (Budget.Exhausted e) {
                cases.add("(the case analysis ran out of the certificate budget)");
            }
        }
        String summary = "no serial order exists: these " + sub.length + " transactions (closed under read-from) are already not serializable"
                + (minimal ? ", and removing any one of them (with the transactions that read from it) leaves a serializable history"
                           : " (reduced from " + before + " within the certificate budget; not proved minimal)");
        Certificate.Reduction r = new Certificate.Reduction(minimal ? Certificate.Reduction.Status.MINIMAL : Certificate.Reduction.Status.REDUCED,
                before, sub.length, System.nanoTime() - t0, m.checksRun, null);
        return new Certificate(AnomalyKind.UNSERIALIZABLE, summary, List.of(), txns, names, cases, List.of(), r);
    }

    static Certificate withReduction(Certificate c, Certificate.Reduction r) {
        return new Certificate(c.kind(), c.summary(), c.cycle(), c.transactions(), c.subHistory(), c.cases(), c.alsoFound(), r);
    }

    /** The shortest prefix among lengths start, 2·start, ... (and the whole) whose closure is refuted, or null. */
    private static int[] refutedPrefix(Minimizer m, int[] order, int start) {
        for (int len = Math.min(start, order.length); ; len = Math.min(order.length, len * 2)) {
            int[] p = Arrays.copyOf(order, len);
            if (m.rejected(m.close(p))) return p;
            if (len == order.length) return null;
        }
    }

    /** {@code txns} by the size of their closure under read-from, smallest first (stable). */
    private static int[] byClosureSize(Minimizer m, int[] txns) {
        long[] keyed = new long[txns.length];
        for (int i = 0; i < txns.length; i++) keyed[i] = ((long) m.closureSize(txns[i]) << 32) | i;
        Arrays.sort(keyed);
        int[] r = new int[txns.length];
        for (int i = 0; i < r.length; i++) r[i] = txns[(int) keyed[i]];
        return r;
    }

    /**
     * The transactions of {@code group}: first {@code core} (in its order), then the others by breadth-first
     * distance from the core in the known graph, edges taken either way (the ones a proof most likely needs first).
     */
    private static int[] byDistance(KnownGraph g, int[] core, int[] group, int n) {
        boolean[] inGroup = new boolean[g.n], seen = new boolean[g.n];
        for (int v : group) inGroup[v] = true;
        KnownGraph.Csr out = g.csr(g.edgeCount(), false), in = g.csr(g.edgeCount(), true);
        IntVec order = new IntVec(group.length);
        for (int v : core) if (!seen[v]) { seen[v] = true; order.add(v); }
        for (int head = 0; head < order.size(); head++) {
            int v = order.get(head);
            for (KnownGraph.Csr c : new KnownGraph.Csr[] {out, in})
                for (int p = c.start[v]; p < c.start[v + 1]; p++) {
                    int w = c.target[p];
                    if (inGroup[w] && !seen[w]) { seen[w] = true; order.add(w); }
                }
        }
        for (int v : group) if (!seen[v]) order.add(v);
        return Arrays.stream(order.toArray()).filter(v -> v < n).toArray();
    }

    /** The distinct transactions (not time points or the barrier) among {@code vertices}, in their order. */
    private static int[] transactionsOf(int[] vertices, int n) {
        return Arrays.stream(vertices).filter(v -> v >= 0 && v < n).distinct().toArray();
    }
}
