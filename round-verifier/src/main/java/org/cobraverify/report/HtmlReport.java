package org.cobraverify.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;

/**
 * A certificate as one self-contained HTML page: inline SVG and CSS, no script and nothing fetched, so it opens from
 * an attachment or an air-gapped laptop. The page shows the anomaly with what it means and its class
 * ({@link AnomalyKind#meaning}, {@link AnomalyKind#adyaClass}); the cycle as a
 * graph (our own circular layout: a certificate's cycle is a simple cycle, so a circle never crosses edges, and its
 * radius grows with the cycle so nodes never overlap), each edge labelled ({@code wr(x)}, {@code ww(x)}, {@code rw(x)},
 * {@code so}, {@code rt}), derived edges dashed, each edge's reason on hover and listed below; each transaction's
 * operations, session, status and file line; the certificate's transactions in one lane per session, in file order;
 * the "why, case by case" of a proof by search and the reduction status.
 *
 * <p>Invariant: every string taken from the history (ids, sessions, keys, values, operations) is HTML-escaped before it
 * is written, so user data is shown as text and never runs.
 */
public final class HtmlReport {
    private HtmlReport() {}

    /** The page for {@code c}; {@code source} names the history (a file), shown in the title. */
    public static String render(Certificate c, String source) { return render(c, source, IsolationLevel.SERIALIZABLE, null); }

    /**
     * The page for {@code c}, a certificate that the history breaks {@code level}; {@code weakest}, when known, is the weakest
     * level of the ladder that the history breaks (said when it differs from {@code level}).
     */
    public static String render(Certificate c, String source, IsolationLevel level, IsolationLevel weakest) {
        StringBuilder b = new StringBuilder(16_384);
        String title = c.kind().displayName();
        head(b, "cobra: " + title + " in " + source, CSS);
        b.append("<h1>Not ").append(esc(TextReport.satisfies(level))).append(": ").append(esc(title)).append("</h1>\n");
        b.append("<p class=\"meaning\">").append(esc(c.kind().meaning())).append("</p>\n");
        b.append("<p class=\"adya\">").append(esc(adyaLine(c.kind()))).append("</p>\n");
        if (weakest != null && weakest != level)
            b.append("<p class=\"level\">The history breaks every level from ").append(esc(weakest.longName())).append(" up: it is not even ")
                    .append(esc(TextReport.satisfies(weakest))).append(".</p>\n");
        else if (weakest == level && level != IsolationLevel.READ_COMMITTED)
            b.append("<p class=\"level\">Every weaker level holds: ").append(esc(level.longName())).append(" is the weakest level this history breaks.</p>\n");
        b.append("<p class=\"summary\">").append(esc(c.summary())).append("</p>\n");
        if (onFenceKey(c))
            b.append("<p class=\"note\">").append(esc(FENCE_NOTE)).append("</p>\n");
        b.append("<p class=\"source\">History: ").append(esc(source)).append("</p>\n");
        if (!c.cycle().isEmpty()) {
            b.append("<h2>The cycle</h2>\n");
            b.append(Legend.HTML);
            svg(b, c);
            b.append("<h3>Each edge, and why it holds</h3>\n<ol class=\"edges\">\n");
            for (Certificate.Edge e : c.cycle()) {
                b.append("<li><span class=\"k-").append(kindClass(e.kind())).append("\">").append(esc(e.from())).append(" \u2192 ").append(esc(e.to()))
                        .append(" : ").append(esc(e.label())).append("</span> ");
                b.append(e.derivedBecause() == null ? "<span class=\"why\">observed: " + esc(observed(e)) + "</span>"
                        : "<span class=\"why derived\">derived: " + esc(e.derivedBecause()) + "</span>");
                b.append("</li>\n");
            }
            b.append("</ol>\n");
        }
        b.append("<h2>Transactions</h2>\n<table class=\"txns\"><thead><tr><th>transaction</th><th>session</th><th>status</th><th>line</th><th>operations</th></tr></thead><tbody>\n");
        for (Certificate.Txn t : c.transactions())
            b.append("<tr><td>").append(esc(t.label())).append("</td><td>").append(esc(t.session())).append("</td><td>").append(esc(t.status()))
                    .append("</td><td>").append(t.line() > 0 ? Integer.toString(t.line()) : "").append("</td><td><code>").append(esc(t.ops())).append("</code></td></tr>\n");
        b.append("</tbody></table>\n");
        sessions(b, c);
        if (!c.cases().isEmpty()) {
            b.append("<h2>Why, case by case</h2>\n<ol class=\"cases\">\n");
            for (String l : c.cases()) b.append("<li>").append(esc(l)).append("</li>\n");
            b.append("</ol>\n");
        }
        if (c.reduction() != null) b.append("<p class=\"reduction\">Reduction: ").append(esc(c.reduction().describe())).append("</p>\n");
        if (!c.subHistory().isEmpty())
            b.append("<p class=\"sub\">A non-serializable sub-history: ").append(esc(String.join(", ", c.subHistory()))).append("</p>\n");
        for (String also : c.alsoFound()) b.append("<p class=\"also\">Also found: ").append(esc(also)).append("</p>\n");
        b.append("<footer>Written by cobra. This page loads nothing: its picture is inline SVG.</footer>\n</body></html>\n");
        return b.toString();
    }

