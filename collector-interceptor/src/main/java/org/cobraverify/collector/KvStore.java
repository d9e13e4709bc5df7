package org.cobraverify.collector;

/**
 * A transactional key-value store, as the collector sees it: the user's database behind an adapter.
 * Keys and values are strings. Implementations: {@link RocksDbStore}, {@link JdbcStore}.
 */
public interface KvStore extends AutoCloseable {
    /** Starts a transaction on the calling thread's connection. */
    KvTransaction begin() throws StoreException;

    /**
     * Optional: replaces the value of {@code key}, which must exist, with {@code value} in one committed
     * atomic step, and returns the value it replaced; null when the store cannot (then the caller runs a
     * read-modify-write transaction) or the key does not exist yet. A fence is such a step: one round trip
     * and a lock held for one statement, instead of a serializable transaction that conflicts with every
     * other fence. Contract: atomic (no write of the key between the read and the write), visible when it
     * returns and durable no later than the store's next synchronous commit (PostgreSQL's swap commits
     * asynchronously); {@link AbortedException}: nothing happened; another {@link StoreException}: unknown outcome.
     */
    default String swap(String key, String value) throws StoreException { return null; }

    /**
     * Optional, with {@link #swap}: creates {@code key} with {@code value} in one committed atomic step if it does not
     * exist (the write read the initial state); false when it exists already (nothing happened) or the store cannot
     * (then the caller runs a read-modify-write transaction). The first fence of sessions that start together: one
     * creates the key, the others find it and swap, instead of all racing through serializable transactions.
     */
    default boolean createIfAbsent(String key, String value) throws StoreException { return false; }

    /**
     * Optional: makes the calling thread's connection ready (opens it), so that a benchmark can start its clock after
     * every client has connected: connecting (about 60-100 ms per PostgreSQL backend on two cores) is not what it measures.
     */
    default void connectThread() throws StoreException {}

    /** A short description, e.g. {@code postgres SERIALIZABLE}. */
    String name();

    /** The database's product name and version as it reports them (e.g. {@code PostgreSQL 15.20}); empty when unknown. */
    default String version() throws StoreException { return ""; }

    @Override
    void close() throws StoreException;
}
