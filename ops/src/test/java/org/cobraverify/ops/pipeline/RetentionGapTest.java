package org.cobraverify.ops.pipeline;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.cobraverify.rounds.RoundSettings;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.service.VerifierService;
import org.cobraverify.topology.Topics;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A verifier whose input retention has partly deleted rebuilds from a suffix of the history, and must say so: it
 * accepts no round from then on, and each verdict names the deleted records. Six rounds of a serializable history
 * (each round's transactions read only their own round's writes) are published to the rounds topic; the first
 * three rounds' records are deleted (as retention would) before a fresh verifier starts. Without the deletion the
 * same rounds are all accepted. (Before: the verifier read from the first record left and accepted every round.)
 * And a verifier that falls further behind than the retention while it runs says so (before: its consumer reset to
 * the end of the topic and went on as if nothing had happened).
 */
class RetentionGapTest extends BrokerPerTest {
    private static final WireFormat WIRE = WireFormat.standalone();

    @Test
    void aVerifierStartingAfterRetentionDeletedItsInputAcceptsNothing() throws Exception {
        List<Verdict> verdicts = run(true);
        assertEquals(3, verdicts.size(), "rounds 3 to 5 remain: " + verdicts);
        for (Verdict v : verdicts) {
            assertEquals(Outcome.UNKNOWN, v.getOutcome(), "round " + v.getRound() + ": " + v.getReason());
            assertTrue(v.getReason().contains("deleted (retention)") && v.getReason().contains(Topics.ROUNDS), v.getReason());
        }
    }

    @Test
    void theSameRoundsWithNothingDeletedAreAccepted() throws Exception {
        List<Verdict> verdicts = run(false);
        assertEquals(6, verdicts.size());
        for (Verdict v : verdicts) assertEquals(Outcome.ACCEPT, v.getOutcome(), "round " + v.getRound() + ": " + v.getReason());
    }

    /**
     * A verifier that falls further behind than the retention: it is held inside its first transaction (a crash point
     * that waits) while rounds 3 to 5 are published and rounds 3 and 4 deleted; when it goes on, the records it was
     * about to read are gone. Round 5 must not be accepted, and must name the loss.
     */
    @Test
    void aVerifierThatFellBehindTheRetentionAcceptsNothingAfterward() throws Exception {
        String bootstrap = kafka.bootstrapServers();
        TopicSetup.ensure(bootstrap, 1, (short) 1);
        publish(bootstrap, 0, 3);
        List<Verdict> verdicts = new CopyOnWriteArrayList<>();
        CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1);
        VerifierService service = new VerifierService(VerifierService.Settings.defaults(bootstrap).withState(dir.resolve("verifier"), 0),
                RoundSettings.defaults(), verdicts::add);
        service.crashPoint(round -> {
            if (round == 2 && held.getCount() > 0) {
                held.countDown();
                try { release.await(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            }
        });
        Thread t = new Thread(service::run, "verifier");
        t.start();
        try {
            assertTrue(held.await(60, TimeUnit.SECONDS), "the verifier reached round 2");
            long round5 = publish(bootstrap, 3, 6);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.deleteRecords(Map.of(new TopicPartition(Topics.ROUNDS, 0), RecordsToDelete.beforeOffset(round5))).all().get();
            }
            release.countDown();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (verdicts.stream().noneMatch(v -> v.getRound() == 5) && System.nanoTime() < deadline) Thread.sleep(50);
        } finally {
            release.countDown();
            service.stop();
            t.join(30_000);
        }
        Verdict last = verdicts.stream().filter(v -> v.getRound() == 5).findFirst().orElseThrow(() -> new AssertionError("no verdict for round 5: " + verdicts));
        assertEquals(Outcome.UNKNOWN, last.getOutcome(), last.getReason());
        assertTrue(last.getReason().contains("fell further behind than the retention"), last.getReason());
        assertTrue(verdicts.stream().noneMatch(v -> v.getRound() == 3 || v.getRound() == 4), "deleted rounds are not decided: " + verdicts);
    }

    /** Publishes rounds {@code from} (inclusive) to {@code to} (exclusive); returns the offset of the first record of the last one. */
    private static long publish(String bootstrap, int from, int to) throws Exception {
        long lastStart = -1;
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap), new StringSerializer(), new ByteArraySerializer())) {
            for (int round = from; round < to; round++) {
                for (int i = 0; i < 2; i++) {
                    String id = "t" + round + "." + i;
                    // the second reads the first's write: each round is read-from closed on its own
                    List<TxnOp> ops = i == 0 ? List.of(new TxnOp(true, "k" + round, "v" + round))
                            : List.of(new TxnOp(false, "k" + round, "v" + round), new TxnOp(true, "j" + round, "w" + round));
                    Transaction t = Transaction.newBuilder().setId(id).setSession("s" + i).setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0)
                            .setOps(ops).setSessionIndex(round + 1).setFence(false).setEpoch(round).build();
                    RecordMetadata m = producer.send(new ProducerRecord<>(Topics.ROUNDS, Long.toString(round), WIRE.encode(t))).get();
                    if (i == 0) lastStart = m.offset();
                }
                RoundEnd end = RoundEnd.newBuilder().setRound(round).setTxns(2).setFirstEpoch(round).setLastEpoch(round).setEpochAgree(round)
                        .setCutAt(System.currentTimeMillis()).build();
                producer.send(new ProducerRecord<>(Topics.ROUNDS, Long.toString(round), WIRE.encode(end))).get();
            }
        }
        return lastStart;
    }

    private List<Verdict> run(boolean deleteFirstHalf) throws Exception {
        String bootstrap = kafka.bootstrapServers();
        TopicSetup.ensure(bootstrap, 1, (short) 1);
        publish(bootstrap, 0, 3);
        long deleteBefore = publish(bootstrap, 3, 4);
        publish(bootstrap, 4, 6);
        if (deleteFirstHalf)
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.deleteRecords(Map.of(new TopicPartition(Topics.ROUNDS, 0), RecordsToDelete.beforeOffset(deleteBefore))).all().get();
            }
        int expected = deleteFirstHalf ? 3 : 6;
        List<Verdict> verdicts = new CopyOnWriteArrayList<>();
        VerifierService service = new VerifierService(VerifierService.Settings.defaults(bootstrap).withState(dir.resolve("verifier"), 0),
                RoundSettings.defaults(), verdicts::add);
        Thread t = new Thread(service::run, "verifier");
        t.start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (verdicts.size() < expected && System.nanoTime() < deadline) Thread.sleep(50);
        Thread.sleep(300); // no more verdicts than rounds
        service.stop();
        t.join(30_000);
        return verdicts;
    }
}
