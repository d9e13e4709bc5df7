package org.cobraverify.collector;

/**
 * A transactional key-value store, as the collector sees it: the user's database behind an adapter.
 * Keys and values are strings. Implementations: {@link RocksDbStore}, {@link JdbcStore}.
 */
public interface KvStore extends AutoCloseable {
    /** Starts a transaction on the calling thread's connection. */
    KvTransaction begin() throws StoreException;

    /** A short description, e.g. {@code postgres SERIALIZABLE}. */
    String name();

    @Override
    void close() throws StoreException;
}
