package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;

/**
 * Step 9: turns what the checker found (anomalies, a cycle of the known graph, a refutation) into a
 * {@link Certificate} that names transactions and keys as the history does. A derived edge carries its
 * reason: the path that made the other write order impossible, using only edges known before it.
 */
final class CertificateBuilder {
    private final History h;
    private final KnownGraph g;
    private final int barrierVertex;
    private final String barrierText;
    /** The collected past's real-time point (docs/DESIGN.md §7.3), or -1; and the latest end of an old transaction it stands for. */
    private final int realTimeVertex;
    private final long pastMaxEnd;

    CertificateBuilder(History h, KnownGraph g) { this(h, g, -1, null, -1, History.NO_TIME); }

    CertificateBuilder(History h, KnownGraph g, int barrierVertex, String barrierText, int realTimeVertex, long pastMaxEnd) {
        this.h = h;
        this.g = g;
        this.barrierVertex = barrierVertex;
        this.barrierText = barrierText;
        this.realTimeVertex = realTimeVertex;
        this.pastMaxEnd = pastMaxEnd;
    }

    String tx(int t) { return h.label(t); }

    Certificate.Txn txn(int t) {
        return new Certificate.Txn(h.name(t), History.show(h.sessionName(h.session(t))), History.statusName(h.status(t)), h.describeOps(t), h.line(t),
                h.start(t) == History.NO_TIME ? Certificate.Txn.NO_TIME : h.start(t), h.end(t) == History.NO_TIME ? Certificate.Txn.NO_TIME : h.end(t));
    }

    /** An immediate rejection: the first anomaly found, with the others listed. */
    Certificate anomaly(List<Anomaly> found) {
        Anomaly a = found.get(0);
        Set<Integer> ts = new LinkedHashSet<>();
        for (int t : a.txns()) ts.add(t);
        List<Certificate.Txn> txns = new ArrayList<>();
        for (int t : ts) txns.add(txn(t));
        List<String> also = new ArrayList<>();
        for (int i = 1; i < found.size(); i++) also.add(found.get(i).kind().displayName() + ": " + found.get(i).explanation());
        return new Certificate(a.kind(), a.explanation(), List.of(), txns, List.of(), List.of(), also);
    }

    /** A cycle of the known graph (edge indexes), classified and explained. */
    Certificate cycle(int[] cycle) {
        // start at a transaction, not at a time point of the real-time order
        int r = 0;
        while (g.src.get(cycle[r]) >= h.size()) r++;
        int[] rot = new int[cycle.length];
        for (int i = 0; i < cycle.length; i++) rot[i] = cycle[(r + i) % cycle.length];
        List<int[]> segs = segments(rot);
        List<Certificate.Edge> edges = new ArrayList<>();
        Set<Integer> ts = new LinkedHashSet<>();
        for (int[] seg : segs) {
            edges.add(seg.length == 1 && g.kind.get(seg[0]) != KnownGraph.RT && g.kind.get(seg[0]) != KnownGraph.PAST ? edge(seg[0]) : realTime(seg));
            ts.add(g.src.get(seg[0]));
        }
        AnomalyKind kind = classify(edges);
        List<Certificate.Txn> txns = new ArrayList<>();
        for (int t : ts) txns.add(txn(t));
        return new Certificate(kind, summary(kind, edges), edges, txns, List.of(), List.of(), List.of());
    }

    /** Adya's name for a cycle of dependency edges (kinds so, wr, ww, rw, rt, past): by its anti-dependencies and their places. */
    static AnomalyKind classify(List<Certificate.Edge> edges) {
        int rw = 0, ww = 0, wr = 0;
        String[] kinds = new String[edges.size()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = edges.get(i).kind();
            switch (kinds[i]) {
                case "rw" -> rw++;
                case "ww" -> ww++;
                case "wr" -> wr++;
                default -> { }
            }
        }
        int len = kinds.length;
        if (rw == 0) return wr == 0 && ww > 0 ? AnomalyKind.G0 : (ww + wr == 0 ? AnomalyKind.SESSION_CYCLE : AnomalyKind.G1C);
        if (rw == 1) return AnomalyKind.G_SINGLE;
        if (len == 2 && rw == 2) return AnomalyKind.WRITE_SKEW;
        if (len == 4 && rw == 2 && wr == 2 && alternates(kinds)) return AnomalyKind.LONG_FORK;
        return AnomalyKind.G2;
    }

