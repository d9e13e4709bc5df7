package org.cobraverify.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.report.HtmlReport;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Verdict;

/**
 * A small local web page of the verdict stream ({@code cobra verdicts --serve}, {@code cobra demo --serve}), served by
 * the JDK's HTTP server:
 * <ul>
 *   <li>{@code /}: the page: rounds as they arrive (verdict, transactions, lag), charts over time of verdict lag,
 *       retained transactions and throughput, and the violations, each linking to its certificate's page (the anomaly's
 *       meaning on hover);</li>
 *   <li>{@code /api/verdicts?from=N}: the verdicts from the N-th on, as JSON (the objects of {@code verdicts --json});</li>
 *   <li>{@code /violation?round=R[&i=K]}: the certificate of round R's violation (its K-th further one) as the page of {@code verify --html}.</li>
 * </ul>
 * It binds to loopback unless told otherwise. The page builds everything it shows from the API with {@code textContent},
 * never as markup, so keys and values (user data) are shown as text. It keeps the last {@link #KEPT} verdicts (the page
 * of a long run shows those; the API says from which one it starts).
 */
final class VerdictServer implements AutoCloseable {
    /** Verdicts kept for the page: a bound, so that a server that runs for months does not grow. */
    static final int KEPT = 20_000;

    private final HttpServer http;
    private final Deque<Verdict> kept = new ArrayDeque<>();
    private long dropped;

    private VerdictServer(HttpServer http) { this.http = http; }

