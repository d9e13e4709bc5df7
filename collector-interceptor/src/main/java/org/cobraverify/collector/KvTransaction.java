package org.cobraverify.collector;

/**
 * One transaction of a {@link KvStore}. {@link #commit()} throws {@link AbortedException} when the
 * store refused to commit (the transaction certainly did not happen), and {@link StoreException} when
 * the outcome is unknown (e.g. the connection broke during commit).
 */
public interface KvTransaction {
    /** The value of {@code key}, or null if it was never written. */
    String get(String key) throws StoreException;

    /**
     * As {@link #get}, announcing that the transaction will write the key: stores that lock take the
     * write lock now rather than upgrading later (which deadlocks when two transactions do it at once).
     */
    default String getForUpdate(String key) throws StoreException { return get(key); }

    void put(String key, String value) throws StoreException;

    void commit() throws StoreException;

    void rollback() throws StoreException;
}
