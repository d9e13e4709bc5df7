package org.cobraverify.service;

import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.rocksdb.RocksDBException;

/**
 * The owner's collected-writes store under {@code --state-dir} (RocksDB: one process at a time holds its lock). Opening
 * it waits a while for a former owner on this host to let go of the lock, then falls back to a store of the owner's own;
 * a store left at another checkpoint than the one resumed from is discarded and opened afresh.
 *
 * <p>Contract: {@link #open} returns the store the verifier is to use (null without {@code --state-dir}: the verifier
 * then keeps one in a temporary directory, lost with the process); whoever it is given to closes it. A lock held too long
 * is waited out, not thrown; any other failure to open throws.
 */
final class StateStore {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VerifierService.class);

    /**
     * How long a new owner waits for the collected-writes store's lock before it takes a store of its own: a former
     * owner that was paused finds itself fenced when it resumes and closes the store; one that never resumes would
     * otherwise hold verification up forever.
     */
    static final long STORE_LOCK_WAIT_MILLIS = Long.getLong("cobra.storeLockWaitMillis", 60_000);

    private final VerifierService.Settings settings;
    private final BooleanSupplier running;

    StateStore(VerifierService.Settings settings, BooleanSupplier running) {
        this.settings = settings;
        this.running = running;
    }

    /**
     * The store to resume with from the checkpoint at {@code resumeFrom} on the checkpoints topic (-1: none), or null
     * when there is no {@code --state-dir}.
     */
    CollectedWrites open(long resumeFrom) {
        CollectedWrites store = settings.stateDir() == null ? null : openStore();
        // a store left at another checkpoint than the one resumed from (this host owned cobra.rounds before another one
        // did, or a copy of an old --state-dir) holds entries of an abandoned timeline at rounds the checkpoint's visibility
        // rule would accept: it is discarded (docs/DESIGN.md §8.2)
        if (store instanceof RocksDbCollectedWrites r && !r.isEmpty() && r.checkpointMark() != resumeFrom) {
            Path d = r.dir();
            LOG.info("cobra verifier: the collected-writes store in " + d + " was left at the checkpoint at " + settings.checkpointsTopic() + "@"
                    + r.checkpointMark() + ", not the one resumed from (" + (resumeFrom < 0 ? "none" : "@" + resumeFrom) + "): it is discarded");
            r.close();
            deleteTree(d);
            store = openStore();
        }
        return store;
    }

    /**
     * The collected-writes store under {@code --state-dir}. A former owner on this host that stopped responding (paused,
     * say) may still hold its lock: the new owner waits a few seconds for it, then works with a fresh store of its own
     * (deleted when it stops). That loses only what the former owner collected: a later read of one of those writes waits
     * and ends unknown, never a false verdict (A5), as on another disk.
     */
    private CollectedWrites openStore() {
        Path dir = settings.stateDir().resolve(settings.transactionalId()).resolve("collected-writes");
        long horizon = (long) (settings.rememberHours() * 3_600_000L);
        long deadline = System.nanoTime() + STORE_LOCK_WAIT_MILLIS * 1_000_000L;
        boolean said = false;
        while (true) {
            try {
                return new RocksDbCollectedWrites(dir, false, horizon, System::currentTimeMillis);
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof RocksDBException r) || r.getMessage() == null || !r.getMessage().toLowerCase().contains("lock")) throw e;
                if (System.nanoTime() > deadline || !running.getAsBoolean()) break;
                if (!said) {
                    said = true;
                    LOG.warn("cobra verifier: the collected-writes store in " + dir + " is locked by another process (a former owner that"
                            + " stopped responding?); waiting up to " + STORE_LOCK_WAIT_MILLIS / 1000 + " s for it");
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        Path own = dir.resolveSibling("collected-writes-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis());
        LOG.warn("cobra verifier: the collected-writes store in " + dir + " is still locked by another process (a former owner that stopped"
                + " responding?); working with a store of its own in " + own + ": a read of a write the former owner collected will be unknown");
        return new RocksDbCollectedWrites(own, true, horizon, System::currentTimeMillis);
    }

    private static void deleteTree(Path d) {
        if (d == null || !java.nio.file.Files.exists(d)) return;
        try (var w = java.nio.file.Files.walk(d)) {
            w.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot delete the discarded collected-writes store in " + d + ": " + e.getMessage(), e);
        }
    }
}
