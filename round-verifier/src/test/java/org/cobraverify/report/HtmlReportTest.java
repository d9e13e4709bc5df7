package org.cobraverify.report;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.junit.jupiter.api.Test;

class HtmlReportTest {
    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
        return n;
    }

    /** a0 -so-> ... -so-> a9 -rw(k)-> b0 -so-> ... -so-> b9 -rw(j)-> a0: twenty edges, two of them not session order. */
    static Certificate longCycle() {
        List<Certificate.Edge> cycle = new ArrayList<>();
        List<Certificate.Txn> txns = new ArrayList<>();
        for (String s : List.of("a", "b")) {
            for (int i = 0; i < 9; i++) cycle.add(new Certificate.Edge(s + i, s + (i + 1), "so", null, null));
            cycle.add(new Certificate.Edge(s + 9, s.equals("a") ? "b0" : "a0", "rw", s.equals("a") ? "k" : "j", null));
            for (int i = 0; i < 10; i++) txns.add(new Certificate.Txn(s + i, s, "committed", "r(x)=1", i + 1));
        }
        return new Certificate(AnomalyKind.G2, "a long cycle", cycle, txns, List.of(), List.of(), List.of());
    }

    @Test
    void aLongCycleThroughSessionsIsFoldedIntoOneNodePerRunOfSessionOrder() {
        Map<String, List<String>> members = new HashMap<>();
        List<Certificate.Edge> shown = HtmlReport.folded(longCycle().cycle(), members);
        assertEquals(2, shown.size(), "only the two rw edges are drawn: " + shown);
        assertEquals(2, members.size());
        for (List<String> run : members.values()) assertEquals(10, run.size(), "each run holds its session's ten transactions");
        String page = HtmlReport.render(longCycle(), "long.jsonl");
        String svg = page.substring(page.indexOf("<svg"), page.indexOf("</svg>"));
        assertEquals(2, count(svg, "class=\"node\""), "two nodes drawn");
        assertEquals(2, count(svg, "\">rw("), "both rw edges labelled");
        assertTrue(svg.contains("a0 \u2192 a1"), "a folded node lists its transactions on hover");
        assertEquals(20, count(page.substring(page.indexOf("<ol class=\"edges\">")), "<li>"), "every edge is still listed with its reason");
    }

    @Test
    void aShortCycleIsDrawnWhole() {
        List<Certificate.Edge> cycle = List.of(new Certificate.Edge("t1", "t2", "so", null, null), new Certificate.Edge("t2", "t1", "ww", "x", "because"));
        assertEquals(cycle, HtmlReport.folded(cycle, new HashMap<>()));
    }

    @Test
    void everyStringFromTheHistoryIsEscaped() {
        String evil = "<script>alert('x')</script>&\"";
        Certificate c = new Certificate(AnomalyKind.WRITE_SKEW, evil, List.of(new Certificate.Edge(evil, "t2", "rw", evil, evil), new Certificate.Edge("t2", evil, "rw", "y", null)),
                List.of(new Certificate.Txn(evil, evil, "committed", evil, 3), new Certificate.Txn("t2", "s", "committed", "w(y)=1", 4)), List.of(evil), List.of(evil), List.of(evil));
        String page = HtmlReport.render(c, evil);
        assertFalse(page.contains("<script"), "no markup from the history");
        assertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"));
    }
}
