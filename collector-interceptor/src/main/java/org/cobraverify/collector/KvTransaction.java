package org.cobraverify.collector;

/**
 * One transaction of a {@link KvStore}. {@link #commit()} throws {@link AbortedException} when the
 * store refused to commit (the transaction certainly did not happen), and {@link StoreException} when
 * the outcome is unknown (e.g. the connection broke during commit).
 */
public interface KvTransaction {
    /** The value of {@code key}, or null if it was never written. */
    String get(String key) throws StoreException;

    void put(String key, String value) throws StoreException;

    void commit() throws StoreException;

    void rollback() throws StoreException;
}
