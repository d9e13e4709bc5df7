package org.cobraverify.gc.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.cobraverify.gc.CollectedWrites.FrontierEntry;
import org.cobraverify.gc.FrontierLog;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * A store's frontier logs ({@link RocksDbCollectedWrites#frontierLog}), one per key, in the frontier family
 * ({@link StoreDatabase#frontierFamily}).
 *
 * <p>Frontier logs live in a column family of their own that is never dropped: a key's latest
 * write must be known for as long as the key exists (forgetting it would let a later read of the key's initial value
 * pass). So they grow with the key space, on disk; on the heap only a cache of {@link #CACHE} logs
 * ({@link FrontierLogCache}: a round looks up each key it touches, and keys touched again are mostly cached). An append
 * changes the cached log only; the log is put when the cache evicts it, and every changed one by {@link #writeBack}
 * (the store's sync, checkpoint mark and close; write-back: a hot key appended to every few rounds is put once in a while,
 * not once per append). So RocksDB's logs may be older than the cache's, never after a sync; every read of a log looks
 * in the cache first, and a log leaves the cache only into the batch, which reads look in next ({@link WriteBehind#pending}).
 * The writes a log stops naming (pruned, rejected, replaced) become collected writes again, put to the current generation.
 *
 * <p>Contract: one caller thread; {@link #attach} before {@link #append} and {@link #importLog} (until attached, and once
 * closed, every key's log reads as empty), and {@link #writeBack} before {@link #close}. Invariants: what a read finds is the key's latest
 * log (cache, then the write-behind's pending puts, then RocksDB); {@code frontierKeys} is zero only while no key has a
 * log (it counts the keys given one since open, plus one when the family held any at open).
 */
final class FrontierLogStore {
    /**
     * Frontier logs cached on the heap (by the CLOCK rule: those not looked up since the last sweep are evicted): about 270 bytes a log of one entry, so
     * 70 MB at most. A TPC-C round looks up some 30k keys and its collection appends to 20k others: 65,536 thrashed.
     */
    static final int CACHE = 1 << 18;
    /** Keys per {@code multiGet} of {@link #prefetch}: a part of the cache, so that one batch never evicts itself. */
    static final int PREFETCH_BATCH = CACHE / 4;

    private final FrontierLogCache cache;
    private final WriteBehind writes;
    private Generations generations;
    private RocksDB db;
    private ColumnFamilyHandle family;
    private long frontierKeys;
    /** Keys whose frontier log changed since they were last taken; null: not tracked. */
    private Set<String> changedFrontiers;

    /** Logs cached {@code cacheSize} at most, written back through {@code writes}. */
    FrontierLogStore(int cacheSize, WriteBehind writes) {
        this.writes = writes;
        this.cache = new FrontierLogCache(cacheSize, this::put);
    }

    /**
     * Reads and writes the logs in {@code family} of {@code db}; the writes a log stops naming go to {@code generations}.
     * Until then, and once closed, every key's log is empty.
     */
    void attach(RocksDB db, ColumnFamilyHandle family, Generations generations) {
        if (this.db != null) throw new IllegalStateException("the frontier logs are already attached to a database");
        this.db = db;
        this.family = family;
        this.generations = generations;
        try (RocksIterator it = db.newIterator(family)) {
            it.seekToFirst();
            frontierKeys = it.isValid() ? 1 : 0; // at least one: a round looks keys up
        }
    }

    /** {@code key}'s log: the cached one, else read (and cached); none while not attached. */
    List<FrontierEntry> log(String key) {
        if (db == null) return List.of();
        List<FrontierEntry> cached = cache.get(key);
        if (cached != null) return cached;
        try {
            List<FrontierEntry> log = FrontierLog.decode(writes.read(family, CollectedEntryEncoding.frontierKey(key)));
            cache.put(key, log);
            return log;
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /** The entry of {@code key}'s log naming {@code value}; null when none does (or no key has a log). */
    FrontierEntry naming(String key, String value) {
        return frontierKeys == 0 ? null : FrontierLog.naming(log(key), value);
    }

    /** The entry of {@code key}'s cached log naming {@code value}; null when none does or the log is not cached. */
    FrontierEntry namingCached(String key, String value) {
        List<FrontierEntry> log = cache.get(key);
        return log == null ? null : FrontierLog.naming(log, value);
    }

    /**
     * Reads the logs of {@code keys} that are not cached with one {@code multiGet} (those written in a batch not yet written: from the batch) and
     * caches them, at most {@link #CACHE} at a time: a lookup each, one crossing into RocksDB instead of one
     * per key, and the later {@link #log} calls hit the cache.
     */
    void prefetch(Collection<String> keys) {
        if (db == null || frontierKeys == 0 || keys.isEmpty()) return;
        List<String> missing = new ArrayList<>(keys.size());
        for (String k : keys) if (!cache.containsKey(k)) missing.add(k);
        read(missing);
    }

    /**
     * The logs of {@code keys}, in order, with one cache lookup per key: the logs not cached are read as {@link #prefetch}
     * reads them (so a batch larger than the cache returns every log, though not all stay cached); none while not attached.
     */
    List<List<FrontierEntry>> logs(List<String> keys) {
        List<List<FrontierEntry>> out = new ArrayList<>(keys.size());
        List<Integer> at = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            List<FrontierEntry> cached = db == null ? List.of() : cache.get(keys.get(i));
            out.add(cached);
            if (cached == null) { at.add(i); missing.add(keys.get(i)); }
        }
        List<List<FrontierEntry>> read = frontierKeys == 0 ? null : read(missing);
        for (int j = 0; j < at.size(); j++) out.set(at.get(j), read == null ? List.of() : read.get(j));
        return out;
    }

    /**
     * Reads the logs of {@code keys} (none of them cached): those with a write not yet known to be written from their
     * batches ({@link WriteBehind#pending}), the rest with a {@code multiGet} per {@link #PREFETCH_BATCH}; caches them and returns
     * them in order.
     */
    private List<List<FrontierEntry>> read(List<String> keys) {
        List<List<FrontierEntry>> out = new ArrayList<>(keys.size());
        if (keys.isEmpty()) return out;
        try {
            for (int from = 0; from < keys.size(); from += PREFETCH_BATCH) {
                List<String> part = keys.subList(from, Math.min(keys.size(), from + PREFETCH_BATCH));
                byte[][] raw = new byte[part.size()][], got = new byte[part.size()][];
                List<byte[]> stored = new ArrayList<>(part.size());
                List<ColumnFamilyHandle> families = new ArrayList<>(part.size());
                for (int i = 0; i < part.size(); i++) {
                    raw[i] = CollectedEntryEncoding.frontierKey(part.get(i));
                    got[i] = writes.pending(family, raw[i]);
                    if (got[i] == null) { stored.add(raw[i]); families.add(family); }
                }
                List<byte[]> read = stored.isEmpty() ? List.of() : db.multiGetAsList(families, stored);
                for (int i = 0, j = 0; i < part.size(); i++) {
                    List<FrontierEntry> log = FrontierLog.decode(got[i] != null ? got[i] : read.get(j++));
                    cache.put(part.get(i), log);
                    out.add(log);
                }
            }
            return out;
        } catch (RocksDBException ex) {
            throw new IllegalStateException("collected-writes store: " + ex.getMessage(), ex);
        }
    }

    /**
     * Sets {@code out[i]}, for each {@code i} in {@code notFound}, to the entry of key {@code keys[i]}'s log naming
     * {@code values[i]}, if any: a frontier write collected as data whose log is not cached (the logs read in one batch, as
     * {@link #logs} reads them).
     */
    void answerFromLogs(List<String> keys, List<String> values, List<Integer> notFound, Entry[] out) {
        if (notFound.isEmpty() || frontierKeys == 0) return;
        List<String> logKeys = new ArrayList<>(notFound.size());
        for (int i : notFound) logKeys.add(keys.get(i));
        List<List<FrontierEntry>> logs = logs(logKeys);
        for (int j = 0; j < notFound.size(); j++) {
            FrontierEntry f = FrontierLog.naming(logs.get(j), values.get(notFound.get(j)));
            if (f != null) out[notFound.get(j)] = FrontierLog.asEntry(f);
        }
    }

    /**
     * Appends {@code e} to {@code key}'s log ({@link FrontierLog#append}); the writes the log stops naming are put as
     * collected writes. The changed log stays in the cache until it is written back.
     */
    void append(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) throws RocksDBException {
        requireAttached();
        List<FrontierEntry> before = log(key);
        List<FrontierEntry> after = FrontierLog.append(before, e, visible, keepFrom);
        putDropped(key, before, after);
        if (before.isEmpty()) frontierKeys++;
        cache.putChanged(key, after); // put when evicted, or by the next sync (write-back)
        if (changedFrontiers != null) changedFrontiers.add(key);
    }

    /** Replaces {@code key}'s log by {@code log} (the writes the old one named and {@code log} does not are put as collected writes). */
    void importLog(String key, List<FrontierEntry> log) throws RocksDBException {
        requireAttached();
        List<FrontierEntry> before = log(key);
        boolean had = !before.isEmpty();
        putDropped(key, before, log);
        if (!had && !log.isEmpty()) frontierKeys++;
        cache.putChanged(key, List.copyOf(log));
    }

    private void requireAttached() {
        if (db == null) throw new IllegalStateException("the frontier logs are not attached to a database");
    }

    /** Puts, as collected writes, the writes {@code before} named and {@code after} does not (the log stood for their entries). */
    private void putDropped(String key, List<FrontierEntry> before, List<FrontierEntry> after) throws RocksDBException {
        List<FrontierEntry> dropped = FrontierLog.droppedWrites(before, after);
        if (dropped.isEmpty()) return;
        ColumnFamilyHandle h = generations.current();
        for (FrontierEntry d : dropped) writes.put(h, CollectedEntryEncoding.id(key, d.value()), CollectedEntryEncoding.encode(FrontierLog.asEntry(d)));
    }

    /** Whether any key has a log. */
    boolean any() { return frontierKeys > 0; }

    /** From now on, remembers which keys' logs change ({@link #append}), until {@link #takeChanged} takes them. */
    void track() { if (changedFrontiers == null) changedFrontiers = new HashSet<>(); }

    /** The keys whose log changed since the last call (or since {@link #track}); empty when not tracking. */
    Set<String> takeChanged() {
        if (changedFrontiers == null || changedFrontiers.isEmpty()) return Set.of();
        Set<String> out = changedFrontiers;
        changedFrontiers = new HashSet<>();
        return out;
    }

    /** Puts every log changed in the cache and not yet put into the write-behind's batch. */
    void writeBack() { cache.writeBack(); }

    /** Puts {@code key}'s frontier log in the batch: the cache's {@link FrontierLogCache.WriteBack}. */
    private void put(String key, List<FrontierEntry> log) {
        writes.put(family, CollectedEntryEncoding.frontierKey(key), FrontierLog.encode(log));
    }

    /** Frontier logs on the heap now. */
    int cacheSize() { return cache.size(); }

    /** Whether {@code key}'s log is on the heap now. */
    boolean cached(String key) { return cache.containsKey(key); }

    /** Forgets the cached logs; contract: none is changed ({@link #writeBack} first). */
    void close() {
        cache.clear();
        db = null;
        family = null;
        generations = null;
    }
}
