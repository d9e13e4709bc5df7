package org.cobraverify.topology;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.rounds.EpochAssigner;
import org.cobraverify.schemas.CutterSession;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.OpenSession;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.schemas.serde.WireFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every processor of the topology, driven through {@link TopologyTestDriver} with no broker. */
class PipelineTopologyTest {
    static final WireFormat WIRE = WireFormat.standalone();
    TopologyTestDriver driver;
    TestInputTopic<String, byte[]> ops;
    TestOutputTopic<String, byte[]> txns, rounds, dead;

    void start(TopologySettings settings) throws Exception {
        stateDir = Files.createTempDirectory("tt");
        Properties p = PipelineTopology.config("topology-test", "unused:9092", stateDir.toString());
        driver = new TopologyTestDriver(PipelineTopology.build(settings, WIRE), p, Instant.ofEpochMilli(1_000_000));
        ops = driver.createInputTopic(Topics.OPS, new StringSerializer(), new ByteArraySerializer());
        txns = driver.createOutputTopic(Topics.TXNS, new StringDeserializer(), new ByteArrayDeserializer());
        rounds = driver.createOutputTopic(Topics.ROUNDS, new StringDeserializer(), new ByteArrayDeserializer());
        dead = driver.createOutputTopic(Topics.DEAD_LETTERS, new StringDeserializer(), new ByteArrayDeserializer());
    }

    static TopologySettings small() { return TopologySettings.defaults().withRoundSize(1000).withIdleCutMs(5_000); }

    Path stateDir;

