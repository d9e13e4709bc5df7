package example;

import java.nio.file.Path;
import org.cobraverify.collector.AbortedException;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.Session;
import org.cobraverify.collector.StoreException;

/**
 * An application's transactions, recorded: increments of a few counters on embedded RocksDB, each read-modify-write in a
 * transaction, through one {@link Session} per thread. The history goes to a file that {@code cobra verify} checks.
 */
public final class RecordExample {
    private RecordExample() {}

    /**
     * Runs {@code transactions} increments from {@code threads} threads on a store in {@code dir}, recording to {@code history};
     * returns how many began (committed or aborted: each is a line of the history).
     */
    public static int run(Path dir, Path history, int threads, int transactions) throws Exception {
        java.util.concurrent.atomic.AtomicInteger began = new java.util.concurrent.atomic.AtomicInteger();
        try (KvStore store = new RocksDbStore(dir.toString(), false)) {
            Recorder rec = new Recorder(store, new JsonlSink(history), Recorder.Options.defaults());
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                ts[t] = new Thread(() -> {
                    try {
                        Session s = rec.openSession(); // one per thread
                        for (int i = 0; i < transactions / threads; i++) if (increment(s, "counter-" + (i % 3))) began.incrementAndGet();
                        s.close();
                    } catch (StoreException e) {
                        throw new IllegalStateException(e);
                    }
                });
                ts[t].start();
            }
            for (Thread t : ts) t.join();
            rec.close();
        }
        return began.get();
    }

    /** One increment; false when it could not begin (the session's fence before it was aborted: nothing recorded). */
    private static boolean increment(Session s, String key) throws StoreException {
        try {
            s.begin();
        } catch (AbortedException e) {
            return false;
        }
        try {
            String v = s.read(key);
            s.write(key, Long.toString(v == null ? 1 : Long.parseLong(v) + 1));
            s.commit();
        } catch (AbortedException e) {
            // a conflict: the store rolled the transaction back, and the history records it as aborted
        }
        return true;
    }

    public static void main(String[] args) throws Exception {
        run(Path.of(args.length > 0 ? args[0] : "example-db"), Path.of(args.length > 1 ? args[1] : "history.jsonl"), 4, 1000);
    }
}
