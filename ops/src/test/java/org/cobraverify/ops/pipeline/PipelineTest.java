package org.cobraverify.ops.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.cli.CobraCommand;
import org.cobraverify.cli.VerifyCommandTest;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.KvTransaction;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.Session;
import org.cobraverify.collector.StoreException;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.cobraverify.topology.TopologySettings;
import org.cobraverify.workloads.FaultyStore;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The whole pipeline on a real in-process KRaft broker (a fresh one per test): the interceptor on
 * embedded RocksDB, the topology under exactly-once, the verifier; checked against one-shot verification.
 */
class PipelineTest extends BrokerPerTest {

    Pipeline start(int roundSize) {
        TopologySettings ts = TopologySettings.defaults().withRoundSize(roundSize).withIdleCutMs(500);
        return Pipeline.start(kafka.bootstrapServers(), dir.resolve("streams"), 2, ts, RoundSettings.defaults().withCheck(CheckOptions.defaults()), v -> {});
    }

    static boolean waitFor(Pipeline p, long txns, Predicate<Verdict> orStopAt) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Verdict> vs = p.verdicts();
            if (!vs.isEmpty()) {
                Verdict last = vs.get(vs.size() - 1);
                if (last.getCheckedTxns() + last.getPendingTxns() >= txns || orStopAt.test(last)) return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Test
    void aSerializableWorkloadGivesOnlyAcceptsAndAgreesWithOneShotVerification() throws Exception {
        try (Pipeline p = start(500)) {
            p.stopVerifier();
            p.checkpointEvery(1); // every round, so that a replay of round 2 starts from the checkpoint of round 1
            p.startVerifier();
            long recorded = run("blindw-rm", null, 4, 3000);
            assertTrue(waitFor(p, recorded, v -> false), "verdicts cover every transaction: " + p.verdicts());
            List<Verdict> vs = committedVerdicts(l -> !l.isEmpty() && l.get(l.size() - 1).getCheckedTxns() + l.get(l.size() - 1).getPendingTxns() >= recorded);
            assertTrue(vs.size() >= 4, "several rounds: " + vs.size());
            for (Verdict v : vs) assertEquals(Outcome.ACCEPT, v.getOutcome(), v.getReason());
            Verdict last = vs.get(vs.size() - 1);
            assertEquals(recorded, last.getCheckedTxns());
            assertEquals(0, last.getPendingTxns());
            // epochs advance across rounds, and rounds do not overlap
            for (int i = 1; i < vs.size(); i++) assertTrue(vs.get(i).getFirstEpoch() > vs.get(i - 1).getLastEpoch() || vs.get(i).getRoundTxns() == 0);
            assertTrue(Topic.readAll(kafka.bootstrapServers(), Topics.DEAD_LETTERS).isEmpty(), "no dead letters");

            Path file = dir.resolve("export.jsonl");
            assertEquals(0, CobraCommand.execute("export", "--bootstrap", kafka.bootstrapServers(), "--out", file.toString()));
            assertEquals(recorded + 1, Files.readAllLines(file).size(), "a header and every transaction");
            assertEquals(0, CobraCommand.execute("verify", file.toString()), "one-shot verification accepts too");
            assertEquals(0, CobraCommand.execute("verdicts", "--bootstrap", kafka.bootstrapServers()), "the alerting consumer sees only accepts");

            // replay a window from the verifier's checkpoint: the same verdicts as the pipeline published. A checkpoint
            // follows each decision, so a round decided on its own (or last of a batch) has one; replay from the next
            List<Verdict> published = committedVerdicts();
            long lastRound = published.get(published.size() - 1).getRound();
            Verdict cp = published.stream().filter(v -> v.getTotalMs() > 0 && v.getRound() < lastRound).findFirst().orElse(null);
            if (cp != null) {
                long a = cp.getRound() + 1, b = Math.min(lastRound, a + 1);
                VerifyCommandTest.Run replay = VerifyCommandTest.cobra("replay", "--bootstrap", kafka.bootstrapServers(),
                        "--from-round", Long.toString(a), "--to-round", Long.toString(b), "--json");
                assertEquals(0, replay.exit(), replay.err() + replay.out());
                assertTrue(replay.err().contains("starting from the checkpoint of round " + cp.getRound()), replay.err());
                List<String> lines = replay.out().lines().toList();
                assertEquals(b - a + 1, lines.size(), replay.out());
                ObjectMapper m = new ObjectMapper();
                for (String line : lines) {
                    JsonNode j = m.readTree(line);
                    Verdict pub = published.get((int) j.get("round").asLong());
                    // a replay has the checkpoint and the frontier logs published with it (cobra.frontier-logs), not the
                    // verifier's collected-writes store: it judges reads of keys collected as data all the same (DESIGN §7.9)
                    assertEquals("accept", j.get("verdict").asText(), line);
                    assertEquals(pub.getCheckedTxns(), j.get("checked").asLong(), "round " + pub.getRound());
                    assertEquals(pub.getRoundTxns(), j.get("transactions").asInt());
                    assertTrue(j.get("retained").asLong() > 0, "round " + pub.getRound()); // not pub's: the pipeline may have decided it in a batch
                }
            }
            VerifyCommandTest.Run fromStart = VerifyCommandTest.cobra("replay", "--bootstrap", kafka.bootstrapServers(),
                    "--from-round", "0", "--to-round", "0");
            assertEquals(0, fromStart.exit(), fromStart.err());
            assertTrue(fromStart.out().startsWith("round 0: accept"), fromStart.out());
            assertEquals(2, CobraCommand.execute("replay", "--bootstrap", kafka.bootstrapServers(), "--from-round", "1", "--out-topic", Topics.VERDICTS));
            // no checkpoint before round 2 (none of this verifier at all), but cobra.rounds holds every round: replay rebuilds
            // from round 0 and prints only rounds 2 and 3, with the verdicts the pipeline published
            VerifyCommandTest.Run noCheckpoint = VerifyCommandTest.cobra("replay", "--bootstrap", kafka.bootstrapServers(),
                    "--from-round", "2", "--to-round", "3", "--verifier", "nobody");
            assertEquals(0, noCheckpoint.exit(), noCheckpoint.err() + noCheckpoint.out());
            assertTrue(noCheckpoint.err().contains("no checkpoint of nobody before round 2") && noCheckpoint.err().contains("replayed first"), noCheckpoint.err());
            List<String> rebuilt = noCheckpoint.out().lines().toList();
            assertEquals(2, rebuilt.size(), noCheckpoint.out());
            assertTrue(rebuilt.get(0).startsWith("round 2: accept") && rebuilt.get(1).startsWith("round 3: accept"), noCheckpoint.out());
            // a demo on a cluster a pipeline already ran on would mix that history into its own: refused, saying why
            VerifyCommandTest.Run demo = VerifyCommandTest.cobra("demo", "--bootstrap", kafka.bootstrapServers(), "--txns", "100", "--quiet");
            assertEquals(2, demo.exit(), demo.err());
            assertTrue(demo.err().contains("cobra.rounds on " + kafka.bootstrapServers() + " already holds"), demo.err());
        }
    }

    @Test
    void aStoreThatServesStaleReadsIsRejectedWithinAFewRoundsAndOneShotAgrees() throws Exception {
        try (Pipeline p = start(300)) {
            p.stopVerifier();
            p.checkpointEvery(1);
            p.startVerifier();
            long recorded = run("blindw-rw", FaultyStore.Fault.STALE_READ, 4, 2000);
            assertTrue(waitFor(p, recorded, v -> v.getOutcome() == Outcome.REJECT), "a verdict: " + p.verdicts());
            List<Verdict> vs = committedVerdicts(l -> l.stream().anyMatch(v -> v.getOutcome() == Outcome.REJECT));
            Verdict first = vs.stream().filter(v -> v.getOutcome() == Outcome.REJECT).findFirst().orElseThrow(
                    () -> new AssertionError("no rejection in " + vs.size() + " verdicts: " + vs.stream().map(Verdict::getReason).toList()));
            assertTrue(first.getRound() <= 3, "rejected by round 3 of " + vs.size() + ": round " + first.getRound());
            assertNotNull(first.getCertificate());
            assertFalse(first.getCertificate().getCycle().isEmpty() && first.getCertificate().getTransactions().isEmpty(),
                    "round " + first.getRound() + ": " + first.getReason() + "; certificate " + first.getCertificate());
            assertTrue(first.getCertificate().getText().length() > 50, first.getCertificate().getText());
            // the rounds so far, exported, are rejected one-shot as well
            Path file = dir.resolve("rounds.jsonl");
            assertEquals(0, CobraCommand.execute("export", "--bootstrap", kafka.bootstrapServers(), "--topic", Topics.ROUNDS,
                    "--max-round", Long.toString(first.getRound()), "--out", file.toString()));
            assertEquals(1, CobraCommand.execute("verify", file.toString()));
            assertEquals(1, CobraCommand.execute("verdicts", "--bootstrap", kafka.bootstrapServers()), "the alerting consumer stops at the violation");
            // a replay up to the rejected round rejects it too, with the same anomaly
            VerifyCommandTest.Run replay = VerifyCommandTest.cobra("replay", "--bootstrap", kafka.bootstrapServers(),
                    "--from-round", "0", "--to-round", Long.toString(first.getRound()), "--json", "--html", dir.resolve("replay.html").toString());
            assertEquals(1, replay.exit(), replay.err() + replay.out());
            String page = Files.readString(dir.resolve("replay.html"));
            assertTrue(page.contains("<svg") || page.contains("<table class=\"txns\">"), "the replayed violation's page: " + page);
            assertTrue(page.contains("round " + first.getRound()), "the page names the round");
            List<String> lines = replay.out().lines().toList();
            JsonNode j = new ObjectMapper().readTree(lines.get(lines.size() - 1));
            assertEquals(first.getRound(), j.get("round").asLong());
            assertEquals("reject", j.get("verdict").asText());
            assertEquals(first.getCertificate().getAnomaly(), j.get("certificate").get("anomaly").asText());
        }
    }

    /**
     * The verifier dies between sending a verdict and committing it, and is restarted; later it is
     * stopped and restarted once more. Every round has exactly one committed verdict, equal to what
     * a fresh verifier computes from the rounds topic.
     */
    @Test
    void killingAndRestartingTheVerifierLosesNoVerdictAndRepeatsNone() throws Exception {
        try (Pipeline p = start(250)) {
            p.stopVerifier();
            p.checkpointEvery(1);
            // a crash between send and commit, in a batch after one that committed: a crash before any commit leaves
            // nothing behind, so the next start is a first start again (a batch may hold several rounds, and with
            // the topology committing every 100 ms the first one sometimes held rounds 0-2)
            AtomicLong crashedAt = new AtomicLong(-1);
            p.startVerifier(round -> {
                if (round >= 2 && !p.verdicts().isEmpty()) {
                    crashedAt.compareAndSet(-1, round);
                    throw new IllegalStateException("crash between send and commit");
                }
            });
            long recorded = run("blindw-rm", null, 4, 2500);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (p.verifierRunning() && System.nanoTime() < deadline) Thread.sleep(100);
            assertFalse(p.verifierRunning(), "the verifier crashed");
            assertTrue(crashedAt.get() >= 2, "crashed at round " + crashedAt.get());
            assertTrue(p.verdicts().stream().allMatch(v -> v.getRound() < crashedAt.get()), "nothing from round " + crashedAt.get() + " on was published before the crash");
            p.startVerifier();
            long deadline2 = System.nanoTime() + 60_000_000_000L;
            while (p.verdicts().size() < 5 && System.nanoTime() < deadline2) Thread.sleep(50);
            p.stopVerifier();
            p.startVerifier();
            assertTrue(waitFor(p, recorded, v -> false), "verdicts cover every transaction");
            // it resumed from its last checkpoint (on cobra.gc-frontiers), not by reading cobra.rounds again
            long deadline3 = System.nanoTime() + 30_000_000_000L;
            while (p.verifier().resumedFromRound() < 0 && System.nanoTime() < deadline3) Thread.sleep(50);
            assertTrue(p.verifier().resumedFromRound() >= 1, "resumed from a checkpoint: " + p.verifier().resumedFromRound());
            assertEquals(0, p.verifier().replayedRecords(), "nothing of cobra.rounds read twice");

            List<Verdict> committed = committedVerdicts();
            List<Long> rounds = committed.stream().map(Verdict::getRound).toList();
            List<Long> expected = new ArrayList<>();
            for (long r = 0; r < committed.size(); r++) expected.add(r);
            assertEquals(expected, rounds, "every round once, in order");
            // the restart count travels in the committed offset's metadata: 0 before the crash, then it only grows
            assertEquals(0, committed.get(0).getVerifierRestarts());
            assertTrue(committed.get(committed.size() - 1).getVerifierRestarts() >= 1, "restarts after the crash: " + committed.get(committed.size() - 1));
            for (int i = 1; i < committed.size(); i++)
                assertTrue(committed.get(i).getVerifierRestarts() >= committed.get(i - 1).getVerifierRestarts(), "restarts never go back");

            // ground truth: a fresh verifier over the rounds topic
            List<Verdict> truth = new ArrayList<>();
            try (RoundVerifier fresh = new RoundVerifier(RoundSettings.defaults())) {
                for (ConsumerRecord<String, byte[]> r : Topic.readAll(kafka.bootstrapServers(), Topics.ROUNDS)) {
                    if (WIRE.typeOf(r.value()).endsWith(".Transaction")) fresh.add(WIRE.decode(r.value(), Transaction.class));
                    else truth.add(fresh.endRound(WIRE.decode(r.value(), RoundEnd.class), true));
                }
            }
            assertEquals(truth.size(), committed.size());
            for (int i = 0; i < truth.size(); i++) {
                assertEquals(truth.get(i).getOutcome(), committed.get(i).getOutcome(), "round " + i + ": fresh: " + truth.get(i).getReason()
                        + " / published: " + committed.get(i).getReason());
                assertEquals(truth.get(i).getCheckedTxns(), committed.get(i).getCheckedTxns(), "round " + i);
                assertEquals(truth.get(i).getPendingTxns(), committed.get(i).getPendingTxns(), "round " + i);
                assertEquals(truth.get(i).getRoundTxns(), committed.get(i).getRoundTxns(), "round " + i);
            }
        }
    }

    /**
     * Frontier writers collected as data survive a restart (docs/DESIGN.md §7.9): a key written once, by a transaction the
     * verifier collects as data, then the verifier is stopped and started again from its checkpoint. A later read of the
     * key's value is accepted; a read of that value after a later write of the key in the same session (a stale read of
     * the collected writer) is rejected, with a certificate that names the key.
     */
    @ParameterizedTest(name = "its store: {0}")
    @ValueSource(strings = {"kept", "lost", "stale"})
    void aVerifierRestartedAfterCollectingFrontierWritersStillJudgesReadsOfThem(String store0) throws Exception {
        try (Pipeline p = start(200)) {
            p.stopVerifier();
            p.checkpointEvery(1);
            p.startVerifier();
            try (KvStore rocks = new RocksDbStore(dir.resolve("db-frontier").toString(), false)) {
                StaleOnDemand store = new StaleOnDemand(rocks, "frontier-key");
                KafkaSink sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, false, new Properties());
                Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
                try {
                    // F: the key's only writer until after the restart
                    Session f = rec.openSession();
                    f.begin();
                    f.write("frontier-key", "first");
                    f.commit();
                    f.close();
                    KvTransaction raw = rocks.begin();
                    String storedByF = raw.get("frontier-key");
                    raw.rollback();
                    // traffic, so that F's epoch becomes old and F is collected
                    WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 1500, 1, new WorkloadRunner.Progress());
                    long before = sink.recorded();
                    assertTrue(waitForChecked(p, before), "verdicts cover the first phase: " + last(p));
                    assertTrue(p.verdicts().stream().allMatch(v -> v.getOutcome() == Outcome.ACCEPT), "all accepted: " + reasons(p));
                    long frontierRecords = awaitCheckpointFrontierRecords();
                    // (under CI's load, the rounds that covered the traffic once had collected no frontier write yet: more traffic
                    // makes F's epoch old for certain; the workload never writes F's key)
                    for (int more = 0; more < 3 && frontierRecords <= 0; more++) {
                        WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 1500, 1, new WorkloadRunner.Progress());
                        assertTrue(waitForChecked(p, sink.recorded()), "verdicts cover the traffic: " + last(p));
                        frontierRecords = awaitCheckpointFrontierRecords();
                    }
                    assertTrue(frontierRecords > 0, "frontier writers were collected as data before the restart: " + frontierRecords + "; " + reasons(p));

                    p.stopVerifier();
                    if (store0.equals("lost")) {
                        // its collected-writes store is gone (another host, a lost disk): the frontier logs come from cobra.frontier-logs
                        try (var w = Files.walk(p.verifierStateDir())) {
                            w.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
                        }
                        assertFalse(Topic.readAll(kafka.bootstrapServers(), Topics.FRONTIER_LOGS).isEmpty(), "frontier logs were published");
                    }
                    if (store0.equals("stale")) {
                        // a store some other timeline left (this host owned cobra.rounds before another did): its mark is not the
                        // checkpoint resumed from, and its log of the key names a value of that timeline. Trusted, it would make
                        // the read below a stale read; the verifier discards it and reads the published logs
                        try (var s = new org.cobraverify.gc.store.RocksDbCollectedWrites(
                                p.verifierStateDir().resolve("cobra-verifier-0").resolve("collected-writes"), false)) {
                            assertFalse(s.isEmpty(), "the verifier's store is there");
                            s.importFrontierLog("frontier-key", List.of(new org.cobraverify.gc.CollectedWrites.FrontierEntry("elsewhere", "T-elsewhere", 1, 0)));
                            s.markCheckpoint(s.checkpointMark() + 1_000_000);
                            s.sync();
                        }
                    }
                    p.startVerifier();
                    // after the restart: a read of the collected writer's value, which is still the key's value, is accepted
                    Session reader = rec.openSession();
                    reader.begin();
                    assertEquals("first", reader.read("frontier-key"));
                    reader.commit();
                    reader.close();
                    WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 600, 1, new WorkloadRunner.Progress());
                    long afterRead = sink.recorded();
                    assertTrue(waitForChecked(p, afterRead), "verdicts cover the read: " + last(p));
                    assertTrue(p.verifier().resumedFromRound() >= 1, "resumed from a checkpoint: " + p.verifier().resumedFromRound());
                    assertTrue(p.verdicts().stream().allMatch(v -> v.getOutcome() == Outcome.ACCEPT), "the read is accepted: " + reasons(p));

                    // a later write of the key, then a read in the same session that is served F's value: a stale read
                    Session stale = rec.openSession();
                    stale.begin();
                    stale.write("frontier-key", "second");
                    stale.commit();
                    store.serve(storedByF);
                    stale.begin();
                    assertEquals("first", stale.read("frontier-key"));
                    stale.commit();
                    stale.close();
                    store.serve(null);
                    long afterStale = sink.recorded();
                    WorkloadRunner.run(Workload.byName("blindw-rm", 1.0), store, rec, 4, 600, 1, new WorkloadRunner.Progress());
                    assertTrue(waitFor(p, sink.recorded(), v -> v.getOutcome() == Outcome.REJECT), "a verdict: " + last(p));
                    Verdict reject = p.verdicts().stream().filter(v -> v.getOutcome() == Outcome.REJECT).findFirst()
                            .orElseThrow(() -> new AssertionError("no reject after the stale read (" + afterStale + " recorded): " + reasons(p)));
                    assertNotNull(reject.getCertificate(), reject.getReason());
                    assertTrue(reject.getCertificate().getText().contains("frontier-key"), reject.getCertificate().getText());
                } finally {
                    rec.close();
                }
            }
        }
    }

    /** Waits until the verdicts say that {@code txns} transactions were checked. */
    static boolean waitForChecked(Pipeline p, long txns) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Verdict> vs = p.verdicts();
            if (!vs.isEmpty() && vs.get(vs.size() - 1).getCheckedTxns() >= txns) return true;
            Thread.sleep(100);
        }
        return false;
    }

    static String last(Pipeline p) {
        List<Verdict> vs = p.verdicts();
        return vs.isEmpty() ? "no verdict" : vs.get(vs.size() - 1).toString();
    }

    static List<String> reasons(Pipeline p) { return p.verdicts().stream().map(v -> v.getRound() + ": " + v.getReason()).toList(); }

    /**
     * {@link #latestCheckpointFrontierRecords}, once it is positive or after 20 s (the checkpoint goes out in the transaction
     * of its round's verdicts, but rounds may still be coming when the traffic's verdicts are in).
     */
    long awaitCheckpointFrontierRecords() throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L, n;
        while ((n = latestCheckpointFrontierRecords()) <= 0 && System.nanoTime() < deadline) Thread.sleep(200);
        return n;
    }

    /** The frontier writes collected as data, as the latest checkpoint on {@link Topics#GC_FRONTIERS} counts them. */
    long latestCheckpointFrontierRecords() {
        long n = -1;
        for (ConsumerRecord<String, byte[]> r : Topic.readAll(kafka.bootstrapServers(), Topics.GC_FRONTIERS)) {
            if (r.value() == null || !WIRE.typeOf(r.value()).endsWith(".VerifierCheckpoint")) continue;
            VerifierCheckpoint c = WIRE.decode(r.value(), VerifierCheckpoint.class);
            if (c.getCore() != null) n = c.getCore().getFrontierRecords();
        }
        return n;
    }

    /** A store whose reads of one key return a given stored value while one is set (a stale replica, on demand). */
    static final class StaleOnDemand implements KvStore {
        private final KvStore store;
        private final String key;
        private volatile String served;

        StaleOnDemand(KvStore store, String key) { this.store = store; this.key = key; }

        void serve(String stored) { served = stored; }

        @Override
        public KvTransaction begin() throws StoreException {
            KvTransaction t = store.begin();
            return new KvTransaction() {
                @Override public String get(String k) throws StoreException {
                    String s = served;
                    return s != null && k.equals(key) ? s : t.get(k);
                }
                @Override public void put(String k, String v) throws StoreException { t.put(k, v); }
                @Override public void commit() throws StoreException { t.commit(); }
                @Override public void rollback() throws StoreException { t.rollback(); }
            };
        }

        @Override public String name() { return "stale on demand over " + store.name(); }

        @Override public void close() {}
    }

    /**
     * The end-to-end proof on a real database (docs/DESIGN.md §10.1): PostgreSQL at SERIALIZABLE is accepted round after
     * round; at READ COMMITTED, concurrent increments lose updates and the pipeline rejects.
     */
    @Test
    void postgresSerializableIsAcceptedAndReadCommittedIsCaught() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        String why = null;
        try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
            if (!c.isValid(2)) why = url + " does not answer";
        } catch (Exception e) {
            why = url + " is not reachable (.ci/run starts PostgreSQL; start it by hand elsewhere): " + e.getMessage();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, why);
        try (Pipeline p = start(200)) {
            long serializable = runJdbc(url, JdbcStore.Isolation.SERIALIZABLE, 600, true);
            assertTrue(waitFor(p, serializable, v -> false), "verdicts cover the serializable run");
            assertTrue(p.verdicts().size() >= 2);
            for (Verdict v : p.verdicts()) assertEquals(Outcome.ACCEPT, v.getOutcome(), v.getReason());
            String firstRun = p.verdicts().get(0).getFirstTxn().substring(0, p.verdicts().get(0).getFirstTxn().indexOf('.'));
            // the same table, kept: one database, one history, now at READ COMMITTED
            long more = runJdbc(url, JdbcStore.Isolation.READ_COMMITTED, 600, false);
            assertTrue(waitFor(p, serializable + more, v -> v.getOutcome() == Outcome.REJECT));
            Verdict reject = p.verdicts().stream().filter(v -> v.getOutcome() == Outcome.REJECT).findFirst()
                    .orElseThrow(() -> new AssertionError("READ COMMITTED lost no update in 600 increments: " + p.verdicts()));
            assertNotNull(reject.getCertificate());
            assertTrue(reject.getCertificate().getText().contains("lost"), reject.getCertificate().getText());
            long fromReadCommitted = reject.getCertificate().getTransactions().stream().filter(t -> !t.getId().startsWith(firstRun + ".")).count();
            assertTrue(fromReadCommitted >= 2, "the READ COMMITTED run's transactions lost the update: " + reject.getCertificate().getText());
        }
    }

    long runJdbc(String url, JdbcStore.Isolation iso, int txns, boolean freshTable) throws Exception {
        try (KvStore store = new JdbcStore(url, "postgres", "", "cobra_pipeline_test", iso, freshTable ? JdbcStore.Table.RECREATE_OWN : JdbcStore.Table.EXISTING)) {
            KafkaSink sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, false, new Properties());
            Recorder rec = new Recorder(store, sink, Recorder.Options.defaults());
            try {
                WorkloadRunner.run(Workload.byName("counter", 1.0), store, rec, 4, txns, 7, new WorkloadRunner.Progress());
            } finally {
                rec.close();
            }
            return sink.recorded();
        }
    }

    @Test
    void deadLettersNameTheirPlaceAndThePipelineGoesOn() throws Exception {
        try (Pipeline p = start(100)) {
            try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
                    new StringSerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(Topics.OPS, "c1", "garbage".getBytes())).get();
            }
            long recorded = run("blindw-rm", null, 2, 300);
            assertTrue(waitFor(p, recorded, v -> false));
            List<DeadLetter> dead = Topic.readAll(kafka.bootstrapServers(), Topics.DEAD_LETTERS).stream()
                    .map(r -> WIRE.decode(r.value(), DeadLetter.class)).toList();
            assertEquals(1, dead.size());
            assertEquals(Topics.OPS, dead.get(0).getTopic());
            assertEquals(0, dead.get(0).getOffset());
            assertTrue(dead.get(0).getReason().startsWith("undecodable operation"), dead.get(0).getReason());
            assertTrue(p.verdicts().stream().allMatch(v -> v.getOutcome() == Outcome.ACCEPT));
        }
    }
}