    /** One line: the anomaly's name, the cycle ({@code *} marks a derived edge), and what closes it. */
    static String summary(AnomalyKind kind, List<Certificate.Edge> edges) {
        StringBuilder sb = new StringBuilder();
        sb.append(kind.displayName()).append(": ");
        boolean so = false, rt = false, past = false;
        for (Certificate.Edge e : edges) {
            sb.append(e.from()).append(" -").append(e.label()).append(e.derivedBecause() != null && !e.kind().equals("rt") ? "*" : "").append("-> ");
            switch (e.kind()) {
                case "rw", "ww", "wr" -> { }
                case "rt" -> rt = true;
                case "past" -> past = true;
                default -> so = true; // so, and the paths and settled orders that stand for it
            }
        }
        sb.append(edges.get(0).from());
        if (so && kind != AnomalyKind.SESSION_CYCLE) sb.append(" (closed through session order)");
        if (rt) sb.append(" (closed through real-time order: not strictly serializable)");
        if (past) sb.append(" (closed through the collected past)");
        return sb.toString();
    }

    /** Splits a path of edges into runs from transaction to transaction (time points only inside runs). */
    private List<int[]> segments(int[] path) {
        List<int[]> segs = new ArrayList<>();
        IntVec cur = new IntVec();
        for (int e : path) {
            cur.add(e);
            if (g.dst.get(e) < h.size()) { segs.add(cur.toArray()); cur.clear(); }
        }
        if (!cur.isEmpty()) segs.add(cur.toArray());
        return segs;
    }

    /** A run of real-time edges through time points, as one {@code rt} edge with the times that justify it. */
    private Certificate.Edge realTime(int[] seg) {
        int from = g.src.get(seg[0]), to = g.dst.get(seg[seg.length - 1]);
        for (int e : seg) {
            if (g.src.get(e) == barrierVertex || g.dst.get(e) == barrierVertex) {
                return new Certificate.Edge(tx(from), tx(to), "past", null, tx(from) + " precedes the collected past and " + tx(to)
                        + " follows it: " + barrierText);
            }
        }
        for (int e : seg) {
            if (realTimeVertex >= 0 && g.dst.get(e) == realTimeVertex)
                return new Certificate.Edge(tx(from), tx(to), "rt", null, tx(from) + " precedes, in known dependencies, a transaction since"
                        + " garbage-collected that ended by " + pastMaxEnd + " ns, and " + tx(to) + " started at " + h.start(to)
                        + " ns: real-time order puts " + tx(from) + " first");
        }
        String why = tx(from) + " ended at " + h.end(from) + " ns and " + tx(to) + " started at " + h.start(to)
                + " ns: real-time order puts " + tx(from) + " first";
        return new Certificate.Edge(tx(from), tx(to), "rt", null, why);
    }

    private static boolean alternates(String[] kinds) {
        for (int i = 0; i < kinds.length; i++) if (kinds[i].equals(kinds[(i + 1) % kinds.length])) return false;
        return true;
    }

