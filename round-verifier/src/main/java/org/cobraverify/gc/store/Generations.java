package org.cobraverify.gc.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/**
 * The generations of a store's collected writes. Writes go to the
 * newest of a few <em>generations</em> (column families, each named for when it was started: {@code g-<seq>-<started at>});
 * every {@code horizon / GENERATIONS} ({@link #COUNT}) a new one starts ({@link #current}), and a generation whose successor
 * started more than {@code horizon} ago holds only writes collected longer ago than that: it is dropped whole (no compaction
 * work). So the store holds what was collected within the horizon, and a generation's worth more (a
 * generation lasts until the next collection after its span ends); a write collected longer ago is forgotten
 * ({@link #forgotten}, {@link #horizonNote}). The generations, and when each started, are the column families, so a
 * store reopened finds them. The default family holds the writes of a store written before generations existed.
 *
 * <p>Lookups ({@link #get}, {@link #getAll}) happen only for reads whose writer is not in memory, newest generation first
 * (then the default family), each through the write-behind ({@link WriteBehind#pending}) before RocksDB: rare on a
 * healthy database.
 *
 * <p>Contract: one caller thread; {@link #attach} (once per open) before any other call but {@link #forgotten} and
 * {@link #horizonNote}, {@link #close} when the store closes. Invariants: the generations are in increasing {@code seq}
 * (a new one's is the newest's plus one); when one starts, the write-behind is settled first (its batches may hold puts
 * to a generation about to be dropped); {@code forgottenBefore} never decreases.
 */
final class Generations {
    /** How many generations span the horizon. */
    static final int COUNT = 8;
    private static final String PREFIX = "g-";

    private record Generation(long startedAt, long seq, ColumnFamilyHandle handle) {}

    private final long horizonMillis;
    private final LongSupplier clock;
    /** Oldest first; the last is where writes go. */
    private final List<Generation> generations = new ArrayList<>();
    private StoreDatabase store;
    private WriteBehind writes;
    private long forgotten;
    private long forgottenBefore = -1;

    /** Generations forgetting writes collected more than {@code horizonMillis} ago by {@code clock} (milliseconds). */
    Generations(long horizonMillis, LongSupplier clock) {
        if (horizonMillis < COUNT) throw new IllegalArgumentException("a horizon of " + horizonMillis + " ms is too short");
        this.horizonMillis = horizonMillis;
        this.clock = clock;
    }

    /** Takes the generations {@code store} found on disk, and the write-behind that its puts go through. */
    void attach(StoreDatabase store, WriteBehind writes) {
        if (this.store != null) throw new IllegalStateException("the generations are already attached to a store");
        this.store = store;
        this.writes = writes;
        for (StoreDatabase.Found found : store.found()) {
            String[] f = new String(found.name(), StandardCharsets.UTF_8).substring(PREFIX.length()).split("-");
            generations.add(new Generation(Long.parseLong(f[1]), Long.parseLong(f[0]), found.handle()));
        }
        generations.sort(Comparator.comparingLong(Generation::seq));
    }

    /** The generation writes go to now: a new one when the newest is older than a generation's span; old ones dropped. */
    ColumnFamilyHandle current() throws RocksDBException {
        long now = clock.getAsLong();
        long span = horizonMillis / COUNT;
        Generation newest = generations.isEmpty() ? null : generations.get(generations.size() - 1);
        if (newest == null || now - newest.startedAt() >= span) {
            if (store == null) throw new IllegalStateException("the generations are not attached to a store");
            writes.settle(); // the batch holds puts to the generation that is ending
            long seq = newest == null ? 1 : newest.seq() + 1;
            ColumnFamilyHandle h = store.createFamily((PREFIX + seq + "-" + now).getBytes(StandardCharsets.UTF_8));
            generations.add(new Generation(now, seq, h));
            // a generation whose successor started more than the horizon ago holds nothing younger than the horizon
            while (generations.size() > 1 && now - generations.get(1).startedAt() > horizonMillis) {
                Generation old = generations.remove(0);
                forgottenBefore = Math.max(forgottenBefore, generations.get(0).startedAt());
                forgotten += store.db().getLongProperty(old.handle(), "rocksdb.estimate-num-keys"); // O(1): no scan in a round
                store.db().dropColumnFamily(old.handle());
                old.handle().close();
            }
            newest = generations.get(generations.size() - 1);
        }
        return newest.handle();
    }