    @AfterEach
    void close() throws Exception {
        if (driver != null) driver.close();
        if (stateDir != null) try (var w = Files.walk(stateDir)) {
            w.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }

    /** Builds a session's operations with consecutive seqs; {@link #send} or {@link #take} them. */
    final class Client {
        final String session;
        long seq, n;
        final List<Operation> out = new ArrayList<>();

        Client(String session) { this.session = session; }

        Client op(String txn, OpKind kind, String key, String value) {
            out.add(new Operation(session, ++seq, txn, kind, key, value, seq * 1000));
            return this;
        }

        String txn(String... rw) { // "r x w1", "w y w2"
            String id = session + "-t" + (++n);
            op(id, OpKind.BEGIN, null, null);
            for (String s : rw) {
                String[] f = s.split(" ");
                op(id, f[0].equals("w") ? OpKind.WRITE : OpKind.READ, f[1], f[2].equals("-") ? null : f[2]);
            }
            op(id, OpKind.COMMIT, null, null);
            return id;
        }

        String fence(String read, String write) { return txn("r EPOCH " + (read == null ? "-" : read), "w EPOCH " + write); }

        void end() { op("", OpKind.END, null, null); }

        List<Operation> take() {
            List<Operation> l = new ArrayList<>(out);
            out.clear();
            return l;
        }

        void send() { for (Operation o : take()) pipe(o); }
    }

    void pipe(Operation o) { ops.pipeInput(o.getSession(), WIRE.encode(o)); }

    List<Transaction> txnsOut() {
        List<Transaction> l = new ArrayList<>();
        for (TestRecord<String, byte[]> r : txns.readRecordsToList())
            if (WIRE.typeOf(r.value()).endsWith(".Transaction")) l.add(WIRE.decode(r.value(), Transaction.class));
        return l;
    }

    List<DeadLetter> deadOut() {
        return dead.readValuesToList().stream().map(v -> WIRE.decode(v, DeadLetter.class)).toList();
    }

    /** Rounds as lists of transaction ids, each followed by its RoundEnd. */
    record Round(List<Transaction> txns, RoundEnd end) {}

    List<Round> roundsOut() {
        List<Round> out = new ArrayList<>();
        List<Transaction> cur = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (TestRecord<String, byte[]> r : rounds.readRecordsToList()) {
            byte[] v = r.value();
            if (WIRE.typeOf(v).endsWith(".RoundEnd")) {
                RoundEnd end = WIRE.decode(v, RoundEnd.class);
                for (String k : keys) assertEquals(Long.toString(end.getRound()), k, "a round's records are keyed by its number");
                assertEquals(Long.toString(end.getRound()), r.key());
                out.add(new Round(cur, end));
                cur = new ArrayList<>();
                keys = new ArrayList<>();
            } else {
                cur.add(WIRE.decode(v, Transaction.class));
                keys.add(r.key());
            }
        }
        assertTrue(cur.isEmpty(), "transactions after the last RoundEnd: " + cur);
        return out;
    }

    /** Each client closes its session (an END), and what it has not sent yet goes, in the order given. */
    static void endAll(Client... cs) {
        for (Client c : cs) c.end();
        for (Client c : cs) c.send();
    }

    /** Lets the idle cut run (small(): 5 s), then every transaction cut so far, with its epoch, in round order. */
    List<Transaction> drain() {
        driver.advanceWallClockTime(Duration.ofSeconds(6));
        return cut();
    }

    /** The transactions of the rounds cut so far, in round order. */
    List<Transaction> cut() { return roundsOut().stream().flatMap(r -> r.txns().stream()).toList(); }

    static Transaction find(List<Transaction> l, String id) {
        return l.stream().filter(t -> t.getId().equals(id)).findFirst().orElseThrow(() -> new AssertionError("no " + id + " in " + l));
    }

    @Test
    void interleavedSessionsBecomeEpochStampedTransactions() throws Exception {
        start(small());
        Client a = new Client("a"), b = new Client("b");
        String a1 = a.txn("r x -", "w x a1");
        String b1 = b.txn("r x a1", "w y b1");
        String fa = a.fence(null, "fa");
        String b2 = b.txn("r y b1");
        String fb = b.fence("fa", "fb");
        List<Operation> la = a.take(), lb = b.take();
        for (int i = 0; i < Math.max(la.size(), lb.size()); i++) { // interleave the two sessions' operations
            if (i < la.size()) pipe(la.get(i));
            if (i < lb.size()) pipe(lb.get(i));
        }
        List<Transaction> unstamped = txnsOut();
        assertEquals(5, unstamped.size(), "the assembler sends each transaction as it ends: " + unstamped);
        assertTrue(unstamped.stream().allMatch(t -> t.getEpoch() == -1), "the cutter stamps them");
        endAll(a, b);
        List<Transaction> out = drain();
        assertEquals(5, out.size(), out.toString());
        assertEquals(0, find(out, a1).getEpoch());
        assertEquals(1, find(out, fa).getEpoch());
        assertEquals(1, find(out, b1).getEpoch());
        assertEquals(1, find(out, b2).getEpoch());
        assertEquals(2, find(out, fb).getEpoch());
        assertTrue(find(out, fa).getFence());
        assertFalse(find(out, a1).getFence());
        assertEquals(TxnStatus.COMMITTED, find(out, b1).getStatus());
        assertEquals(2, find(out, b1).getOps().size());
        assertEquals(2, find(out, b2).getSessionIndex());
        // each session's transactions come out in session order
        List<String> bOrder = out.stream().filter(t -> t.getSession().equals("b")).map(Transaction::getId).toList();
        assertEquals(List.of(b1, b2, fb), bOrder);
        assertTrue(deadOut().isEmpty());
    }

    @Test
    void anOperationDuplicatedWhileItWaitsBehindAGapIsDeadLetteredOnce() throws Exception {
        start(small());
        Client a = new Client("a");
        String t1 = a.txn("r x -", "w x v1", "w y v2");
        List<Operation> l = a.take();
        pipe(l.get(0));
        pipe(l.get(2)); // seq 3 waits for seq 2
        pipe(l.get(2)); // and comes again while it waits
        for (int i = 1; i < l.size(); i++) if (i != 2) pipe(l.get(i));
        List<Transaction> out = txnsOut();
        assertEquals(List.of(t1), out.stream().map(Transaction::getId).toList());
        assertEquals(3, out.get(0).getOps().size());
        List<DeadLetter> d = deadOut();
        assertEquals(1, d.size());
        assertTrue(d.get(0).getReason().startsWith("duplicate operation: seq 3 of session a"), d.get(0).getReason());
        assertEquals(2, d.get(0).getOffset());
    }

    @Test
    void duplicatedRecordsAreDeadLetteredAndReorderedOnesWaitForTheGap() throws Exception {
        start(small());
        Client a = new Client("a");
        String t1 = a.txn("r x -", "w x v1", "w y v2");
        String f = a.fence(null, "f1");
        List<Operation> l = a.take();
        // swap the read and the first write; send the commit twice
        pipe(l.get(0));
        pipe(l.get(2));
        pipe(l.get(1));
        pipe(l.get(3));
        pipe(l.get(3));
        for (int i = 4; i < l.size(); i++) pipe(l.get(i));
        List<Transaction> out = txnsOut();
        assertEquals(List.of(t1, f), out.stream().map(Transaction::getId).toList());
        Transaction t = out.get(0);
        assertEquals(List.of("x", "x", "y"), t.getOps().stream().map(o -> o.getKey()).toList());
        assertFalse(t.getOps().get(0).getWrite());
        assertTrue(t.getOps().get(1).getWrite());
        List<DeadLetter> d = deadOut();
        assertEquals(1, d.size());
        assertTrue(d.get(0).getReason().startsWith("duplicate operation: seq 4 of session a"), d.get(0).getReason());
        assertEquals(Topics.OPS, d.get(0).getTopic());
        assertEquals(4, d.get(0).getOffset());
    }

    @Test
    void fencesArrivingOutOfOrderAcrossSessionsStillChainInOrder() throws Exception {
        start(small());
        Client a = new Client("a"), b = new Client("b"), c = new Client("c");
        String fa = a.fence(null, "f1");  // epoch 1
        String tb = b.txn("w k b");
        String fb = b.fence("f1", "f2");  // epoch 2
        String tc = c.txn("r k b");
        String fc = c.fence("f2", "f3");  // epoch 3
        endAll(c, b); // the last fence arrives first
        assertTrue(drain().isEmpty(), "nothing can be stamped before the chain reaches its fences (their sessions ended: all would be cut)");
        a.end();
        a.send();
        List<Transaction> out = drain();
        assertEquals(5, out.size());
        assertEquals(1, find(out, fa).getEpoch());
        assertEquals(1, find(out, tb).getEpoch());
        assertEquals(2, find(out, fb).getEpoch());
        assertEquals(2, find(out, tc).getEpoch());
        assertEquals(3, find(out, fc).getEpoch());
    }

    @Test
    void aLostFenceIsBridgedAfterTheGapTimeout() throws Exception {
        start(small().withFenceGapTimeoutMs(5_000));
        Client a = new Client("a"), b = new Client("b");
        String t = a.txn("w k v");
        String f = a.fence("from-an-earlier-run", "f9"); // reads a write no fence here made
        a.end();
        a.send();
        driver.advanceWallClockTime(Duration.ofSeconds(3));
        assertTrue(cut().isEmpty());
        String g = b.fence("f9", "f10"); // waits on a's fence; recorded 6 s later: stream time moves past the gap
        b.end();
        for (Operation o : b.take()) ops.pipeInput(o.getSession(), WIRE.encode(o), Instant.ofEpochMilli(1_000_000 + 6_000));
        driver.advanceWallClockTime(Duration.ofSeconds(3));
        List<Transaction> out = drain();
        assertEquals(1, find(out, f).getEpoch(), "the root is chained after the head (none yet)");
        assertEquals(0, find(out, t).getEpoch());
        assertEquals(2, find(out, g).getEpoch(), "and what waited on it follows at once");
    }

    /**
     * A fence whose predecessor is only late (the whole topology lagging, no later fences recorded) is not
     * bridged after the gap timeout of wall-clock time, only after six of them; then it is.
     */
    @Test
    void aLateFenceIsNotBridgedWhileStreamTimeStandsStill() throws Exception {
        start(small().withFenceGapTimeoutMs(5_000).withSessionTimeoutMs(600_000));
        Client a = new Client("a");
        String f = a.fence("late", "f9");
        a.end();
        a.send();
        driver.advanceWallClockTime(Duration.ofSeconds(12));
        assertTrue(cut().isEmpty(), "nothing recorded after it has arrived: its predecessor may still come");
        driver.advanceWallClockTime(Duration.ofSeconds(20));
        assertEquals(1, find(cut(), f).getEpoch(), "six gap timeouts of silence: bridged (and cut)");
    }

    /**
     * Fences arriving out of chain order behind a fork (two fences that read one write): each branch is
     * chained as soon as what it read is, and never waits for the gap timeout.
     */
    @Test
    void aBranchIsChainedAtOnceWithWhatWaitedOnIt() throws Exception {
        start(small().withFenceGapTimeoutMs(600_000));
        Client a = new Client("a"), b = new Client("b"), c = new Client("c");
        a.fence(null, "f1");
        a.fence("f1", "f2");
        a.send();
        String late = c.fence("x1", "x2"); // reads the write of b's fork, which has not arrived yet
        c.send();
        String fork = b.fence("f1", "x1"); // reads f1 as f2 did: a fork
        b.send();
        endAll(a, b, c);
        List<Transaction> out = drain();
        assertEquals(2, find(out, fork).getEpoch());
        assertEquals(3, find(out, late).getEpoch(), "waited on the fork: chained with it, not after a timeout");
        assertTrue(deadOut().isEmpty());
    }

    /**
     * A fence whose write id was chained already (a client bug, or a replayed fence) is not chained again: a
     * dead letter says so, and the transaction itself stays in its round as an ordinary one (nothing is lost).
     */
    @Test
    void aDuplicateFenceIsNotChainedTwiceAndIsNotLost() throws Exception {
        start(small());
        Client a = new Client("a"), b = new Client("b");
        String f1 = a.fence(null, "f1");
        a.send();
        String again = b.fence(null, "f1"); // writes f1 again
        String f2 = b.fence("f1", "f2");
        endAll(b, a);
        List<DeadLetter> d = deadOut();
        assertEquals(1, d.size(), d.toString());
        assertTrue(d.get(0).getReason().startsWith("duplicate fence " + again), d.get(0).getReason());
        List<Transaction> out = drain();
        assertEquals(3, out.size(), "the duplicate is cut like any transaction: " + out);
        assertEquals(1, find(out, f1).getEpoch());
        assertEquals(1, find(out, again).getEpoch(), "an ordinary transaction before b's fence of epoch 2");
        assertEquals(2, find(out, f2).getEpoch());
    }

    @Test
    void roundsAreCutOnEpochBoundaries() throws Exception {
        start(TopologySettings.defaults().withRoundSize(3).withIdleCutMs(60_000));
        Client a = new Client("a"), b = new Client("b");
        String prev = null;
        int fence = 0;
        for (int epoch = 0; epoch < 6; epoch++) {
            // per epoch: two transactions of a, one of b, then both sessions fence (a first)
            a.txn("w x a" + epoch);
            a.txn("r x a" + epoch);
            b.txn("w y b" + epoch);
            String fa = "f" + (++fence), fb = "f" + (++fence);
            a.fence(prev, fa);
            b.fence(fa, fb);
            prev = fb;
        }
        a.send();
        b.send();
        List<Round> rs = roundsOut();
        assertFalse(rs.isEmpty());
        long lastEpoch = -1;
        long total = 0;
        for (Round r : rs) {
            assertEquals(r.txns().size(), r.end().getTxns());
            assertTrue(r.txns().size() >= 3, "a size cut holds at least the round size");
            long min = r.txns().stream().mapToLong(Transaction::getEpoch).min().orElseThrow();
            long max = r.txns().stream().mapToLong(Transaction::getEpoch).max().orElseThrow();
            assertTrue(min > lastEpoch, "epochs do not straddle rounds: " + min + " after " + lastEpoch);
            assertEquals(max, r.end().getLastEpoch());
            assertTrue(max < r.end().getEpochAgree(), "only closed epochs are cut");
            lastEpoch = max;
            total += r.txns().size();
        }
        assertEquals(List.of(0L, 1L), rs.stream().limit(2).map(r -> r.end().getRound()).toList());
        // the sessions end: everything left is cut at once
        endAll(a, b);
        List<Round> rest = roundsOut();
        driver.advanceWallClockTime(Duration.ofSeconds(61));
        rest.addAll(roundsOut());
        for (Round r : rest) total += r.txns().size();
        assertEquals(6 * 5, total, "every transaction in exactly one round");
    }

    @Test
    void aSilentSessionIsRetiredAfterTheTimeoutAndStopsHoldingBackRounds() throws Exception {
        start(TopologySettings.defaults().withRoundSize(2).withSessionTimeoutMs(10_000).withIdleCutMs(60_000));
        Client a = new Client("a"), b = new Client("b");
        a.fence(null, "f0");
        a.send();
        b.fence("f0", "g0"); // b runs its opening fence (epoch 2), speaks once more and then falls silent
        String tb = b.txn("w z 1");
        b.send();
        String prev = "g0";
        for (int i = 1; i <= 4; i++) {
            a.txn("w x " + i);
            a.fence(prev, "f" + i);
            prev = "f" + i;
        }
        a.send();
        assertTrue(cut().stream().allMatch(x -> x.getEpoch() < 2), "b holds epoch_agree at 2, its fence's epoch");
        driver.advanceWallClockTime(Duration.ofSeconds(5));
        assertTrue(roundsOut().isEmpty(), "not yet past the timeout");
        a.txn("w x 5"); // a stays active
        a.fence(prev, "f5");
        a.send();
        driver.advanceWallClockTime(Duration.ofSeconds(6));
        List<Round> rs = roundsOut();
        List<Transaction> t = rs.stream().flatMap(r -> r.txns().stream()).toList();
        assertEquals(2, find(t, tb).getEpoch(), "b's waiting transaction is released with its last epoch");
        assertFalse(rs.isEmpty(), "with b retired, a's closed epochs are cut");
        assertEquals(List.of("b"), rs.get(0).end().getRetiredNow(), "announced once");
        assertTrue(rs.get(0).end().getRetiredSessions().isEmpty(), "v2: no full list");
        for (int i = 1; i < rs.size(); i++) assertTrue(rs.get(i).end().getRetiredNow().isEmpty(), "only what changed");
        assertTrue(rs.stream().flatMap(r -> r.txns().stream()).anyMatch(x -> x.getId().equals(tb)));
        var gone = (CutterSession) driver.getKeyValueStore(RoundCutter.SESSIONS).get("b");
        assertTrue(gone.getGone(), "a retired session leaves the live sessions once announced; only its last epoch stays");
        // b speaks again: it is live again, and the next RoundEnd says so
        String f6 = b.fence("f5", "f6");
        b.send();
        prev = "f6";
        for (int i = 7; i <= 9; i++) {
            a.txn("w x " + i);
            a.fence(prev, "f" + i);
            prev = "f" + i;
        }
        a.send();
        b.txn("w z 2");
        b.fence(prev, "f10");
        b.send();
        List<Round> later = roundsOut();
        assertTrue(later.stream().anyMatch(r -> r.end().getRevivedNow().contains("b")), "revived: " + later.stream().map(r -> r.end().getRevivedNow()).toList());
        assertEquals(8, find(later.stream().flatMap(r -> r.txns().stream()).toList(), f6).getEpoch());
        assertTrue(deadOut().isEmpty());
    }

    /**
     * A session that sends transactions without ever running a fence (a client that is not ours, or one that died before
     * its opening fence) stops nobody: it does not hold epoch_agree, and once it has run no fence for the fence-gap timeout
     * what it sent goes into the next round, stamped unfenced (the verifier names it unchecked), as does what it sends next
     * at once. Once it fences, it is a session like any other.
     */
    @Test
    void aSessionThatNeverFencedHoldsNothingAndGoesUnfenced() throws Exception {
        start(TopologySettings.defaults().withRoundSize(2).withSessionTimeoutMs(600_000).withIdleCutMs(60_000).withFenceGapTimeoutMs(5_000));
        Client a = new Client("a"), b = new Client("b");
        String t1 = b.txn("w z 1"), t2 = b.txn("r z 1", "w y 2"); // b never fences (yet)
        b.send();
        String prev = null;
        for (int i = 1; i <= 4; i++) {
            a.txn("w x " + i);
            a.fence(prev, "f" + i);
            prev = "f" + i;
        }
        a.send();
        List<Round> rs = roundsOut();
        assertTrue(rs.stream().flatMap(r -> r.txns().stream()).anyMatch(x -> x.getEpoch() >= 2), "b holds no epoch back: a's epochs are cut");
        driver.advanceWallClockTime(Duration.ofSeconds(6));
        String t3 = b.txn("w z 3");
        b.send();
        a.txn("w x 9");
        a.send();
        rs.addAll(roundsOut());
        driver.advanceWallClockTime(Duration.ofSeconds(61));
        rs.addAll(roundsOut());
        List<Transaction> t = rs.stream().flatMap(r -> r.txns().stream()).toList();
        assertEquals(EpochRules.UNFENCED, find(t, t1).getEpoch(), "past the delay, unfenced");
        assertEquals(EpochRules.UNFENCED, find(t, t2).getEpoch());
        assertEquals(EpochRules.UNFENCED, find(t, t3).getEpoch(), "and what b sends next, at once");
        assertTrue(rs.stream().allMatch(r -> r.end().getRetiredNow().isEmpty()), "and b is not retired: it is live, and simply not waited for");
        // b fences: from then on it is a session like any other (its epochs follow the chain, and it holds them)
        String g = b.fence(prev, "g1");
        String t4 = b.txn("w z 4");
        b.send();
        a.txn("w x 5");
        a.fence("g1", "f5");
        a.send();
        endAll(a, b);
        driver.advanceWallClockTime(Duration.ofSeconds(61));
        List<Transaction> rest = roundsOut().stream().flatMap(r -> r.txns().stream()).toList();
        assertEquals(5, find(rest, g).getEpoch());
        assertTrue(find(rest, t4).getEpoch() >= 5, "after its fence: " + find(rest, t4).getEpoch());
        assertTrue(deadOut().isEmpty());
        // a session that appears later and speaks before any fence of its own is unfenced too, whatever the others did
        Client c = new Client("c");
        String u = c.txn("w q 1");
        c.send();
        driver.advanceWallClockTime(Duration.ofSeconds(6));
        driver.advanceWallClockTime(Duration.ofSeconds(61));
        assertEquals(EpochRules.UNFENCED, find(roundsOut().stream().flatMap(r -> r.txns().stream()).toList(), u).getEpoch());
    }

    /**
     * A session its client closed is announced (retiredNow and closedNow) by the RoundEnd of the round that
     * cuts its last transactions, not before: from then on the verifier waits for nothing more from it.
     */
    @Test
    void aClosedSessionIsAnnouncedClosedWhenItsLastTransactionIsCut() throws Exception {
        start(TopologySettings.defaults().withRoundSize(1).withIdleCutMs(60_000));
        Client a = new Client("a"), b = new Client("b"), c = new Client("c");
        a.fence(null, "f1"); // epoch 1
        a.send();
        b.fence("f1", "f2"); // epoch 2
        b.send();
        a.txn("w x 1"); // epoch 2
        a.fence("f2", "f3"); // epoch 3
        a.send();
        c.fence("f3", "f4"); // epoch 4
        String ct = c.txn("w y 1"); // after c's last fence: released with epoch 4 when c ends
        c.end();
        c.send();
        b.txn("w z 1"); // epoch 4
        b.fence("f4", "f5"); // epoch 5: epoch_agree 3 (a), epoch 2 closes
        b.send();
        List<Round> first = roundsOut();
        assertEquals(2, first.size(), "epochs 1 and 2 are cut: " + first);
        for (Round r : first) {
            assertTrue(r.end().getClosedNow().isEmpty() && r.end().getRetiredNow().isEmpty(), "c ended, but its epoch-4 transactions are not cut yet: " + r.end());
            assertTrue(r.txns().stream().noneMatch(t -> t.getId().equals(ct)));
        }
        assertNotNull(driver.getKeyValueStore(RoundCutter.SESSIONS).get("c"), "c stays in the cutter's state until its transactions are cut");
        a.txn("w x 2");
        a.fence("f5", "f6"); // epoch 6: epoch_agree 5, epochs 3 and 4 close
        a.send();
        List<Round> later = roundsOut();
        Round withC = later.stream().filter(r -> r.txns().stream().anyMatch(t -> t.getId().equals(ct))).findFirst().orElseThrow();
        assertEquals(List.of("c"), withC.end().getClosedNow(), "closed once its last transaction is cut");
        assertEquals(List.of("c"), withC.end().getRetiredNow());
        for (Round r : later) if (r != withC) assertTrue(r.end().getClosedNow().isEmpty(), "announced once: " + r.end());
        assertNull(driver.getKeyValueStore(RoundCutter.SESSIONS).get("c"), "then c leaves the cutter's state");
        assertTrue(deadOut().isEmpty());
    }

    /** The cutter splices the epoch into the assembler's bytes; Avro's encoder is the other path. */
    @Test
    void anEpochSplicedIntoTheBytesEqualsTheEncodedTransaction() {
        for (boolean fence : new boolean[] {false, true})
            for (long epoch : new long[] {0, 1, 2, 63, 64, 65, 127, 128, 8191, 8192, 1L << 40, Long.MAX_VALUE}) {
                Transaction t = Transaction.newBuilder().setId("t").setSession("s").setStatus(TxnStatus.COMMITTED).setStart(1L).setEnd(2L)
                        .setOps(List.of(new TxnOp(true, "EPOCH", "w1"))).setSessionIndex(7L).setFence(fence).build();
                byte[] unstamped = WIRE.encode(t);
                t.setEpoch(epoch);
                assertArrayEquals(WIRE.encode(t), EpochStamp.withEpoch(WIRE, unstamped, epoch), "epoch " + epoch + ", fence " + fence);
                // an already stamped transaction (its last bytes may look like -1, -1: 64 is 80 01) is decoded and re-encoded
                byte[] stamped = WIRE.encode(t);
                t.setEpoch(epoch + 1);
                assertArrayEquals(WIRE.encode(t), EpochStamp.withEpoch(WIRE, stamped, epoch + 1), "re-stamped " + epoch);
            }
    }

    @Test
    void impossibleRecordsGoToTheDeadLetterTopicAndTheTopologyGoesOn() throws Exception {
        start(small());
        ops.pipeInput("a", "not avro".getBytes());
        Client a = new Client("a");
        a.txn("w x 1");
        a.send();
        a.op("a-t1", OpKind.WRITE, "x", "late"); // after its transaction committed
        a.op("ghost", OpKind.READ, "x", null);   // of a transaction never begun
        a.send();
        ops.pipeInput("someone-else", WIRE.encode(new Operation("a", 99L, "t", OpKind.BEGIN, null, null, 0L))); // key mismatch
        ops.pipeInput("a", WIRE.encode(Transaction.newBuilder().setId("x").setSession("a").setStatus(TxnStatus.COMMITTED)
                .setStart(0L).setEnd(0L).setOps(List.of()).build())); // a Transaction where an Operation belongs
        String t2 = a.txn("r x 1");
        a.fence(null, "f1");
        a.end();
        a.send();
        a.op("after", OpKind.BEGIN, null, null);
        a.send();
        List<DeadLetter> d = deadOut();
        List<String> reasons = d.stream().map(DeadLetter::getReason).toList();
        assertEquals(6, d.size(), reasons.toString());
        assertTrue(reasons.get(0).startsWith("undecodable operation: not Avro single-object encoding"), reasons.get(0));
        assertEquals(0, d.get(0).getOffset());
        assertEquals("not avro", new String(d.get(0).getValue().array()));
        assertEquals("WRITE seq 4 of session a after its transaction a-t1 ended", reasons.get(1));
        assertEquals("READ seq 5 of session a of transaction ghost, which was never begun", reasons.get(2));
        assertTrue(reasons.get(3).startsWith("record key someone-else is not the operation's session a"));
        assertTrue(reasons.get(4).contains("expected a org.cobraverify.schemas.Operation, found a org.cobraverify.schemas.Transaction"));
        assertTrue(reasons.get(5).contains("after the session ended"), reasons.get(5));
        assertEquals(List.of("a-t1", t2, "a-t3"), txnsOut().stream().map(Transaction::getId).toList());
    }

    @Test
    void aSessionEndFollowsItsTransactionsAndReleasesThem() throws Exception {
        start(small());
        Client a = new Client("a");
        String t = a.txn("w x 1");
        a.end();
        a.send();
        List<TestRecord<String, byte[]>> out = txns.readRecordsToList();
        assertEquals(3, out.size());
        assertEquals("a", WIRE.decode(out.get(0).value(), SessionStart.class).getSession());
        assertEquals(-1, WIRE.decode(out.get(1).value(), Transaction.class).getEpoch());
        SessionEnd end = WIRE.decode(out.get(2).value(), SessionEnd.class);
        assertEquals("closed", end.getReason());
        assertEquals(1, end.getTxns());
        assertTrue(roundsOut().isEmpty(), "fewer than a round's size");
        driver.advanceWallClockTime(Duration.ofSeconds(6));
        List<Round> rs = roundsOut();
        assertEquals(1, rs.size(), "no session left live: the idle cut takes it");
        assertEquals(EpochRules.UNFENCED, find(rs.get(0).txns(), t).getEpoch(), "released: the session ran no fence, so it is unfenced (EpochRules rule 5)");
        assertEquals(List.of("a"), rs.get(0).end().getClosedNow());
    }

    @Test
    void theFenceChainRemembersOnlyRecentEpochs() throws Exception {
        start(TopologySettings.defaults().withRoundSize(100_000).withIdleCutMs(5_000));
        Client a = new Client("a");
        String prev = null;
        int fences = FenceChain.KEEP_EPOCHS + 2 * FenceChain.PRUNE_EVERY + 10;
        for (int i = 1; i <= fences; i++) {
            a.fence(prev, "f" + i);
            prev = "f" + i;
            if (i % 500 == 0) a.send();
        }
        a.end();
        a.send();
        long kept = 0;
        try (var it = driver.<String, Long>getKeyValueStore(FenceChain.BY_WRITE).all()) {
            while (it.hasNext()) { it.next(); kept++; }
        }
        assertTrue(kept <= FenceChain.KEEP_EPOCHS + FenceChain.PRUNE_EVERY, "kept " + kept + " of " + fences);
        assertTrue(kept >= FenceChain.KEEP_EPOCHS, "recent epochs stay: " + kept);
        List<Transaction> out = drain();
        Map<String, Long> byId = out.stream().collect(Collectors.groupingBy(Transaction::getId, Collectors.counting()));
        assertEquals(fences, (long) out.stream().filter(x -> x.getFence() && x.getEpoch() > 0).count(),
                byId.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).limit(10).toList() + " " + out.size());
        // a fork off a recent write is still recognised: it gets the epoch after the write it read
        Client b = new Client("b");
        String fork = b.fence("f" + (fences - 5), "fork");
        b.end();
        b.send();
        assertEquals(fences - 4, find(drain(), fork).getEpoch());
    }

