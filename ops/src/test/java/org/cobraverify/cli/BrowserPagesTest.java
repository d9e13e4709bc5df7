package org.cobraverify.cli;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.ops.pipeline.Pipeline;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The web pages in a real browser: headless Chromium (Debian's chromium and chromium-driver; ops/install-browser.sh
 * installs them), driven through WebDriver. Skips, saying why, where no browser is installed. Screenshots go to
 * ops/target/screenshots/ and are checked not to be blank.
 */
class BrowserPagesTest {
    static WebDriver browser;
    static final Path SHOTS = Path.of("target", "screenshots");

    @TempDir
    Path dir;

    @BeforeAll
    static void chromium() {
        Path chromium = Path.of("/usr/bin/chromium"), driver = Path.of("/usr/bin/chromedriver");
        Assumptions.assumeTrue(Files.isExecutable(chromium) && Files.isExecutable(driver),
                "no headless browser here: /usr/bin/chromium and /usr/bin/chromedriver are missing (run ops/install-browser.sh)");
        ChromeOptions o = new ChromeOptions();
        o.setBinary(chromium.toFile());
        o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000", "--disable-gpu");
        ChromeDriverService s = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(s, o);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void quit() {
        if (browser != null) browser.quit();
    }

    /** Saves a screenshot and checks that it shows something: many colours, and not almost all white. */
    static void screenshot(String name) throws Exception {
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.createDirectories(SHOTS);
        Files.write(SHOTS.resolve(name + ".png"), png);
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
        Set<Integer> colours = new HashSet<>();
        long notWhite = 0;
        for (int y = 0; y < img.getHeight(); y += 2)
            for (int x = 0; x < img.getWidth(); x += 2) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                if (rgb != 0xffffff) notWhite++;
            }
        long sampled = (long) (img.getHeight() / 2) * (img.getWidth() / 2);
        assertTrue(colours.size() > 20, name + ": a blank screenshot (" + colours.size() + " colours)");
        assertTrue(notWhite > sampled / 100, name + ": almost all white");
    }