    private Certificate.Edge edge(int e) {
        int k = g.kind.get(e), key = g.key.get(e);
        String why = k == KnownGraph.PATH ? "a path of known dependencies through transactions since garbage-collected"
                : k == KnownGraph.SETTLED ? "an order of key " + History.show(h.keyName(key)) + "'s versions that no read observed, settled when"
                        + " garbage collection closed this part of the history (nothing later could reach it; a serial order exists with it"
                        + " if one exists at all)" : null;
        int d = g.deriv.get(e);
        if (d == KnownGraph.CARRIED && why == null)
            why = "a fact of an earlier round, carried past the transactions garbage collection has since taken (its proof ran through"
                    + " them, so it is not shown here: docs/DESIGN.md §7.4)";
        if (d >= 0) {
            int a = g.derivA.get(d), b = g.derivB.get(d);
            int[] path = path(b, a, g.derivLimit.get(d));
            StringBuilder sb = new StringBuilder("the other order of key " + History.show(h.keyName(g.key.get(e))) + "'s versions needs "
                    + tx(a) + " -> " + tx(b) + ", but ");
            if (path == null || path.length == 0) sb.append(tx(b)).append(" already reaches ").append(tx(a));
            else {
                sb.append(tx(b));
                for (int[] seg : segments(path)) {
                    boolean timed = seg.length > 1 || g.kind.get(seg[0]) == KnownGraph.RT || g.kind.get(seg[0]) == KnownGraph.PAST;
                    boolean viaPast = false;
                    for (int x : seg) viaPast |= g.src.get(x) == barrierVertex || g.dst.get(x) == barrierVertex;
                    sb.append(" -").append(viaPast ? "past" : timed ? "rt" : label(seg[0])).append("-> ").append(tx(g.dst.get(seg[seg.length - 1])));
                }
            }
            why = sb.toString();
        }
        return new Certificate.Edge(tx(g.src.get(e)), tx(g.dst.get(e)), KnownGraph.kindName(k), key < 0 ? null : History.show(h.keyName(key)), why);
    }

    private String label(int e) {
        int key = g.key.get(e);
        return KnownGraph.kindName(g.kind.get(e)) + (key < 0 ? "" : "(" + History.show(h.keyName(key)) + ")");
    }

    /** A shortest path from u to v using only the first {@code limit} edges, as edge indexes; null if none. */
    private int[] path(int u, int v, int limit) {
        if (u == v) return new int[0];
        KnownGraph.Csr out = g.csr(limit, false);
        int[] parent = new int[g.n];
        Arrays.fill(parent, -2);
        IntVec q = new IntVec();
        q.add(u);
        parent[u] = -1;
        for (int i = 0; i < q.size(); i++) {
            int x = q.get(i);
            for (int p = out.start[x]; p < out.start[x + 1]; p++) {
                int y = out.target[p];
                if (parent[y] != -2) continue;
                parent[y] = out.edge[p];
                if (y == v) {
                    IntVec r = new IntVec();
                    for (int w = v; w != u; w = g.src.get(parent[w])) r.add(parent[w]);
                    int[] a = r.toArray();
                    for (int l = 0, m = a.length - 1; l < m; l++, m--) { int tmp = a[l]; a[l] = a[m]; a[m] = tmp; }
                    return a;
                }
                q.add(y);
            }
        }
        return null;
    }

    /** A refutation by search, reported without shrinking: the constraints it used and their transactions. */
    Certificate unsat(Constraints cons, int[] coreCons, int componentSize) {
        Set<Integer> ts = new LinkedHashSet<>();
        List<String> lines = new ArrayList<>();
        Chains ch = cons.chains;
        for (int c : coreCons) {
            int i = cons.first.get(c), j = cons.second.get(c);
            ts.add(ch.chainHead.get(i));
            ts.add(ch.chainTail.get(i));
            ts.add(ch.chainHead.get(j));
            ts.add(ch.chainTail.get(j));
            for (int x = cons.sourcesStart(c, false); x < cons.sourcesEnd(c, false); x++) ts.add(ch.rt[x]);
            for (int x = cons.sourcesStart(c, true); x < cons.sourcesEnd(c, true); x++) ts.add(ch.rt[x]);
            lines.add("key " + History.show(h.keyName(cons.key(c))) + ": the versions of " + tx(ch.chainTail.get(i)) + " and "
                    + tx(ch.chainTail.get(j)) + " can be ordered neither way");
        }
        List<Certificate.Txn> txns = new ArrayList<>();
        List<String> sub = new ArrayList<>();
        for (int t : ts) { txns.add(txn(t)); sub.add(h.name(t)); }
        String summary = "no serial order exists: " + coreCons.length + " write-order choice(s) among " + ts.size()
                + " transactions (in a strongly connected group of " + componentSize + ") each close a cycle whichever way they go";
        return new Certificate(AnomalyKind.UNSERIALIZABLE, summary, List.of(), txns, sub, List.of(), lines);
    }
}
