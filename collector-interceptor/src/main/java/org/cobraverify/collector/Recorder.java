package org.cobraverify.collector;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The collector: wraps a {@link KvStore} so that every transaction the application runs through a
 * {@link Session} is recorded to a {@link HistorySink}, every written value carries a unique write id,
 * and every session runs a fence transaction every {@code fenceEvery} committed transactions.
 *
 * <p>Stored values look like {@code #<writeId>|<application value>}; the id is stripped before the
 * application sees a value. Write ids are {@code <run>.<session>.<n>} (run: 8 random hex digits after
 * an {@code r}; session and n in base 36), unique across runs of the same store. A stored value without a valid id is recorded as a read of the value {@code untagged:<value>},
 * which no write produced, so the checker reports it.
 */
public final class Recorder implements AutoCloseable {
    static final char TAG = '#', END = '|';

    /** Settings: fence period (0 = no fences) and the fence key. */
    public record Options(int fenceEvery, String fenceKey) {
        public static Options defaults() { return new Options(20, "EPOCH"); }
    }

    final KvStore store;
    final HistorySink sink;
    final Options options;
    final String run;
    private final AtomicInteger sessions = new AtomicInteger();
    // counters touched by every transaction on every thread: striped, so they do not bounce between cores
    final java.util.concurrent.atomic.LongAdder addedBytes = new java.util.concurrent.atomic.LongAdder(), fenceTxns = new java.util.concurrent.atomic.LongAdder();

    public Recorder(KvStore store, HistorySink sink, Options options) {
        this.store = store;
        this.sink = sink;
        this.options = options;
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder("r");
        for (byte x : b) sb.append(String.format("%02x", x));
        run = sb.toString();
    }

    /** A new session: use it from one thread only; its transactions do not overlap. */
    public Session openSession() {
        return new Session(this, sessions.incrementAndGet());
    }

    public KvStore store() { return store; }

    /** Bytes the library added to stored values (write ids) and through fence transactions so far. */
    public long addedBytes() { return addedBytes.sum(); }

    public long fenceTransactions() { return fenceTxns.sum(); }

    static String encode(String writeId, String value) { return TAG + writeId + END + value; }

    /** {@code {writeId, appValue}} of a stored value, or null when it carries no valid id. */
    static String[] decode(String stored) {
        if (stored == null || stored.isEmpty() || stored.charAt(0) != TAG) return null;
        int end = stored.indexOf(END, 1);
        if (end <= 1) return null;
        return new String[] {stored.substring(1, end), stored.substring(end + 1)};
    }

    /** Flushes and closes the sink (the store is the caller's). */
    @Override
    public void close() throws Exception {
        sink.close();
    }
}