    @Test
    void endedAndLongSilentSessionsLeaveTheAssemblersState() throws Exception {
        TopologySettings st = TopologySettings.defaults().withRoundSize(1000).withSessionTimeoutMs(1_000);
        start(st);
        Client a = new Client("a"), b = new Client("b");
        a.fence(null, "f1");
        a.txn("w x 1");
        a.end();
        a.send();
        b.fence("f1", "f2");
        b.txn("w y 1");
        b.send();
        var open = driver.<String, OpenSession>getKeyValueStore(SessionAssembler.OPEN);
        driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertNotNull(open.get("a"), "an ended session stays a while: its late operations are dead-lettered");
        assertNotNull(open.get("b"), "b is retired, not forgotten");
        driver.advanceWallClockTime(Duration.ofMillis(st.forgetEndedMs()));
        assertNull(open.get("a"), "then it leaves");
        assertNotNull(open.get("b"), "a silent session stays longer");
        var cutter = driver.<String, CutterSession>getKeyValueStore(RoundCutter.SESSIONS);
        assertNull(cutter.get("a"), "the cutter lets a closed session go once its transactions are cut");
        assertTrue(cutter.get("b").getGone(), "and keeps a timed-out one's last epoch for a while");
        driver.advanceWallClockTime(Duration.ofMillis(st.forgetSilentMs()));
        assertNull(open.get("b"));
        assertNull(cutter.get("b"), "then lets it go too");
        assertTrue(deadOut().isEmpty());
    }

