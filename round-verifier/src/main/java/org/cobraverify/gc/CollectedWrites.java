package org.cobraverify.gc;

/**
 * The writes of collected transactions, kept exactly (never a probabilistic filter, which would invent
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
        UNKNOWN_OUTCOME
    }

    /**
     * A collected write: its transaction, for a superseded one the transaction whose write of the key
     * superseded it, and the round and verifier incarnation (restart count) that collected it: after a
     * restart from a checkpoint, entries an earlier incarnation wrote after that checkpoint are ignored.
     */
    record Entry(String writer, String supersededBy, Fate fate, long round, long incarnation) {}

    void put(String key, String value, Entry e);

    /** The entry for a write of {@code value} to {@code key}, or null if no collected transaction wrote it. */
    Entry get(String key, String value);

    /** How many writes have been collected. */
    long size();

    /**
     * Null while every write ever collected is remembered; otherwise what a read of a forgotten one may be,
     * for the verdict that gives up waiting for its writer (an implementation bounded in time forgets).
     */
    default String horizonNote() { return null; }

    /** Makes what was put so far durable (a checkpoint is about to be committed). */
    default void sync() {}

    @Override
    void close();
}