    /** The entry of the collected write {@code id} names ({@link CollectedEntryEncoding#id}), newest generation first; null when none holds it. */
    Entry get(byte[] id) throws RocksDBException {
        for (int i = generations.size() - 1; i >= 0; i--) {
            byte[] v = writes.read(generations.get(i).handle(), id);
            if (v != null) return CollectedEntryEncoding.decode(v);
        }
        byte[] v = writes.read(store.defaultFamily(), id); // a store written before generations existed
        return v == null ? null : CollectedEntryEncoding.decode(v);
    }

    /**
     * Looks up the pairs {@code ask} indexes in {@code keys} and {@code values}, and sets {@code out} at the index of each
     * one found; returns the indexes of those not found, in order. Per generation (newest first, then the default family):
     * from a batch not yet written ({@link WriteBehind#pending}), else one {@code multiGet} for the pairs not found yet,
     * {@link FrontierLogStore#PREFETCH_BATCH} at a time.
     */
    List<Integer> getAll(List<String> keys, List<String> values, List<Integer> ask, Entry[] out) throws RocksDBException {
        List<ColumnFamilyHandle> families = new ArrayList<>(generations.size() + 1);
        for (int g = generations.size() - 1; g >= 0; g--) families.add(generations.get(g).handle());
        families.add(store.defaultFamily()); // a store written before generations existed
        List<Integer> notFound = new ArrayList<>();
        for (int from = 0; from < ask.size(); from += FrontierLogStore.PREFETCH_BATCH) {
            int to = Math.min(ask.size(), from + FrontierLogStore.PREFETCH_BATCH);
            byte[][] ids = new byte[to - from][];
            for (int a = from; a < to; a++) ids[a - from] = CollectedEntryEncoding.id(keys.get(ask.get(a)), values.get(ask.get(a)));
            List<Integer> missing = new ArrayList<>(to - from);
            for (int a = from; a < to; a++) missing.add(a);
            for (ColumnFamilyHandle h : families) {
                if (missing.isEmpty()) break;
                // a put not yet written first (newer than what RocksDB holds), then one multiGet for the rest
                List<Integer> stored = new ArrayList<>(missing.size());
                for (int i : missing) {
                    byte[] v = writes.pending(h, ids[i - from]);
                    if (v != null) out[ask.get(i)] = CollectedEntryEncoding.decode(v);
                    else stored.add(i);
                }
                if (stored.isEmpty()) { missing = stored; break; }
                List<ColumnFamilyHandle> hs = new ArrayList<>(stored.size());
                List<byte[]> raw = new ArrayList<>(stored.size());
                for (int i : stored) { hs.add(h); raw.add(ids[i - from]); }
                List<byte[]> found = store.db().multiGetAsList(hs, raw);
                List<Integer> still = new ArrayList<>();
                for (int j = 0; j < stored.size(); j++) {
                    byte[] v = found.get(j);
                    if (v != null) out[ask.get(stored.get(j))] = CollectedEntryEncoding.decode(v);
                    else still.add(stored.get(j));
                }
                missing = still;
            }
            for (int a : missing) notFound.add(ask.get(a));
        }
        return notFound;
    }

    /** Every generation's family, oldest first. */
    List<ColumnFamilyHandle> families() {
        List<ColumnFamilyHandle> families = new ArrayList<>(generations.size());
        for (Generation g : generations) families.add(g.handle());
        return families;
    }

    boolean isEmpty() { return generations.isEmpty(); }

    /** How many generations the store holds now. */
    int count() { return generations.size(); }

    /** Writes forgotten so far (in generations dropped by this instance; RocksDB's estimate of their keys). */
    long forgotten() { return forgotten; }

    /** Null while no generation was dropped; otherwise what a read of a forgotten write may be ({@link RocksDbCollectedWrites#horizonNote}). */
    String horizonNote() {
        if (forgottenBefore < 0) return null;
        return "or a write collected before " + Instant.ofEpochMilli(forgottenBefore) + ", which the verifier no longer remembers (it keeps "
                + horizonMillis / 3_600_000.0 + " hours of collected writes)";
    }

    /** Closes every generation's family (the store then closes the database); what was forgotten stays counted. */
    void close() {
        for (Generation g : generations) g.handle().close();
        generations.clear();
        store = null;
        writes = null;
    }
}
