package org.cobraverify.report;

import org.cobraverify.checker.Certificate;

/**
 * Renders a certificate as a Graphviz digraph: its transactions as boxes (id, session, operations) and
 * the cycle's edges labelled {@code wr(x)}, {@code ww(x)}, {@code rw(x)}, {@code so}; derived edges dashed.
 * {@code dot -Tsvg} turns it into a picture.
 */
public final class DotReport {
    private DotReport() {}

    public static String render(Certificate c) {
        StringBuilder sb = new StringBuilder("digraph certificate {\n");
        sb.append("  label=").append(q(c.kind().displayName() + "\\n" + c.summary())).append(";\n  labelloc=t;\n");
        sb.append("  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=10];\n");
        for (Certificate.Txn t : c.transactions())
            sb.append("  ").append(q(t.label())).append(" [label=").append(q(t.label() + "  (session " + t.session() + ", " + t.status() + ")\\n" + t.ops())).append("];\n");
        for (Certificate.Edge e : c.cycle()) {
            sb.append("  ").append(q(e.from())).append(" -> ").append(q(e.to())).append(" [label=").append(q(e.label()));
            if (e.derivedBecause() != null) sb.append(", style=dashed, tooltip=").append(q(e.derivedBecause()));
            if (e.kind().equals("rw")) sb.append(", color=red");
            sb.append("];\n");
        }
        if (!c.cases().isEmpty()) {
            StringBuilder cases = new StringBuilder("why, case by case:\\l");
            for (String l : c.cases()) cases.append(l).append("\\l");
            sb.append("  cases [shape=note, label=").append(q(cases.toString())).append("];\n");
        }
        return sb.append("}\n").toString();
    }

    /** A DOT string literal; {@code \n} and {@code \l} escapes pass through. */
    private static String q(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\\\\n", "\\n").replace("\\\\l", "\\l").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }
}