    /**
     * A client that dies inside a transaction leaves it open for good: its session is still forgotten once silent for
     * {@code forgetSilentMs} (before, the assembler kept it, and its open transaction, for ever), and the open
     * transaction is quarantined whole, naming it.
     */
    @Test
    void aSessionThatDiedInsideATransactionIsForgottenAndItsTransactionQuarantined() throws Exception {
        TopologySettings st = TopologySettings.defaults().withRoundSize(1000).withSessionTimeoutMs(1_000);
        start(st);
        Client a = new Client("a");
        a.fence(null, "f1");
        a.op("a-open", OpKind.BEGIN, null, null);
        a.op("a-open", OpKind.WRITE, "x", "x1");
        a.send();
        var open = driver.<String, OpenSession>getKeyValueStore(SessionAssembler.OPEN);
        driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertNotNull(open.get("a"), "retired, not forgotten yet");
        assertTrue(deadOut().isEmpty());
        driver.advanceWallClockTime(Duration.ofMillis(st.forgetSilentMs()));
        assertNull(open.get("a"), "a session silent that long goes, open transaction and all");
        List<DeadLetter> dead = deadOut();
        assertEquals(1, dead.size(), dead.toString());
        assertTrue(dead.get(0).getReason().contains("a-open") && dead.get(0).getReason().contains("still open"), dead.get(0).getReason());
        assertTrue(txnsOut().stream().noneMatch(t -> t.getId().equals("a-open")), "the open transaction is not delivered");
    }