    private static String observed(Certificate.Edge e) {
        return switch (e.kind()) {
            case "wr" -> e.to() + " read " + (e.key() == null ? "a value" : e.key()) + " as " + e.from() + " wrote it";
            case "ww" -> e.from() + "'s write of " + e.key() + " was overwritten by " + e.to() + "'s";
            case "rw" -> e.from() + " read " + e.key() + " before " + e.to() + " overwrote it";
            case "so" -> e.from() + " came before " + e.to() + " in one session";
            case "rt" -> e.from() + " ended before " + e.to() + " began (real time)";
            default -> e.label();
        };
    }

    private static String kindClass(String kind) {
        return switch (kind) {
            case "wr", "ww", "rw", "so", "rt" -> kind;
            default -> "other";
        };
    }

    /** The cycle on a circle: node i at angle 2πi/n, edges as arcs bent outward, labels at their middles. */
    /** Cycles longer than this have their runs of session-order edges folded into one node each. */
    static final int FOLD_ABOVE = 12;

    /**
     * The edges to draw: the cycle's, except that in a long cycle each run of observed session-order edges becomes one
     * node ("first \u2026 last (k in session s)"), so that a cycle through long sessions stays a small circle.
     */
    static List<Certificate.Edge> folded(List<Certificate.Edge> cycle, Map<String, List<String>> members) {
        if (cycle.size() <= FOLD_ABOVE || cycle.stream().allMatch(HtmlReport::foldable)) return cycle;
        int start = 0;
        while (foldable(cycle.get(start))) start++; // begin at an edge that is not folded, so no run wraps around
        List<Certificate.Edge> rotated = new ArrayList<>(cycle.subList(start, cycle.size()));
        rotated.addAll(cycle.subList(0, start));
        Map<String, String> nodeOf = new HashMap<>();
        for (int i = 0; i < rotated.size(); i++) {
            if (!foldable(rotated.get(i))) continue;
            int j = i;
            List<String> run = new ArrayList<>(List.of(rotated.get(i).from()));
            while (j < rotated.size() && foldable(rotated.get(j))) run.add(rotated.get(j++).to());
            String group = run.get(0) + " \u2026 " + run.get(run.size() - 1) + " (" + run.size() + " in session order)";
            for (String t : run) nodeOf.put(t, group);
            members.put(group, run);
            i = j - 1;
        }
        List<Certificate.Edge> out = new ArrayList<>();
        for (Certificate.Edge e : rotated) {
            if (foldable(e)) continue;
            out.add(new Certificate.Edge(nodeOf.getOrDefault(e.from(), e.from()), nodeOf.getOrDefault(e.to(), e.to()), e.kind(), e.key(), e.derivedBecause()));
        }
        return out;
    }

    private static boolean foldable(Certificate.Edge e) { return e.kind().equals("so") && e.derivedBecause() == null; }

