package org.cobraverify.workloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.KvTransaction;
import org.cobraverify.collector.StoreException;

/**
 * A store that misbehaves on purpose, wrapped around a real one, to produce histories the checker must
 * reject:
 * <ul>
 *   <li>{@link Fault#STALE_READ}: a read returns an older committed version of the key;</li>
 *   <li>{@link Fault#LOST_WRITE}: a write is acknowledged but never reaches the store;</li>
 *   <li>{@link Fault#NON_ATOMIC}: a commit is acknowledged but only its first write is applied.</li>
 * </ul>
 * Each fault strikes with the given probability per operation (per commit for non-atomic commits).
 */
public final class FaultyStore implements KvStore {
    public enum Fault {
        STALE_READ("stale-read"), LOST_WRITE("lost-write"), NON_ATOMIC("non-atomic");

        public final String cliName;

        Fault(String cliName) { this.cliName = cliName; }

        public static Fault parse(String s) {
            for (Fault f : values()) if (f.cliName.equalsIgnoreCase(s)) return f;
            throw new IllegalArgumentException("unknown fault '" + s + "' (known: stale-read, lost-write, non-atomic)");
        }
    }

    private final KvStore inner;
    private final Fault fault;
    private final double rate;
    private final Random rnd;
    /** With {@link Fault#STALE_READ}: per key, the last {@link #MAX_VERSIONS} committed values, oldest first. */
    private final Map<String, List<String>> versions = new HashMap<>();
    private static final int MAX_VERSIONS = 8;
    private final AtomicLong injected = new AtomicLong();
    private final LostWriteLedger ledger = new LostWriteLedger();

    public FaultyStore(KvStore inner, Fault fault, double rate, long seed) {
        this.inner = inner;
        this.fault = fault;
        this.rate = rate;
        this.rnd = new Random(seed);
    }

    @Override
    public String name() { return inner.name() + " with " + fault.cliName + " faults"; }

    /** Faults injected so far: stale values served, writes dropped, commits applied in part. */
    public long injected() { return injected.get(); }

    /** With {@link Fault#LOST_WRITE}: what the lost writes of committed transactions did (empty for the other faults). */
    public LostWriteLedger ledger() { return ledger; }

    private synchronized boolean strike() { return rnd.nextDouble() < rate; }

    @Override
    public KvTransaction begin() throws StoreException {
        return new Txn(inner.begin());
    }

    @Override
    public void close() throws StoreException { inner.close(); }

    private record LastWrite(LostWriteLedger.LostWrite write, boolean dropped) {}

    private final class Txn implements KvTransaction {
        private final KvTransaction t;
        private final Map<String, String> own = new HashMap<>();
        private final Map<String, String> seen = new HashMap<>(); // a stale read stays stale within the transaction
        private final List<String[]> puts = new ArrayList<>();
        /** With {@link Fault#LOST_WRITE}: per key, its last write and whether the store dropped it (for the {@link LostWriteLedger}). */
        private final Map<String, LastWrite> last = new java.util.LinkedHashMap<>();

        Txn(KvTransaction t) { this.t = t; }

        @Override
        public String get(String key) throws StoreException { return read(key, false); }

        @Override
        public String getForUpdate(String key) throws StoreException { return read(key, true); }

        private String read(String key, boolean forUpdate) throws StoreException {
            String v = forUpdate ? t.getForUpdate(key) : t.get(key);
            if (own.containsKey(key)) return own.get(key);
            if (seen.containsKey(key)) return seen.get(key);
            seen.put(key, v);
            if (fault == Fault.STALE_READ && strike()) {
                synchronized (versions) {
                    List<String> vs = versions.get(key);
                    if (vs != null && vs.size() >= 2) {
                        int i;
                        synchronized (FaultyStore.this) { i = rnd.nextInt(vs.size()); }
                        String stale = i == vs.size() - 1 ? null : vs.get(i); // an older version, or the initial state
                        seen.put(key, stale);
                        injected.incrementAndGet();
                        return stale;
                    }
                }
            }
            return v;
        }

        @Override
        public void put(String key, String value) throws StoreException {
            own.put(key, value);
            if (fault == Fault.LOST_WRITE) {
                LostWriteLedger.LostWrite w = new LostWriteLedger.LostWrite(key, value, seen.get(key), seen.containsKey(key));
                boolean lost = strike();
                last.put(key, new LastWrite(w, lost));
                if (lost) { injected.incrementAndGet(); return; }
            }
            puts.add(new String[] {key, value});
            if (fault != Fault.NON_ATOMIC) t.put(key, value);
        }

        @Override
        public void commit() throws StoreException {
            if (fault == Fault.NON_ATOMIC) {
                boolean partial = puts.size() >= 2 && strike();
                int n = partial ? 1 : puts.size();
                if (partial) injected.incrementAndGet();
                try {
                    for (int i = 0; i < n; i++) t.put(puts.get(i)[0], puts.get(i)[1]);
                } catch (StoreException e) {
                    t.rollback();
                    throw e;
                }
            }
            t.commit();
            if (fault == Fault.LOST_WRITE) {
                List<LostWriteLedger.LostWrite> dropped = new ArrayList<>(), applied = new ArrayList<>();
                for (LastWrite w : last.values()) (w.dropped() ? dropped : applied).add(w.write());
                ledger.committed(dropped, applied);
            }
            if (fault == Fault.STALE_READ) synchronized (versions) { // the versions a stale read may serve: the last few per key
                for (String[] p : puts) {
                    List<String> vs = versions.computeIfAbsent(p[0], k -> new ArrayList<>());
                    vs.add(p[1]);
                    if (vs.size() > MAX_VERSIONS) vs.remove(0);
                }
            }
        }

        @Override
        public void rollback() throws StoreException { t.rollback(); }
    }
}