    /**
     * The epoch rules exist once ({@link org.cobraverify.schemas.protocol.EpochRules}); this compares the two code paths
     * that apply them: the topology (fence chain, assembler; streaming, fences arriving out of chain order)
     * and the file mode's {@link org.cobraverify.rounds.EpochAssigner} (whole history at once), on random
     * histories of several sessions with fences, aborted fence-like transactions and writes of the fence key
     * before reading it (not fences; no later fence reads them: a chain broken that way is bridged after a
     * timeout by the topology and ends the chain in a file, by design). Every transaction gets the same epoch; one after its session's last
     * fence, open in a file, gets its session's last fence epoch when the session ends.
     */
    @Test
    void epochsFromTheTopologyEqualTheFileModes() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            start(small());
            Random rnd = new Random(seed);
            int sessions = 3 + rnd.nextInt(4);
            List<Client> clients = new ArrayList<>();
            for (int i = 0; i < sessions; i++) clients.add(new Client("s" + seed + "-" + i));
            HistoryBuilder hb = new HistoryBuilder();
            int epochKey = hb.key("EPOCH");
            String head = null; // the fence key's current value in the serial execution
            Map<String, String> store = new HashMap<>();
            int fenceNo = 0;
            for (int step = 0; step < 1500; step++) {
                Client c = clients.get(rnd.nextInt(sessions));
                String id = c.session + "-t" + (c.n + 1);
                int roll = rnd.nextInt(100);
                List<String> ops = new ArrayList<>();
                boolean commit = true, fence = false;
                if (roll < 15) { ops.add("r EPOCH " + (head == null ? "-" : head)); ops.add("w EPOCH f" + (++fenceNo)); fence = true; }
                else if (roll < 17) { ops.add("r EPOCH " + (head == null ? "-" : head)); ops.add("w EPOCH a" + step); commit = false; }
                else if (roll < 18) { ops.add("w EPOCH b" + step); ops.add("r EPOCH b" + step); }
                else {
                    for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                        String key = "x" + rnd.nextInt(4);
                        if (rnd.nextBoolean()) ops.add("r " + key + " " + store.getOrDefault(key, "-"));
                        else { String v = id + "-" + k; ops.add("w " + key + " " + v); store.put(key, v); }
                    }
                }
                if (commit && fence) head = "f" + fenceNo;
                // the transaction, to the topology (via the client) and to the file-mode history
                if (commit) c.txn(ops.toArray(new String[0]));
                else {
                    c.n++;
                    c.op(id, OpKind.BEGIN, null, null);
                    for (String o : ops) {
                        String[] f = o.split(" ");
                        c.op(id, f[0].equals("w") ? OpKind.WRITE : OpKind.READ, f[1], f[2].equals("-") ? null : f[2]);
                    }
                    c.op(id, OpKind.ABORT, null, null);
                }
                hb.begin(id, hb.session(c.session), commit ? History.COMMITTED : History.ABORTED,
                        History.NO_TIME, History.NO_TIME, -1);
                for (String o : ops) {
                    String[] f = o.split(" ");
                    int k = f[1].equals("EPOCH") ? epochKey : hb.key(f[1]);
                    if (f[0].equals("w")) hb.write(k, hb.value(f[2]));
                    else hb.read(k, f[2].equals("-") ? History.NIL : hb.value(f[2]));
                }
                hb.end();
            }
            for (Client c : clients) c.end();
            // deliver: sessions interleaved in random chunks, so fences often arrive before the fence they read
            List<List<Operation>> left = new ArrayList<>();
            for (Client c : clients) left.add(new ArrayList<>(c.take()));
            while (left.stream().anyMatch(l -> !l.isEmpty())) {
                List<Operation> l = left.get(rnd.nextInt(sessions));
                for (int i = 0, k = 1 + rnd.nextInt(40); i < k && !l.isEmpty(); i++) pipe(l.remove(0));
            }
            History h = hb.build();
            EpochAssigner file = new EpochAssigner(h, "EPOCH");
            Map<String, Transaction> out = new HashMap<>();
            for (Transaction t : drain()) out.put(t.getId(), t);
            assertEquals(h.size(), out.size(), "every transaction comes out once");
            int fences = 0;
            for (int t = 0; t < h.size(); t++) {
                Transaction got = out.get(h.name(t));
                long want = file.epoch(t) == EpochAssigner.OPEN ? file.previousFence(t) : file.epoch(t);
                assertEquals(want, got.getEpoch(), "seed " + seed + ": epoch of " + h.name(t) + " (file mode: " + file.epoch(t) + ")");
                assertEquals(file.isFence(t), got.getFence(), "seed " + seed + ": is " + h.name(t) + " a fence");
                if (file.isFence(t)) fences++;
            }
            assertTrue(fences > 100, "the histories have fences: " + fences);
            close();
            driver = null;
            stateDir = null;
        }
    }
}
