package org.cobraverify.gc;

/**
 * The writes of collected transactions, and for each key whose latest write was collected, its frontier log, kept exactly (never a probabilistic filter, which would invent
 * violations): a later read of one of them is a stale read (or G1a, G1b), and this is how the verifier
 * recognises it after the writer has left memory. Implementations: {@link InMemoryCollectedWrites}
 * (tests, short runs) and {@link org.cobraverify.gc.store.RocksDbCollectedWrites} (on disk: the heap
 * does not grow with the history).
 *
 * <p>Stale reads judged against it: docs/DESIGN.md §7.5; exact memory within a horizon is assumption A5.
 */
public interface CollectedWrites extends AutoCloseable {
    /** What became of a write whose transaction was collected. */
    enum Fate {
        /** The transaction committed; a frontier write of the key supersedes this one. */
        SUPERSEDED,
        /** The transaction overwrote the key itself before committing (a read of it is G1b). */
        INTERMEDIATE,
        /** The transaction aborted (a read of it is G1a). */
        ABORTED,
        /**
         * The transaction's outcome was unknown and nothing had read its writes when it was set aside: a
         * read of one makes it committed after its conflicts were collected, which cannot be judged.
         */
        UNKNOWN_OUTCOME,
        /**
         * The transaction committed and this was the latest write of the key when it was collected (a frontier write
         * collected as data, docs/DESIGN.md §7.9): whether a later read of it is current or stale is decided by the
         * key's {@link #frontierLog}, not by this entry.
         */
        FRONTIER,
        /**
         * The transaction was part of a violation and was set aside so that verification goes on (docs/DESIGN.md §7.10):
         * a later read of its write is not checked (not a violation found, not a verdict made unknown), only counted.
         */
        SET_ASIDE,
        /**
         * Below serializability (docs/DESIGN.md §7.11): the transaction committed, and the version garbage collection sealed
         * for the key supersedes this one by the check's choice, not by a fact of the history (the two writes are unordered): a
         * later read of it is not checked, only counted. Never written by serializability's rounds.
         */
        UNORDERED
    }

    /**
     * A collected write: its transaction, for a superseded one the transaction whose write of the key
     * superseded it, and the round and verifier incarnation (restart count) that collected it: after a
     * restart from a checkpoint, entries an earlier incarnation wrote after that checkpoint are ignored.
     */
    record Entry(String writer, String supersededBy, Fate fate, long round, long incarnation) {}

    /**
     * Records a collected write. A frontier write collected as data is not put: it is appended to its key's frontier log
     * ({@link #appendFrontier}), which stands for its entry ({@link FrontierLog#asEntry}) while it names the value, and
     * the store puts that entry when the log drops it; {@link #get} answers the same either way.
     */
    void put(String key, String value, Entry e);

    /**
     * One step of a key's frontier as data (docs/DESIGN.md §7.9): from round {@code round} of incarnation
     * {@code incarnation} on, the latest write of the key is {@code value}, written by the collected transaction
     * {@code writer}; or, with {@code value} null, the latest write is held in memory again and {@code writer} (a
     * retained transaction) superseded the value before it.
     */
    record FrontierEntry(String value, String writer, long round, long incarnation) {}

    /**
     * Appends to {@code key}'s frontier log, dropping entries {@code visible} rejects (an earlier incarnation's
     * after the checkpoint this one resumed from) and those no restart can need ({@link FrontierLog#append}). An entry
     * naming a value is a collected write from then on ({@link #get} finds it), and stays one when the log drops it
     * (the store puts it then: {@link FrontierLog#droppedWrites}).
     */
    void appendFrontier(String key, FrontierEntry e, java.util.function.Predicate<FrontierEntry> visible, long keepFrom);

    /** {@code key}'s frontier log, oldest first; empty if no frontier write of it was ever collected. Never null. */
    java.util.List<FrontierEntry> frontierLog(String key);

    /**
     * A hint that {@link #frontierLog} will be asked for each of {@code keys} soon: a store on disk reads the logs it does
     * not hold in memory with one batched lookup (a round asks for thousands). Changes nothing a later call returns.
     */
    default void prefetchFrontierLogs(java.util.Collection<String> keys) {}

    /** {@link #frontierLog} of each of {@code keys}, in order: a store on disk reads those it does not hold in one batch. */
    default java.util.List<java.util.List<FrontierEntry>> frontierLogs(java.util.List<String> keys) {
        prefetchFrontierLogs(keys);
        java.util.List<java.util.List<FrontierEntry>> out = new java.util.ArrayList<>(keys.size());
        for (String k : keys) out.add(frontierLog(k));
        return out;
    }

    /** Whether any frontier write was ever collected (so that a round need not look keys up). */
    boolean hasFrontiers();

    /**
     * From now on, remembers which keys' frontier logs change, until {@link #takeChangedFrontiers} takes them (a verifier
     * that publishes the logs with its checkpoints; the set is bounded by the keys collected between two of them).
     */
    void trackFrontierChanges();

    /** The keys whose frontier log changed since the last call (or since {@link #trackFrontierChanges}); empty when not tracking. */
    java.util.Set<String> takeChangedFrontiers();

    /**
     * Records, durably, that the verifier's checkpoint at {@code offset} (chunk 0 on cobra.gc-frontiers) was taken of this
     * store as it is now. A verifier resumed from another checkpoint must not trust the store (docs/DESIGN.md §8.2).
     */
    void markCheckpoint(long offset);

    /** The offset {@link #markCheckpoint} last recorded; -1 when none. */
    long checkpointMark();

    /** Whether the store holds nothing: no collected write, no frontier log, no checkpoint mark. */
    boolean isEmpty();

    /** Puts {@code log} as {@code key}'s frontier log (one read back from cobra.frontier-logs), replacing any (the writes the old one named stay collected writes). */
    void importFrontierLog(String key, java.util.List<FrontierEntry> log);

    /**
     * The entry for a write of {@code value} to {@code key}, or null if no collected transaction wrote it: the key's
     * frontier log's entry naming the value ({@link FrontierLog#asEntry}), else the one put.
     */
    Entry get(String key, String value);

    /**
     * {@link #get} of each pair ({@code keys[i]}, {@code values[i]}), in one call: a store on disk reads them with batched
     * lookups (a round asks for tens of thousands, one per read of a collected write). Element {@code i} of the result is
     * what {@code get(keys.get(i), values.get(i))} returns.
     */
    default Entry[] getAll(java.util.List<String> keys, java.util.List<String> values) {
        if (keys.size() != values.size()) throw new IllegalArgumentException(keys.size() + " keys and " + values.size() + " values");
        Entry[] out = new Entry[keys.size()];
        for (int i = 0; i < out.length; i++) out[i] = get(keys.get(i), values.get(i));
        return out;
    }

    /** How many writes have been collected (put, or appended to a frontier log as its value). */
    long size();

    /**
     * Null while every write ever collected is remembered; otherwise what a read of a forgotten one may be,
     * for the verdict that gives up waiting for its writer (an implementation bounded in time forgets).
     */
    default String horizonNote() { return null; }

    /** Makes what was put so far durable (a checkpoint is about to be committed). */
    default void sync() {}

    /** Starts writing what was put so far, without waiting for it (a collection is over; reads will wait for it). */
    default void writeBehind() {}

    @Override
    void close();
}