    /** Polls the browser until {@code done} holds, for at most 20 s (fails saying what it waited for). */
    static void waitUntil(java.util.function.Predicate<WebDriver> done) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!done.test(browser)) {
            assertTrue(System.nanoTime() < deadline, "the page did not get there within 20 s: " + browser.getCurrentUrl());
            Thread.sleep(100);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theCertificatePageOfTheOnCallHistoryShowsBothTransactionsAndBothRwEdges() throws Exception {
        Path page = dir.resolve("on-call.html");
        var r = VerifyCommandTest.cobra("verify", "--html", page.toString(), Path.of("..", "examples", "on-call.jsonl").toString());
        assertEquals(1, r.exit(), r.err());
        browser.get(page.toUri().toString());
        var nodes = browser.findElements(By.cssSelector("svg .nlabel")).stream().map(e -> e.getText()).toList();
        assertTrue(nodes.contains("alice-leaves") && nodes.contains("bob-leaves"), "nodes drawn: " + nodes);
        var edges = browser.findElements(By.cssSelector("svg .elabel")).stream().map(e -> e.getText()).toList();
        assertEquals(2, edges.stream().filter(l -> l.startsWith("rw(")).count(), "both rw edges: " + edges);
        var box = browser.findElement(By.cssSelector("svg.cycle")).getRect();
        assertTrue(box.getWidth() > 200 && box.getHeight() > 200, "the picture has a size: " + box.getWidth() + "x" + box.getHeight());
        screenshot("certificate-on-call");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theSurveyPageShowsALevelPerRowAndLinksEachAnomalyToItsCertificate() throws Exception {
        Path page = dir.resolve("pages").resolve("survey.html");
        var r = VerifyCommandTest.cobra("survey", "--db", "h2", "--levels", "read-committed,serializable", "--workloads", "counter,write-skew",
                "--txns", "800", "--out", dir.resolve("survey").toString(), "--html", page.toString());
        // 1 where H2's serializable showed its write skew in these few transactions (docs/survey.md), 0 where it did not
        assertTrue(r.exit() == 0 || r.exit() == 1, r.out() + r.err());
        assertTrue(r.err().contains("the page is " + page.toAbsolutePath()), r.err());
        browser.get(page.toUri().toString());
        var rows = browser.findElements(By.cssSelector("table.survey tbody tr"));
        assertEquals(2, rows.size(), "one row per level");
        assertTrue(rows.get(0).getText().startsWith("read committed"), rows.get(0).getText());
        screenshot("survey");
        var lost = rows.get(0).findElements(By.linkText("lost update"));
        assertEquals(1, lost.size(), "read committed's lost update, linked: " + rows.get(0).getText());
        lost.get(0).click();
        waitUntil(b -> b.getCurrentUrl().endsWith(".html") && !b.getCurrentUrl().endsWith("survey.html"));
        String h1 = browser.findElement(By.tagName("h1")).getText();
        assertTrue(h1.startsWith("Not ") && h1.endsWith("lost update"), "the certificate page: " + h1);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theLivePageShowsRoundsAsThePipelineDecidesThemAndRunsNothingFromTheHistory() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0, dir.resolve("kafka"));
             VerdictServer server = VerdictServer.start("127.0.0.1", 0)) {
            TopologySettings ts = TopologySettings.defaults().withRoundSize(1000).withIdleCutMs(500);
            try (Pipeline p = Pipeline.start(kafka.bootstrapServers(), dir.resolve("streams"), 1, ts,
                    RoundSettings.defaults().withCheck(CheckOptions.defaults()), server::add)) {
                browser.get(server.url());
                long recorded;
                try (KvStore store = new RocksDbStore(dir.resolve("db").toString(), false)) {
                    KafkaSink sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, false, new Properties());
                    Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
                    try {
                        // offered at 3,000 txn/s: the rounds (and their verdicts) come over about four seconds, as a live run's do
                        WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 12000, 1, 3000, new WorkloadRunner.Progress());
                    } finally {
                        rec.close();
                    }
                    recorded = sink.recorded();
                }
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (System.nanoTime() < deadline && (p.verdicts().isEmpty()
                        || p.verdicts().get(p.verdicts().size() - 1).getCheckedTxns() + p.verdicts().get(p.verdicts().size() - 1).getPendingTxns() < recorded))
                    Thread.sleep(100);
                int rounds = p.verdicts().size();
                assertTrue(rounds >= 4, "several rounds: " + rounds);
                // the page lists every round by the end (it polls once a second)
                waitUntil(d -> d.findElements(By.cssSelector("#rounds tr")).size() == rounds);
                for (String chart : List.of("lag", "retained", "throughput")) {
                    assertFalse(browser.findElements(By.cssSelector("svg#" + chart + " polyline")).isEmpty(), "the " + chart + " chart is drawn");
                    assertEquals(2, browser.findElements(By.cssSelector("svg#" + chart + " line.axis")).size(), "the " + chart + " chart's two axes");
                    assertEquals(6, browser.findElements(By.cssSelector("svg#" + chart + " text.tick")).size(), "three ticks on each axis of " + chart);
                    assertEquals("seconds since the first verdict", browser.findElement(By.cssSelector("svg#" + chart + " text.label")).getText());
                }
                String status = browser.findElement(By.id("status")).getText();
                assertTrue(status.contains("checked at serializable"), "the page says which level the verdicts are about: " + status);
                screenshot("live-page");

                // a violation whose key is markup: shown as text, nothing runs, and its certificate page escapes it too
                String evil = "<img src=x onerror=alert(1)>";
                ((JavascriptExecutor) browser).executeScript("window.__alerted = false; window.alert = function () { window.__alerted = true; };");
                server.add(evilVerdict(p.verdicts().get(rounds - 1), evil));
                waitUntil(d -> d.findElements(By.cssSelector("#violations a")).size() == 2); // the round's two violations, each linked
                String listed = browser.findElement(By.cssSelector("#violations a")).getText();
                assertTrue(listed.contains(evil), "the key is shown as text: " + listed);
                assertTrue(browser.findElements(By.tagName("img")).isEmpty(), "no image element was made from the history");
                assertEquals(Boolean.FALSE, ((JavascriptExecutor) browser).executeScript("return window.__alerted;"), "nothing ran");
                String second = browser.findElements(By.cssSelector("#violations a")).get(1).getAttribute("href");
                assertTrue(second.endsWith("&i=1") && browser.findElements(By.cssSelector("#violations a")).get(1).getText().contains("violation 2: lost update"), second);
                browser.findElement(By.cssSelector("#violations a")).click();
                waitUntil(d -> !d.findElements(By.cssSelector("svg.cycle")).isEmpty());
                assertTrue(browser.getPageSource().contains("&lt;img src=x onerror=alert(1)&gt;") || browser.findElement(By.tagName("body")).getText().contains(evil),
                        "the certificate page shows the key as text");
                assertTrue(browser.findElements(By.tagName("img")).isEmpty(), "no image element on the certificate page");
            }
        }
    }

    /** The round after {@code last}, with a write skew on a key named {@code key}, as a verifier would publish it. */
    static Verdict evilVerdict(Verdict last, String key) {
        long round = last.getRound() + 1;
        Certificate c = Certificate.newBuilder().setAnomaly("write skew (G2)").setSummary("two transactions wrote what the other read of " + key)
                .setCycle(List.of(new CycleEdge("t1", "t2", "rw", key, null), new CycleEdge("t2", "t1", "rw", "y", null)))
                .setTransactions(List.of(new CertTxn("t1", "s1", "r(" + key + ")=1 w(y)=2"), new CertTxn("t2", "s2", "r(y)=1 w(" + key + ")=2")))
                .setText("write skew on " + key).build();
        return Verdict.newBuilder(last).setRound(round).setOutcome(Outcome.REJECT).setReason("write skew on " + key).setCertificate(c)
                .setMoreCertificates(List.of(Certificate.newBuilder(c).setAnomaly("lost update").setSummary("two increments of z read the same version").build()))
                .setNewViolations(2).setViolations(2).setFirstViolationRound(round).setOwnOutcome(Outcome.REJECT).build();
    }
}
