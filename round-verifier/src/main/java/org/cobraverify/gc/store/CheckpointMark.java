package org.cobraverify.gc.store;

import java.nio.charset.StandardCharsets;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A store's checkpoint mark ({@link RocksDbCollectedWrites#markCheckpoint}): the offset of the verifier's checkpoint taken
 * of the store, the value of one key in the default family, in decimal (UTF-8); -1 read back when none was written.
 *
 * <p>Contract: {@link #write} returns once the mark is flushed to disk (the store writes no log), so a restart finds it;
 * the caller settles the store's writes first, so the mark never names a state the disk does not hold. The key holds no
 * zero byte, so no collected write's id ({@link CollectedEntryEncoding#id}) is ever the mark's. Static methods only; no state.
 */
final class CheckpointMark {
    /** The default family's key of the checkpoint mark (no collected write lives in that family). */
    private static final byte[] MARK = "checkpoint-mark".getBytes(StandardCharsets.UTF_8);

    private CheckpointMark() {}

    /** Puts {@code offset} as the mark in {@code family} of {@code db}, and flushes that family to disk. */
    static void write(RocksDB db, ColumnFamilyHandle family, long offset) throws RocksDBException {
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.put(family, MARK, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
            db.flush(fo, family);
        }
    }

    /** The mark in {@code family} of {@code db}; -1 when none was written. */
    static long read(RocksDB db, ColumnFamilyHandle family) throws RocksDBException {
        byte[] b = db.get(family, MARK);
        return b == null ? -1 : Long.parseLong(new String(b, StandardCharsets.UTF_8));
    }
}