    /** Starts serving on {@code bind}:{@code port} (port 0: a free one). */
    static VerdictServer start(String bind, int port) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), port), 0);
        VerdictServer v = new VerdictServer(s);
        s.createContext("/", v::page);
        s.createContext("/api/verdicts", v::api);
        s.createContext("/violation", v::violation);
        s.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "cobra-web");
            t.setDaemon(true);
            return t;
        }));
        s.start();
        return v;
    }

    int port() { return http.getAddress().getPort(); }

    String url() { return "http://" + http.getAddress().getAddress().getHostAddress() + ":" + port() + "/"; }

    synchronized void add(Verdict v) {
        kept.addLast(v);
        while (kept.size() > KEPT) {
            kept.removeFirst();
            dropped++;
        }
    }

    private synchronized List<Verdict> from(long n) {
        List<Verdict> out = new ArrayList<>();
        long i = dropped;
        for (Verdict v : kept) if (i++ >= n) out.add(v);
        return out;
    }

    private synchronized Verdict round(long r) {
        for (Verdict v : kept) if (v.getRound() == r) return v;
        return null;
    }

    private void page(HttpExchange ex) throws IOException {
        if (!ex.getRequestURI().getPath().equals("/")) { send(ex, 404, "text/plain", "not found"); return; }
        send(ex, 200, "text/html; charset=utf-8", PAGE);
    }

    private void api(HttpExchange ex) throws IOException {
        long from = Math.max(0, longParam(ex.getRequestURI(), "from"));
        List<Verdict> vs = from(from);
        long first;
        synchronized (this) { first = Math.max(from, dropped); }
        StringBuilder b = new StringBuilder("{\"from\":").append(first).append(",\"verdicts\":[");
        for (int i = 0; i < vs.size(); i++) b.append(i == 0 ? "" : ",").append(VerdictLines.json(vs.get(i)));
        send(ex, 200, "application/json", b.append("]}").toString());
    }

    private void violation(HttpExchange ex) throws IOException {
        Verdict v = round(longParam(ex.getRequestURI(), "round"));
        long i = Math.max(0, longParam(ex.getRequestURI(), "i")); // the round's i-th new violation (0: its certificate, then moreCertificates)
        if (v == null || v.getCertificate() == null || i > v.getMoreCertificates().size()) { send(ex, 404, "text/plain", "no certificate for that round"); return; }
        org.cobraverify.schemas.Certificate c = i == 0 ? v.getCertificate() : v.getMoreCertificates().get((int) i - 1);
        send(ex, 200, "text/html; charset=utf-8", HtmlReport.render(certificate(c), "cobra.verdicts, round " + v.getRound()
                + (i == 0 ? "" : ", violation " + (i + 1))));
    }

    /** A certificate as a verdict carries it, for the page of {@code verify --html} (statuses and lines are not carried). */
    static Certificate certificate(org.cobraverify.schemas.Certificate c) {
        AnomalyKind named = AnomalyKind.named(c.getAnomaly()), kind = named == null ? AnomalyKind.UNSERIALIZABLE : named;
        List<Certificate.Edge> edges = new ArrayList<>();
        for (CycleEdge e : c.getCycle()) edges.add(new Certificate.Edge(e.getFrom(), e.getTo(), e.getKind(), e.getKey(), e.getWhy()));
        List<Certificate.Txn> txns = new ArrayList<>();
        for (CertTxn t : c.getTransactions()) txns.add(new Certificate.Txn(t.getId(), t.getSession(), "committed", t.getOps(), 0));
        return new Certificate(kind, c.getSummary(), edges, txns, List.of(), List.of(), List.of());
    }

    private static long longParam(URI u, String name) {
        String q = u.getRawQuery();
        if (q == null) return -1;
        for (String kv : q.split("&"))
            if (kv.startsWith(name + "=")) {
                try {
                    return Long.parseLong(kv.substring(name.length() + 1));
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        return -1;
    }

    private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", type);
        ex.getResponseHeaders().add("Cache-Control", "no-store");
        ex.getResponseHeaders().add("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:");
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream o = ex.getResponseBody()) { o.write(b); }
    }

    @Override
    public void close() { http.stop(0); }

    /** The live page: polls the API once a second and draws with DOM text nodes and SVG elements, nothing as markup. */
    static final String PAGE = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>cobra: verdicts</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
            h1 { font-size: 1.4em; } #status { color: #555; }
            .charts { display: flex; gap: 1em; flex-wrap: wrap; } .chart { border: 1px solid #ddd; padding: .5em; }
            .chart h3 { margin: 0 0 .3em 0; font-size: 1em; } svg { background: #fcfcfc; }
            polyline { fill: none; stroke: #1f5fbf; stroke-width: 1.8; } line.axis { stroke: #888; stroke-width: 1; }
            text.tick { font: 11px system-ui, sans-serif; fill: #555; } text.label { font: 11px system-ui, sans-serif; fill: #333; }
            table { border-collapse: collapse; width: 100%; margin-top: 1em; } td, th { border-bottom: 1px solid #eee; padding: .2em .5em; text-align: right; }
            td.r, th.r { text-align: left; } .accept { color: #1b7f1b; } .reject { color: #c62828; font-weight: 600; } .unknown { color: #b26a00; }
            #violations li { margin: .2em 0; }
            </style></head><body>
            <h1>cobra: the verdict stream</h1>
            <p id="status">waiting for verdicts</p>
            <div class="charts">
              <div class="chart"><h3>verdict lag (s)</h3><svg id="lag" width="380" height="180"></svg></div>
              <div class="chart"><h3>retained transactions</h3><svg id="retained" width="380" height="180"></svg></div>
              <div class="chart"><h3>throughput (txn/s checked)</h3><svg id="throughput" width="380" height="180"></svg></div>
            </div>
            <h2>Violations</h2><ul id="violations"><li id="none">none so far</li></ul>
            <h2>Rounds</h2>
            <table><thead><tr><th>round</th><th class="r">verdict</th><th>transactions</th><th>checked</th><th>lag (s)</th><th>retained</th><th class="r">reason</th></tr></thead>
            <tbody id="rounds"></tbody></table>
            <script>
            const all = []; let next = 0;
            const NS = 'http://www.w3.org/2000/svg';
            function cell(tr, text, cls) { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); }
            // a line chart with its axes: time since the first verdict across, the value up, each with three ticks
            function text(svg, x, y, s, anchor, cls) {
              const t = document.createElementNS(NS, 'text'); t.setAttribute('x', x); t.setAttribute('y', y); t.textContent = s;
              if (anchor) t.setAttribute('text-anchor', anchor); t.setAttribute('class', cls || 'tick'); svg.appendChild(t);
            }
            function fmt(v) { return Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(v < 10 ? 2 : 1); }
            function draw(id, points) {
              const svg = document.getElementById(id); while (svg.firstChild) svg.removeChild(svg.firstChild);
              if (points.length < 1) return;
              const w = 380, h = 180, l = 52, r = 12, t = 10, b = 34;
              const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
              const x0 = Math.min(...xs), x1 = Math.max(x0 + 1e-9, ...xs), y1 = Math.max(1e-9, ...ys);
              const X = x => l + (x - x0) / (x1 - x0) * (w - l - r), Y = y => h - b - y / y1 * (h - t - b);
              for (const [ax, ay, bx, by] of [[l, h - b, w - r, h - b], [l, t, l, h - b]]) {
                const a = document.createElementNS(NS, 'line'); a.setAttribute('x1', ax); a.setAttribute('y1', ay);
                a.setAttribute('x2', bx); a.setAttribute('y2', by); a.setAttribute('class', 'axis'); svg.appendChild(a);
              }
              for (const f of [0, 0.5, 1]) {
                text(svg, l - 4, Y(f * y1) + 4, fmt(f * y1), 'end');
                text(svg, X(x0 + f * (x1 - x0)), h - b + 14, fmt(x0 + f * (x1 - x0)), f === 0 ? 'start' : f === 1 ? 'end' : 'middle');
              }
              text(svg, (l + w - r) / 2, h - 4, 'seconds since the first verdict', 'middle', 'label');
              const line = document.createElementNS(NS, 'polyline');
              line.setAttribute('points', points.map(p => X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1)).join(' '));
              svg.appendChild(line);
            }
            // a verdict's moment: seconds since the first verdict was published (its round number where a verdict has no time)
            function at(v) { return all[0].verifiedAt && v.verifiedAt ? (v.verifiedAt - all[0].verifiedAt) / 1000 : v.round; }
            function render(vs) {
              const body = document.getElementById('rounds');
              for (const v of vs) {
                const tr = document.createElement('tr');
                cell(tr, v.round); cell(tr, v.verdict, 'r ' + v.verdict); cell(tr, v.transactions); cell(tr, v.checked);
                cell(tr, v.lagSeconds === undefined ? '' : v.lagSeconds.toFixed(1)); cell(tr, v.retained); cell(tr, v.reason, 'r');
                body.appendChild(tr);
                if (v.newViolations > 0 && v.certificate) {
                  const none = document.getElementById('none'); if (none) none.remove();
                  const li = document.createElement('li'); const a = document.createElement('a');
                  a.href = '/violation?round=' + encodeURIComponent(v.round);
                  a.textContent = 'round ' + v.round + ': ' + v.certificate.anomaly + ' \\u2014 ' + v.certificate.summary;
                  if (v.certificate.meaning) a.title = v.certificate.meaning;
                  li.appendChild(a); document.getElementById('violations').appendChild(li);
                  // every further violation of the round, each linked to its own certificate
                  (v.moreCertificates || []).forEach((c, k) => {
                    const li2 = document.createElement('li'); const a2 = document.createElement('a');
                    a2.href = '/violation?round=' + encodeURIComponent(v.round) + '&i=' + (k + 1);
                    a2.textContent = 'round ' + v.round + ', violation ' + (k + 2) + ': ' + c.anomaly + ' \\u2014 ' + c.summary;
                    if (c.meaning) a2.title = c.meaning;
                    li2.appendChild(a2); document.getElementById('violations').appendChild(li2);
                  });
                }
              }
              draw('lag', all.filter(v => v.lagSeconds !== undefined).map(v => [at(v), v.lagSeconds]));
              draw('retained', all.filter(v => v.retained >= 0).map(v => [at(v), v.retained]));
              // transactions checked per second, over at least the last second before each verdict (rounds decided together
              // share a moment, and a rate between them would mean nothing)
              const tp = []; let j = 0;
              for (let i = 1; i < all.length; i++) {
                const b = all[i]; if (!b.verifiedAt) continue;
                while (j + 1 < i && all[j + 1].verifiedAt && all[j + 1].verifiedAt <= b.verifiedAt - 1000) j++;
                // (before a second has passed since the first verdict, the rate since the first one, over a quarter second at least)
                const a = all[j];
                if (a.verifiedAt && b.verifiedAt - a.verifiedAt >= 250) tp.push([at(b), (b.checked - a.checked) / ((b.verifiedAt - a.verifiedAt) / 1000)]);
              }
              draw('throughput', tp);
              const last = all[all.length - 1];
              document.getElementById('status').textContent = all.length + ' rounds, checked at ' + last.isolation + '; the last, round ' + last.round
                + ', says ' + last.verdict + ' and covers ' + last.checked + ' transactions';
            }
            async function poll() {
              try {
                const r = await fetch('/api/verdicts?from=' + next, {cache: 'no-store'});
                const j = await r.json();
                if (j.verdicts.length > 0) { next = j.from + j.verdicts.length; all.push(...j.verdicts); render(j.verdicts); }
              } catch (e) { document.getElementById('status').textContent = 'the server went away: ' + e; }
              setTimeout(poll, 1000);
            }
            poll();
            </script></body></html>
            """;
}