    private static void svg(StringBuilder b, Certificate c) {
        Map<String, List<String>> members = new HashMap<>();
        List<Certificate.Edge> shown = folded(c.cycle(), members);
        if (shown.size() < c.cycle().size())
            b.append("<p class=\"note\">").append(c.cycle().size()).append(" edges; each run of session-order edges is drawn as one node (hover it for its transactions).</p>\n");
        List<String> nodes = new ArrayList<>();
        for (Certificate.Edge e : shown) {
            if (!nodes.contains(e.from())) nodes.add(e.from());
            if (!nodes.contains(e.to())) nodes.add(e.to());
        }
        int n = nodes.size();
        double r = Math.max(140, n * 34.0);
        double w = 2 * r + 320, h = 2 * r + 160, cx = w / 2, cy = h / 2;
        Map<String, double[]> at = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            double a = -Math.PI / 2 + 2 * Math.PI * i / n;
            at.put(nodes.get(i), new double[] {cx + r * Math.cos(a), cy + r * Math.sin(a)});
        }
        b.append(String.format(Locale.ROOT, "<svg class=\"cycle\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"%s\">%n",
                w, h, Math.min(w, 1100), Math.min(w, 1100) * h / w, esc("the cycle of " + c.kind().displayName())));
        b.append("<defs>");
        for (String k : List.of("wr", "ww", "rw", "so", "rt", "other"))
            b.append("<marker id=\"arrow-").append(k).append("\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">")
                    .append("<path d=\"M0,0 L10,5 L0,10 z\" class=\"head-").append(k).append("\"/></marker>");
        b.append("</defs>\n");
        for (Certificate.Edge e : shown) {
            double[] p = at.get(e.from()), q = at.get(e.to());
            double mx = (p[0] + q[0]) / 2, my = (p[1] + q[1]) / 2;
            // bend outward from the centre, so an edge and its reverse do not overlap
            double ox = mx - cx, oy = my - cy, len = Math.max(1, Math.hypot(ox, oy));
            double bend = Math.min(60, Math.hypot(q[0] - p[0], q[1] - p[1]) * 0.25);
            double kx = mx + ox / len * bend, ky = my + oy / len * bend;
            if (Math.hypot(ox, oy) < 1) { kx = mx + (q[1] - p[1]) * 0.25; ky = my - (q[0] - p[0]) * 0.25; }
            // stop short of the node's box
            double[] end = shorten(kx, ky, q[0], q[1], 22), start = shorten(kx, ky, p[0], p[1], 22);
            String k = kindClass(e.kind());
            String why = e.derivedBecause() != null ? "derived: " + e.derivedBecause() : "observed: " + observed(e);
            b.append("<g class=\"edge k-").append(k).append(e.derivedBecause() != null ? " derived" : "").append("\"><title>").append(esc(e.label() + " \u2014 " + why)).append("</title>");
            b.append(String.format(Locale.ROOT, "<path d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" marker-end=\"url(#arrow-%s)\"/>", start[0], start[1], kx, ky, end[0], end[1], k));
            double lx = 0.25 * p[0] + 0.5 * kx + 0.25 * q[0], ly = 0.25 * p[1] + 0.5 * ky + 0.25 * q[1];
            // the label beside its arc, on the side away from the centre, so that the labels of opposite arcs never overlap
            String anchor = lx < cx - 1 ? "end" : lx > cx + 1 ? "start" : "middle";
            double shift = anchor.equals("end") ? -6 : anchor.equals("start") ? 6 : 0;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"elabel\" text-anchor=\"%s\">%s</text></g>%n", lx + shift, ly + 4, anchor, esc(e.label())));
        }
        Map<String, Certificate.Txn> txns = new HashMap<>();
        for (Certificate.Txn t : c.transactions()) txns.put(t.label(), t);
        for (String node : nodes) {
            double[] p = at.get(node);
            Certificate.Txn t = txns.get(node);
            String tip = members.containsKey(node) ? String.join(" \u2192 ", members.get(node))
                    : t == null ? node : node + " (session " + t.session() + ", " + t.status() + (t.line() > 0 ? ", line " + t.line() : "") + "): " + t.ops();
            int chars = Math.min(44, node.length());
            double bw = Math.max(44, chars * 7.4 + 16);
            b.append("<g class=\"node\"><title>").append(esc(tip)).append("</title>");
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"26\" rx=\"5\"/>", p[0] - bw / 2, p[1] - 13, bw));
            String text = node.length() > 44 ? node.substring(0, 43) + "\u2026" : node;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"nlabel\">%s</text></g>%n", p[0], p[1] + 4, esc(text)));
        }
        b.append("</svg>\n");
    }

    private static double[] shorten(double fx, double fy, double tx, double ty, double by) {
        double dx = tx - fx, dy = ty - fy, len = Math.max(1, Math.hypot(dx, dy));
        return new double[] {tx - dx / len * by, ty - dy / len * by};
    }

    /**
     * One lane per session. Where the history recorded times, a timeline: each transaction a bar from its start to its
     * end, and each real-time edge of the cycle an arrow from the end of one to the start of the next; otherwise the
     * transactions in file order.
     */
    private static void sessions(StringBuilder b, Certificate c) {
        if (c.transactions().stream().anyMatch(Certificate.Txn::timed)) timeline(b, c);
        else lanes(b, c);
    }

    private static void timeline(StringBuilder b, Certificate c) {
        Map<String, List<Certificate.Txn>> lanes = new LinkedHashMap<>();
        for (Certificate.Txn t : c.transactions()) lanes.computeIfAbsent(t.session(), s -> new ArrayList<>()).add(t);
        long t0 = Long.MAX_VALUE, t1 = Long.MIN_VALUE;
        for (Certificate.Txn t : c.transactions()) if (t.timed()) { t0 = Math.min(t0, t.start()); t1 = Math.max(t1, t.end()); }
        double span = Math.max(1, t1 - t0), left = 150, width = 820, laneH = 34;
        double h = lanes.size() * laneH + 40;
        b.append("<h2>Sessions, in real time</h2>\n<p class=\"note\">Each transaction from its start to its end, one lane per session; the span shown is ")
                .append(esc(duration(span))).append(". Real-time edges of the cycle (strict serializability) are drawn in orange.</p>\n");
        b.append(String.format(Locale.ROOT, "<svg class=\"timeline\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\">%n", left + width + 170, h, left + width + 170, h));
        b.append("<defs><marker id=\"arrow-rt-t\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head-rt\"/></marker></defs>\n");
        Map<String, double[]> bars = new HashMap<>();
        int lane = 0;
        for (Map.Entry<String, List<Certificate.Txn>> e : lanes.entrySet()) {
            double y = 20 + lane++ * laneH;
            b.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%.1f\" class=\"session\">%s</text>%n", y + 15, esc(shortened(e.getKey(), 20))));
            for (Certificate.Txn t : e.getValue()) {
                if (!t.timed()) continue;
                double x0 = left + (t.start() - t0) / span * width, x1 = Math.max(x0 + 3, left + (t.end() - t0) / span * width);
                bars.put(t.label(), new double[] {x0, x1, y});
                b.append("<g class=\"bar\"><title>").append(esc(t.label() + ": " + t.ops())).append("</title>");
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\" rx=\"3\"/>", x0, y, x1 - x0));
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"blabel\">%s</text></g>%n", x0 + 3, y + 14, esc(shortened(t.label(), 24))));
            }
        }
        for (Certificate.Edge e : c.cycle()) {
            if (!e.kind().equals("rt")) continue;
            double[] from = bars.get(e.from()), to = bars.get(e.to());
            if (from == null || to == null) continue;
            b.append("<g class=\"edge k-rt\"><title>").append(esc(e.from() + " ended before " + e.to() + " began")).append("</title>");
            b.append(String.format(Locale.ROOT, "<path d=\"M%.1f,%.1f L%.1f,%.1f\" marker-end=\"url(#arrow-rt-t)\"/></g>%n", from[1], from[2] + 10, to[0], to[2] + 10));
        }
        b.append("</svg>\n");
        List<String> untimed = c.transactions().stream().filter(t -> !t.timed()).map(Certificate.Txn::label).toList();
        if (!untimed.isEmpty()) b.append("<p class=\"note\">Without recorded times: ").append(esc(String.join(", ", untimed))).append("</p>\n");
    }

    private static String duration(double nanos) {
        if (nanos >= 1e9) return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
        if (nanos >= 1e6) return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        return String.format(Locale.ROOT, "%.0f \u00b5s", nanos / 1e3);
    }

    private static String shortened(String s, int max) { return s.length() <= max ? s : s.substring(0, max - 1) + "\u2026"; }

    /** One lane per session, the certificate's transactions in file order (the history recorded no times). */
    private static void lanes(StringBuilder b, Certificate c) {
        Map<String, List<Certificate.Txn>> lanes = new LinkedHashMap<>();
        for (Certificate.Txn t : c.transactions()) lanes.computeIfAbsent(t.session(), s -> new ArrayList<>()).add(t);
        for (List<Certificate.Txn> l : lanes.values()) l.sort((x, y) -> Integer.compare(x.line(), y.line()));
        b.append("<h2>Sessions</h2>\n<p class=\"note\">One lane per session, in the order of the history file (the history recorded no start and end times).");
        boolean rt = c.cycle().stream().anyMatch(e -> e.kind().equals("rt"));
        if (rt) b.append(" Real-time edges of the cycle are marked <span class=\"k-rt\">rt</span>.");
        b.append("</p>\n<div class=\"lanes\">\n");
        for (Map.Entry<String, List<Certificate.Txn>> lane : lanes.entrySet()) {
            b.append("<div class=\"lane\"><span class=\"session\">").append(esc(lane.getKey())).append("</span>");
            for (Certificate.Txn t : lane.getValue()) {
                boolean inRt = c.cycle().stream().anyMatch(e -> e.kind().equals("rt") && (e.from().equals(t.label()) || e.to().equals(t.label())));
                b.append("<span class=\"t").append(inRt ? " rt" : "").append("\" title=\"").append(esc(t.ops())).append("\">").append(esc(t.label())).append("</span>");
            }
            b.append("</div>\n");
        }
        b.append("</div>\n");
    }

    /**
     * The page for a verdict without a violation: accepted (what was checked, and that no violation exists) or unknown
     * (why no verdict was reached). A reject has its certificate: {@link #render(Certificate, String, IsolationLevel, IsolationLevel)}.
     */
    public static String renderNoViolation(Verdict v, String source, IsolationLevel level, int transactions) {
        boolean accepted = v.outcome() == Verdict.Outcome.ACCEPT;
        String heading = accepted ? TextReport.satisfies(level).substring(0, 1).toUpperCase(Locale.ROOT) + TextReport.satisfies(level).substring(1)
                : "Unknown: no verdict";
        StringBuilder b = new StringBuilder(2048);
        head(b, "cobra: " + heading + ": " + source, CSS + "h1.ok { color: #1b5e20; } h1.unknown { color: #8a6d00; }\n");
        b.append("<h1 class=\"").append(accepted ? "ok" : "unknown").append("\">").append(esc(heading)).append("</h1>\n");
        if (accepted)
            b.append("<p class=\"meaning\">").append(String.format(Locale.ROOT, "%,d", transactions)).append(transactions == 1 ? " transaction checked at " : " transactions checked at ")
                    .append(esc(level.longName())).append(": no violation exists, so there is no certificate to show.</p>\n");
        else
            b.append("<p class=\"meaning\">").append(String.format(Locale.ROOT, "%,d", transactions)).append(transactions == 1 ? " transaction, checked at " : " transactions, checked at ")
                    .append(esc(level.longName())).append(", reached no verdict: ").append(esc(v.unknownReason())).append("</p>\n");
        for (String n : v.notes()) b.append("<p class=\"note\">").append(esc(n)).append("</p>\n");
        b.append("<p class=\"source\">History: ").append(esc(source)).append("</p>\n");
        b.append("<footer>Written by cobra. This page loads nothing.</footer>\n</body></html>\n");
        return b.toString();
    }

    /** The collector's default fence key. */
    static final String FENCE_KEY = "EPOCH";

    static final String FENCE_NOTE = "EPOCH is the collector's fence key: every session reads and overwrites it before its first "
            + "transaction and every few commits, to order sessions' work into epochs. A violation on it is the database's like "
            + "any other: it lost or reordered a fence transaction, which is an ordinary read-modify-write transaction.";

    /** Whether the certificate involves the fence key (an edge on it, or its summary naming it). */
    static boolean onFenceKey(Certificate c) {
        for (Certificate.Edge e : c.cycle()) if (e.label().contains("(" + FENCE_KEY + ")")) return true;
        return c.summary().contains("key " + FENCE_KEY + " ") || c.summary().contains("(" + FENCE_KEY + ")");
    }

    /** The mark in the head of every page cobra writes: how a command knows a page it may replace (its own). */
    public static final String GENERATOR = "<meta name=\"generator\" content=\"cobra\">";

    /** The start of a self-contained page, up to its opened body: the title (escaped here) and the page's style sheet. */
    public static void head(StringBuilder b, String title, String css) {
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">").append(GENERATOR).append("\n<title>").append(esc(title)).append("</title>\n<style>\n")
                .append(css).append("</style>\n</head><body>\n");
    }

    /** The anomaly's class, in words: Adya's phenomenon, or that it is a class of cobra's own. */
    static String adyaLine(AnomalyKind k) {
        return k.isAdyaClass() ? "Adya's class: " + k.adyaClass() + "." : "Class: " + k.adyaClass() + " (Adya's taxonomy has none).";
    }

    /** HTML-escapes text for element content and attribute values. */
    public static String esc(String s) {
        if (s == null) return "";
        StringBuilder o = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '&' -> o.append("&amp;");
                case '<' -> o.append("&lt;");
                case '>' -> o.append("&gt;");
                case '"' -> o.append("&quot;");
                case '\'' -> o.append("&#39;");
                default -> o.append(ch);
            }
        }
        return o.toString();
    }

    private static final class Legend {
        static final String HTML = "<p class=\"legend\"><span class=\"k-wr\">wr</span> read from &nbsp; <span class=\"k-ww\">ww</span> overwrote &nbsp; "
                + "<span class=\"k-rw\">rw</span> read before another overwrote (anti-dependency) &nbsp; <span class=\"k-so\">so</span> session order &nbsp; "
                + "<span class=\"k-rt\">rt</span> real time &nbsp; dashed: derived, not observed (hover an edge for why)</p>\n";
    }

    private static final String CSS = """
            body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1150px; padding: 0 1em; color: #222; }
            h1 { color: #a40000; font-size: 1.5em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
            .meaning { font-size: 1.1em; } .summary, .source, .note, .adya { color: #555; }
            svg.cycle { display: block; margin: 1em 0; max-width: 100%; height: auto; background: #fcfcfc; border: 1px solid #eee; }
            .node rect { fill: #fff; stroke: #333; stroke-width: 1.2; } .nlabel { font: 12px monospace; text-anchor: middle; }
            .edge path { fill: none; stroke-width: 2; } .edge.derived path { stroke-dasharray: 6 4; }
            .elabel { font: 12px monospace; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
            .k-wr path, .head-wr { stroke: #1f5fbf; fill: #1f5fbf; } .k-ww path, .head-ww { stroke: #7a3db8; fill: #7a3db8; }
            .k-rw path, .head-rw { stroke: #c62828; fill: #c62828; } .k-so path, .head-so { stroke: #777; fill: #777; }
            .k-rt path, .head-rt { stroke: #e07b00; fill: #e07b00; } .k-other path, .head-other { stroke: #333; fill: #333; }
            .edge path[marker-end] { fill: none; }
            span.k-wr { color: #1f5fbf; } span.k-ww { color: #7a3db8; } span.k-rw { color: #c62828; } span.k-so { color: #777; } span.k-rt { color: #e07b00; }
            .legend { font-size: .9em; color: #444; } .why { color: #555; } .why.derived { font-style: italic; }
            table.txns { border-collapse: collapse; width: 100%; } .txns th, .txns td { border: 1px solid #ddd; padding: .3em .5em; text-align: left; vertical-align: top; }
            .txns code { white-space: pre-wrap; word-break: break-all; }
            .lanes .lane { margin: .3em 0; } .lane .session { display: inline-block; min-width: 9em; font-weight: 600; }
            .lane .t { display: inline-block; border: 1px solid #999; border-radius: 4px; padding: 0 .4em; margin-right: .5em; font-family: monospace; }
            .lane .t.rt { border-color: #e07b00; background: #fff3e0; }
            svg.timeline { display: block; max-width: 100%; height: auto; } .bar rect { fill: #e8eef9; stroke: #1f5fbf; }
            .blabel { font: 11px monospace; } text.session { font: 600 12px system-ui, sans-serif; }
            .timeline .edge path { stroke: #e07b00; stroke-width: 2; fill: none; }
            footer { margin-top: 3em; color: #888; font-size: .85em; }
            """;
}
