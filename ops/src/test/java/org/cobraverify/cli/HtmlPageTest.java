package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code verify --html}: one self-contained page per rejected history, with the cycle drawn and user data escaped. */
class HtmlPageTest {
    @TempDir
    Path dir;

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
        return n;
    }

    /** Every src=, href= and url( of the page: none may reach the network. */
    static void loadsNothing(String page) {
        Matcher m = Pattern.compile("(?i)(src\\s*=\\s*[\"']?[^\"'\\s>]*|href\\s*=\\s*[\"']?[^\"'\\s>]*|url\\([^)]*\\))").matcher(page);
        while (m.find()) assertFalse(m.group().toLowerCase().matches(".*(https?:|//).*"), "loads from the network: " + m.group());
        assertFalse(page.toLowerCase().contains("<script src"), "no external script");
        assertFalse(page.toLowerCase().contains("<link"), "no linked stylesheet");
    }

    @Test
    void theOnCallWriteSkewIsDrawnWithBothTransactionsAndBothRwEdges() throws Exception {
        Path page = dir.resolve("c.html");
        var r = VerifyCommandTest.cobra("verify", "--html", page.toString(), Path.of("..", "examples", "on-call.jsonl").toString());
        assertEquals(1, r.exit(), r.err());
        String html = Files.readString(page);
        int svgStart = html.indexOf("<svg"), svgEnd = html.indexOf("</svg>");
        assertTrue(svgStart >= 0 && svgEnd > svgStart, "an inline svg");
        String svg = html.substring(svgStart, svgEnd);
        assertTrue(svg.contains(">alice-leaves<") && svg.contains(">bob-leaves<"), "both transactions are nodes of the picture");
        assertEquals(2, count(svg, "\">rw("), "both rw edges are labelled: " + svg);
        assertTrue(html.contains("write skew"), "the anomaly is named");
        assertTrue(html.contains("line") && html.contains("<td>3</td>") && html.contains("<td>4</td>"), "each transaction's file line");
        loadsNothing(html);
    }

    @Test
    void keysAndValuesFromTheHistoryAreShownAsTextAndRunNothing() throws Exception {
        String evil = "<img src=x onerror=alert(1)>";
        Path history = dir.resolve("evil.jsonl");
        String k = evil.replace("\"", "\\\"");
        Files.writeString(history, String.join("\n",
                "{\"format\": \"cobra-jsonl\", \"version\": 1}",
                "{\"id\": \"setup\", \"session\": \"s0\", \"status\": \"committed\", \"ops\": [[\"w\", \"" + k + "\", \"1\"], [\"w\", \"y\", \"1\"]]}",
                "{\"id\": \"<b>t1</b>\", \"session\": \"s1\", \"status\": \"committed\", \"ops\": [[\"r\", \"" + k + "\", \"1\"], [\"r\", \"y\", \"1\"], [\"w\", \"" + k + "\", \"2\"]]}",
                "{\"id\": \"t2\", \"session\": \"<script>alert(2)</script>\", \"status\": \"committed\", \"ops\": [[\"r\", \"" + k + "\", \"1\"], [\"r\", \"y\", \"1\"], [\"w\", \"y\", \"2\"]]}",
                "{\"id\": \"check\", \"session\": \"s0\", \"status\": \"committed\", \"ops\": [[\"r\", \"" + k + "\", \"2\"], [\"r\", \"y\", \"2\"]]}") + "\n");
        Path page = dir.resolve("evil.html");
        var r = VerifyCommandTest.cobra("verify", "--html", page.toString(), history.toString());
        assertEquals(1, r.exit(), r.err() + r.out());
        String html = Files.readString(page);
        assertFalse(html.contains("<img"), "the key is not markup");
        assertFalse(html.contains("<script"), "the session is not markup");
        assertFalse(html.contains("<b>t1"), "the id is not markup");
        assertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "the key is shown as text");
        assertTrue(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), "the session is shown as text");
        loadsNothing(html);
    }

    @Test
    void aRealTimeViolationIsDrawnOnATimelineWithItsRtEdge() throws Exception {
        Path history = dir.resolve("stale.jsonl");
        Files.writeString(history, String.join("\n",
                "{\"format\": \"cobra-jsonl\", \"version\": 1}",
                "{\"id\": \"init\", \"session\": \"c\", \"status\": \"committed\", \"start\": 1000, \"end\": 2000, \"ops\": [[\"w\", \"x\", \"0\"]]}",
                "{\"id\": \"write\", \"session\": \"a\", \"status\": \"committed\", \"start\": 3000000, \"end\": 4000000, \"ops\": [[\"r\", \"x\", \"0\"], [\"w\", \"x\", \"1\"]]}",
                "{\"id\": \"late-read\", \"session\": \"b\", \"status\": \"committed\", \"start\": 9000000000, \"end\": 9001000000, \"ops\": [[\"r\", \"x\", \"0\"]]}") + "\n");
        Path page = dir.resolve("stale.html");
        var r = VerifyCommandTest.cobra("verify", "--strict", "--html", page.toString(), history.toString());
        assertEquals(1, r.exit(), r.err() + r.out());
        String html = Files.readString(page);
        assertTrue(html.contains("Sessions, in real time"), "a timeline: the history has times");
        String timeline = html.substring(html.indexOf("<svg class=\"timeline\""), html.indexOf("</svg>", html.indexOf("<svg class=\"timeline\"")));
        assertTrue(timeline.contains(">write<") && timeline.contains(">late-read<"), "the cycle's transactions are bars: " + timeline);
        assertTrue(timeline.contains("class=\"edge k-rt\""), "the real-time edge is drawn on the timeline: " + timeline);
        loadsNothing(html);
    }

    @Test
    void anAcceptedHistoryWritesAPageThatSaysSo() throws Exception {
        Path page = dir.resolve("ok.html");
        Path history = dir.resolve("ok.jsonl");
        Files.writeString(history, "{\"id\":\"a\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}\n");
        var r = VerifyCommandTest.cobra("verify", "--html", page.toString(), history.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("the page is " + page.toAbsolutePath()), r.err());
        String html = Files.readString(page);
        assertTrue(html.contains("<h1 class=\"ok\">Serializable</h1>") && html.contains("1 transaction checked at serializable: no violation"), html);
        assertFalse(html.contains("<svg"), "no cycle to draw");
    }

    @Test
    void aViolationOnTheFenceKeyIsExplainedInWords() throws Exception {
        Path history = dir.resolve("fences.jsonl");
        Files.writeString(history, "{\"id\":\"f1\",\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"EPOCH\",null],[\"w\",\"EPOCH\",\"a\"]]}\n"
                + "{\"id\":\"f2\",\"session\":2,\"status\":\"committed\",\"ops\":[[\"r\",\"EPOCH\",null],[\"w\",\"EPOCH\",\"b\"]]}\n");
        Path page = dir.resolve("fences.html");
        assertEquals(1, VerifyCommandTest.cobra("verify", "--html", page.toString(), history.toString()).exit());
        assertTrue(Files.readString(page).contains("EPOCH is the collector&#39;s fence key"), Files.readString(page));
        Path other = dir.resolve("on-call.html");
        assertEquals(1, VerifyCommandTest.cobra("verify", "--html", other.toString(), Path.of("..", "examples", "on-call.jsonl").toString()).exit());
        assertFalse(Files.readString(other).contains("fence key"), "no fence key in the on-call history");
    }
}
