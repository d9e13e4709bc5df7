package org.cobraverify.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.rounds.RoundVerifier;
import org.cobraverify.schemas.VerifierCheckpoint;
import org.cobraverify.schemas.VerifierCore;
import org.cobraverify.schemas.serde.WireFormat;

/**
 * The owner's side of its checkpoints on cobra.gc-frontiers ({@link Checkpoints} reads them): resuming from the one the
 * committed offset names, writing new ones (with the frontier logs that changed) inside the transaction of the rounds
 * they follow, and the committed offset's metadata that names the latest one and counts restarts
 * ({@code restarts=2;checkpoint=1234;round=56}).
 *
 * <p>Contract: one instance per {@link VerifierService}, used by the thread that runs it; each start of the owner's work
 * calls {@link #start}, then {@link #frontierLogs} and {@link #resume}, then {@link #checkpointDue}, {@link #checkpoint}
 * and {@link #offset} in each transaction. The figures of the last start ({@link #restarts}, {@link #replayedRecords},
 * {@link #resumedFromRound}, {@link #resumeSeconds}) may be read from any thread.
 */
final class Checkpointing {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VerifierService.class);

    /** Largest share of held transactions in one checkpoint record (the topic allows {@link VerifierService#MAX_RECORD_BYTES}). */
    static final int CHUNK_BYTES = 512 << 10;

    private final VerifierService.Settings settings;
    private final WireFormat wire;

    /**
     * How many times this verifier has resumed from a committed offset: kept in the committed offset's
     * metadata ({@code restarts=N}), so it is exact under exactly-once and survives any crash.
     */
    private volatile long restarts;

    /** Offset (on the checkpoints topic) of chunk 0 of the latest checkpoint committed or being committed, and its round; -1: none. */
    private long checkpointAt = -1, checkpointRound = -1;
    private volatile long replayedRecords, resumedFromRound = -1;
    private volatile double resumeSeconds;

    /**
     * Whether this verifier publishes frontier logs with its checkpoints, and whether every entry of its timeline is
     * published (false when it resumed from a checkpoint taken without: then no later checkpoint says so either).
     */
    private volatile boolean publishLogs, logsComplete;

    Checkpointing(VerifierService.Settings settings, WireFormat wire) {
        this.settings = settings;
        this.wire = wire;
    }

    /** Restarts so far (0 until {@link VerifierService#run} has read the committed offset, and for a first start). */
    long restarts() { return restarts; }

    /** Records of cobra.rounds read again after the last start (0 when it resumed from a checkpoint of its last round). */
    long replayedRecords() { return replayedRecords; }

    /** The round of the checkpoint the last start resumed from; -1 if it started from the beginning. */
    long resumedFromRound() { return resumedFromRound; }

    /** How long the last start took to load its checkpoint, in seconds. */
    double resumeSeconds() { return resumeSeconds; }

    /**
     * A start of the owner's work from {@code committed} (null: none): the restarts counted, nothing replayed or resumed
     * from yet, and no checkpoint known until {@link #resume} finds one.
     */
    void start(OffsetAndMetadata committed) {
        restarts = committed == null ? 0 : restartsIn(committed.metadata()) + 1;
        replayedRecords = 0;
        resumedFromRound = -1;
        checkpointAt = -1;
        checkpointRound = -1;
    }

    /** One more record of cobra.rounds read again (below the committed offset). */
    void replayed() { replayedRecords++; }

    /** Decides whether the checkpoints of {@code verifier} go with frontier logs (and has it track them if so). */
    void frontierLogs(KafkaConsumer<String, byte[]> cons, RoundVerifier verifier) {
        // frontier logs go out with checkpoints, where the topic for them exists (an older deployment may lack it)
        publishLogs = settings.checkpointEvery() > 0 && cons.listTopics(Duration.ofSeconds(30)).containsKey(FrontierLogs.TOPIC);
        if (publishLogs) verifier.engine().trackFrontierChanges();
        else if (settings.checkpointEvery() > 0)
            LOG.warn("cobra verifier: there is no topic " + FrontierLogs.TOPIC + ", so checkpoints go without frontier logs: a replay,"
                    + " or a verifier on another host, will say unknown once frontier writes are collected (cobra topology creates the missing topics when it starts)");
        logsComplete = publishLogs;
    }

    /** The offset {@code at} on the rounds topic to commit, with the metadata naming the restarts and the latest checkpoint. */
    OffsetAndMetadata offset(long at) {
        return new OffsetAndMetadata(at, "restarts=" + restarts + (checkpointAt < 0 ? "" : ";checkpoint=" + checkpointAt + ";round=" + checkpointRound));
    }

    static long restartsIn(String metadata) { return field(metadata, "restarts"); }

    /** A {@code name=value} field of the offset metadata ({@code restarts=2;checkpoint=1234;round=56}); -1 if absent. */
    static long field(String metadata, String name) {
        if (metadata == null) return -1;
        for (String f : metadata.split(";")) {
            if (!f.startsWith(name + "=")) continue;
            try {
                return Long.parseLong(f.substring(name.length() + 1));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Publishes the verifier's state after the rounds just decided, in the open transaction, and records
     * where it went (the committed offset's metadata will point at it). A state too large for the topic is
     * not checkpointed (the previous checkpoint stays the one to resume from).
     */
    void checkpoint(KafkaProducer<String, byte[]> prod, RoundVerifier verifier, long inputOffset, long epochAgree) {
        List<VerifierCheckpoint> chunks = verifier.checkpoint(settings.transactionalId(), inputOffset, epochAgree, CHUNK_BYTES);
        if (chunks.get(0).getCore() != null) chunks.get(0).getCore().setFrontierLogsPublished(publishLogs && logsComplete);
        List<byte[]> encoded = new ArrayList<>(chunks.size());
        for (VerifierCheckpoint c : chunks) {
            byte[] b = wire.encode(settings.checkpointsTopic(), c);
            if (b.length > VerifierService.MAX_RECORD_BYTES - 1024) {
                LOG.info("cobra verifier: the checkpoint of round " + c.getRound() + " has a record of " + b.length
                        + " bytes, over the limit; the previous checkpoint stays the one to resume from");
                return;
            }
            encoded.add(b);
        }
        // the frontier logs that changed since the last checkpoint, in the same transaction (docs/DESIGN.md §7.9)
        if (publishLogs)
            for (Map.Entry<String, List<CollectedWrites.FrontierEntry>> e : verifier.engine().takeFrontierLogsToPublish().entrySet())
                prod.send(new ProducerRecord<>(FrontierLogs.TOPIC, e.getKey(),
                        wire.encode(FrontierLogs.TOPIC, FrontierLogs.record(e.getKey(), chunks.get(0).getRound(), e.getValue()))));
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < chunks.size(); i++) {
            VerifierCheckpoint c = chunks.get(i);
            sent.add(prod.send(new ProducerRecord<>(settings.checkpointsTopic(),
                    VerifierService.checkpointKey(c.getVerifier(), c.getRound(), c.getChunk()), encoded.get(i))));
        }
        prod.flush();
        try {
            checkpointAt = sent.get(0).get().offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing a checkpoint", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("publishing a checkpoint failed: " + e.getCause().getMessage(), e.getCause());
        }
        checkpointRound = chunks.get(0).getRound();
        verifier.engine().markCheckpoint(checkpointAt); // before the transaction commits: a crash in between leaves a mark no resume matches
    }

    /**
     * Whether the rounds just decided call for a checkpoint: none yet (a fresh start checkpoints at once), or
     * {@code checkpointEvery} rounds or more since the last one, counted in rounds (a batch of rounds counts as
     * all of them) and across restarts (the last one is known from the committed offset).
     */
    boolean checkpointDue(long lastRound) {
        int every = settings.checkpointEvery();
        return every > 0 && (checkpointRound < 0 || lastRound - checkpointRound >= every);
    }

    /**
     * After a restart: loads the checkpoint the committed offset's metadata names into {@code verifier} and
     * returns the offset on the rounds topic to read from (the checkpoint's input offset); 0 when there is
     * none or it cannot be loaded (then everything is read again, as before checkpoints existed).
     */
    long resume(RoundVerifier verifier, String metadata) {
        long at = field(metadata, "checkpoint"), round = field(metadata, "round");
        if (at < 0) return 0;
        long t0 = System.nanoTime();
        try {
            List<VerifierCheckpoint> chunks = Checkpoints.read(settings.kafka(), settings.checkpointsTopic(), wire,
                    settings.transactionalId(), at, round, Duration.ofSeconds(30));
            VerifierCore core = chunks.get(0).getCore();
            boolean published = core != null && core.getFrontierLogsPublished();
            logsComplete = core == null || core.getFrontierRecords() == 0 || published;
            // a store without the frontier logs (another host, no --state-dir): the published ones (docs/DESIGN.md §7.9)
            if (core != null && core.getFrontierRecords() > 0 && published && !verifier.engine().hasFrontierLogs()) {
                int n = FrontierLogs.importAll(settings.kafka(), wire, verifier.engine());
                LOG.warn("cobra verifier: this collected-writes store held no frontier logs; " + n + " read from " + FrontierLogs.TOPIC);
            }
            verifier.restore(chunks, restarts);
            checkpointAt = at;
            checkpointRound = round;
            resumedFromRound = round;
            resumeSeconds = (System.nanoTime() - t0) / 1e9;
            return chunks.get(0).getInputOffset();
        } catch (RuntimeException e) {
            LOG.warn("cobra verifier: cannot resume from the checkpoint of round " + round + " at " + settings.checkpointsTopic() + "@" + at
                    + " (" + e.getMessage() + "); reading " + settings.roundsTopic() + " from the beginning");
            return 0;
        }
    }
}
