package org.cobraverify.collector;

import java.nio.charset.StandardCharsets;
import org.rocksdb.OptimisticTransactionDB;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.Transaction;
import org.rocksdb.TransactionDB;
import org.rocksdb.TransactionDBOptions;
import org.rocksdb.WriteOptions;

/**
 * Embedded RocksDB with transactions: pessimistic ({@code TransactionDB}: reads take locks with
 * {@code getForUpdate}, so conflicting transactions wait or time out) or optimistic
 * ({@code OptimisticTransactionDB}: reads are validated at commit). Both are serializable as used here.
 */
public final class RocksDbStore implements KvStore {
    static { RocksDB.loadLibrary(); }

    private final Options options;
    private final RocksDB db;
    private final TransactionDB pessimistic;
    private final OptimisticTransactionDB optimistic;
    private final WriteOptions writeOptions = new WriteOptions();
    private final org.rocksdb.TransactionOptions txnOptions = new org.rocksdb.TransactionOptions().setDeadlockDetect(true);
    private final String name;

    public RocksDbStore(String path, boolean optimisticMode) throws StoreException {
        try {
            options = new Options().setCreateIfMissing(true);
            if (optimisticMode) {
                optimistic = OptimisticTransactionDB.open(options, path);
                pessimistic = null;
                db = optimistic;
            } else {
                TransactionDBOptions tdbo = new TransactionDBOptions().setTransactionLockTimeout(200);
                pessimistic = TransactionDB.open(options, tdbo, path);
                optimistic = null;
                db = pessimistic;
            }
            name = "rocksdb " + (optimisticMode ? "optimistic" : "pessimistic");
        } catch (RocksDBException e) {
            throw new StoreException("cannot open RocksDB at " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() { return name; }

    @Override
    public String version() {
        return "RocksDB " + RocksDB.rocksdbVersion();
    }

    @Override
    public KvTransaction begin() {
        Transaction t = pessimistic != null ? pessimistic.beginTransaction(writeOptions, txnOptions) : optimistic.beginTransaction(writeOptions);
        return new Txn(t);
    }

    private static StoreException map(RocksDBException e, String during) {
        Status s = e.getStatus();
        Status.Code c = s == null ? null : s.getCode();
        if (c == Status.Code.Busy || c == Status.Code.TimedOut || c == Status.Code.TryAgain || c == Status.Code.Aborted)
            return new AbortedException("rocksdb " + during + ": " + e.getMessage(), e);
        return new StoreException("rocksdb " + during + ": " + e.getMessage(), e);
    }

    private static final class Txn implements KvTransaction {
        private final Transaction t;
        private final ReadOptions ro = new ReadOptions();
        private boolean closed; // native handles are freed once: every call after that is refused or ignored

        Txn(Transaction t) { this.t = t; }

        private void requireOpen() throws StoreException {
            if (closed) throw new StoreException("rocksdb: the transaction is already over");
        }

        @Override
        public String get(String key) throws StoreException { return read(key, false); }

        @Override
        public String getForUpdate(String key) throws StoreException { return read(key, true); }

        /** A shared lock (exclusive when the key will be written) or, optimistic, a read validated at commit. */
        private String read(String key, boolean exclusive) throws StoreException {
            requireOpen();
            try {
                byte[] v = t.getForUpdate(ro, key.getBytes(StandardCharsets.UTF_8), exclusive);
                return v == null ? null : new String(v, StandardCharsets.UTF_8);
            } catch (RocksDBException e) {
                throw map(e, "read");
            }
        }

        @Override
        public void put(String key, String value) throws StoreException {
            requireOpen();
            try {
                t.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            } catch (RocksDBException e) {
                throw map(e, "write");
            }
        }

        @Override
        public void commit() throws StoreException {
            requireOpen();
            try {
                t.commit();
            } catch (RocksDBException e) {
                StoreException mapped = map(e, "commit");
                if (mapped instanceof AbortedException) {
                    try { t.rollback(); } catch (RocksDBException ignored) { /* the commit already failed */ }
                    close();
                }
                throw mapped;
            }
            close();
        }

        @Override
        public void rollback() throws StoreException {
            if (closed) return;
            try {
                t.rollback();
            } catch (RocksDBException e) {
                throw map(e, "rollback");
            } finally {
                close();
            }
        }

        private void close() {
            if (closed) return;
            closed = true;
            t.close();
            ro.close();
        }
    }

    @Override
    public void close() {
        if (pessimistic != null) pessimistic.close();
        if (optimistic != null) optimistic.close();
        writeOptions.close();
        txnOptions.close();
        options.close();
    }
}
