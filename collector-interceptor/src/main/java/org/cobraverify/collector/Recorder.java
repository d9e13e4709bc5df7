package org.cobraverify.collector;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

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

    /**
     * Settings: the fence period (a fence every {@code fenceEvery} committed transactions per session; 0: no
     * fences), the fence key, and how the period adapts: while a session's fences take more than
     * {@code fenceShare} of its time (a fence's duration against the period's transactions'), its period grows
     * towards {@code maxFenceEvery}, and shrinks back when they get cheap. {@code maxFenceEvery == fenceEvery}: fixed.
     * Each fence still reads what the previous one wrote and follows the session's transactions, so the chain and
     * session order hold at any period; a longer period only makes epochs coarser (more transactions per epoch).
     */
    public record Options(int fenceEvery, String fenceKey, int maxFenceEvery, double fenceShare) {
        public Options {
            if (fenceEvery < 0 || maxFenceEvery < fenceEvery) throw new IllegalArgumentException("fence period " + fenceEvery + ".." + maxFenceEvery);
            if (!(fenceShare > 0)) throw new IllegalArgumentException("fence share must be positive: " + fenceShare);
        }

        /** A fixed period. */
        public Options(int fenceEvery, String fenceKey) { this(fenceEvery, fenceKey, fenceEvery, 0.05); }

        /** Every 20 commits, fixed (the commands {@code cobra record} and {@code cobra overhead} adapt by default). */
        public static Options defaults() { return new Options(20, "EPOCH"); }

        /**
         * Every {@code fenceEvery} commits, up to {@code maxFenceEvery} (null: ten times {@code fenceEvery}; no less than
         * {@code fenceEvery}) while fences cost more than 2% of a session's time: the commands' {@code --max-fence-every}.
         * (2%, not 5%: measured with {@code cobra overhead --db postgres}, a fence slows the other sessions too, beyond its
         * own duration: at 5% the period settled near 45 and throughput fell 4-8%; at 2%, near 130, and 1.5-5.4%.)
         */
        public static Options adaptive(int fenceEvery, Integer maxFenceEvery) {
            return new Options(fenceEvery, "EPOCH", maxFenceEvery == null ? 10 * fenceEvery : Math.max(fenceEvery, maxFenceEvery), 0.02);
        }

        public boolean adaptive() { return maxFenceEvery > fenceEvery; }
    }

    final KvStore store;
    final HistorySink sink;
    final Options options;
    final String run;
    private final AtomicInteger sessions = new AtomicInteger();
    // counters touched by every transaction on every thread: striped, so they do not bounce between cores
    final LongAdder addedBytes = new LongAdder(), fenceTxns = new LongAdder();

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

    /** The value a history records for {@code stored}, a value as the store holds it: its write id, or itself when it carries none. */
    public static String recordedValue(String stored) {
        String[] d = decode(stored);
        return d == null ? stored : d[0];
    }

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
