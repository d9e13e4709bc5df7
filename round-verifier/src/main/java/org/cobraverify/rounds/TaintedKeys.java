package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys that transactions set aside after violations wrote (docs/DESIGN.md §7.10), held by {@link HeldTransactions}:
 * per key, the round it was tainted in and the transactions that were held and had written it then (kept until the key
 * is cleared, even once they are collected: their writes of it came before the violation); past the bounds, the oldest keys
 * in {@link TaintOverflow}.
 *
 * <p>Invariants, asserted by {@link #invariantsHold}: the keys remembered one by one and the keys with a writer set are
 * the same keys; at most {@link #MAX_KEYS} keys and {@link #MAX_WRITERS} writers after {@link #bound}; the overflow forgets no
 * key it was given.
 */
final class TaintedKeys {
    /**
     * Tainted keys remembered one by one, and their writers from before the taint; past either, the oldest keys go to
     * {@link TaintOverflow}, where every read of them is untestable from then on.
     */
    static final int MAX_KEYS = 65_536, MAX_WRITERS = 262_144;

    private final Map<String, Long> since = new HashMap<>();
    private final Map<String, Set<String>> writers = new HashMap<>();
    /** Tainted keys no longer remembered one by one; null until the first. */
    private TaintOverflow overflow;

    /** Whether no key is tainted, remembered or in the overflow. */
    boolean none() { return since.isEmpty() && overflow == null; }

    /** Whether no key is remembered one by one. */
    boolean isEmpty() { return since.isEmpty(); }

    /** Keys remembered one by one. */
    int size() { return since.size(); }

    /** Keys only in the overflow filter. */
    long forgotten() { return overflow == null ? 0 : overflow.keys(); }

    /** The round {@code key} was tainted in, or null when it is not remembered one by one. */
    Long since(String key) { return since.get(key); }

    /** Whether {@code key} may be in the overflow filter (every read of it is untestable). */
    boolean mayBeForgotten(String key) { return overflow != null && overflow.mightContain(key); }

    /** The writers of {@code key} from before its taint (unmodifiable), or null when it is not remembered one by one. */
    Set<String> writersBefore(String key) {
        Set<String> w = writers.get(key);
        return w == null ? null : Collections.unmodifiableSet(w);
    }

    /** Taints {@code key} in {@code round}, unless it is tainted already (its round and writers stay). */
    void taint(String key, long round) {
        since.putIfAbsent(key, round);
        writers.computeIfAbsent(key, k -> new HashSet<>());
    }

    /** Adds {@code txn} to the writers from before the taint of {@code key}, tainted already. */
    void addWriterBefore(String key, String txn) { writers.get(key).add(txn); }

    /** Clears {@code key}: a collection showed that every write of it from before the taint precedes a later one. */
    void clear(String key) {
        since.remove(key);
        writers.remove(key);
    }

    /** The keys remembered one by one (unmodifiable). */
    Set<String> keys() { return Collections.unmodifiableSet(since.keySet()); }

    /**
     * Keeps the taint within its bounds: past {@link #MAX_KEYS} keys or {@link #MAX_WRITERS} writers, the keys tainted first
     * go to the overflow filter until a quarter of the room is free again. Returns how many went.
     */
    int bound() {
        long w = 0;
        for (Set<String> s : writers.values()) w += s.size();
        if (since.size() <= MAX_KEYS && w <= MAX_WRITERS) return 0;
        List<Map.Entry<String, Long>> byAge = new ArrayList<>(since.entrySet());
        byAge.sort(Map.Entry.comparingByValue());
        if (overflow == null) overflow = new TaintOverflow();
        int moved = 0;
        for (Map.Entry<String, Long> e : byAge) {
            if (since.size() - moved <= MAX_KEYS * 3 / 4 && w <= MAX_WRITERS * 3L / 4) break;
            overflow.add(e.getKey());
            Set<String> gone = writers.remove(e.getKey());
            if (gone != null) w -= gone.size();
            moved++;
        }
        for (Map.Entry<String, Long> e : byAge.subList(0, moved)) since.remove(e.getKey());
        return moved;
    }

    // ---- checkpoints

    /** The rounds of the keys remembered one by one, as a new map. */
    Map<String, Long> sinceCopy() { return new HashMap<>(since); }

    /** The writers from before each key's taint, as new lists. */
    Map<String, List<String>> writersCopy() {
        Map<String, List<String>> out = new HashMap<>();
        for (Map.Entry<String, Set<String>> e : writers.entrySet()) out.put(e.getKey(), new ArrayList<>(e.getValue()));
        return out;
    }

    /** The overflow filter's bytes, or null when there is none. */
    byte[] overflowBytes() { return overflow == null ? null : overflow.encode(); }

    /** Restores a checkpoint's taint into this (empty) one; a key without writers gets an empty set. */
    void restore(Map<String, Long> keys, Map<String, Set<String>> writersBefore, byte[] overflowBytes) {
        if (!since.isEmpty() || overflow != null) throw new IllegalStateException("restore needs an empty taint");
        since.putAll(keys);
        writers.putAll(writersBefore);
        for (String key : since.keySet()) writers.putIfAbsent(key, new HashSet<>());
        overflow = overflowBytes == null ? null : TaintOverflow.decode(overflowBytes);
    }

    void clearAll() {
        since.clear();
        writers.clear();
        overflow = null;
    }

    /** Replaces this taint by a copy of {@code o}'s. */
    void replaceWith(TaintedKeys o) {
        since.clear();
        since.putAll(o.since);
        writers.clear();
        for (Map.Entry<String, Set<String>> e : o.writers.entrySet()) writers.put(e.getKey(), new HashSet<>(e.getValue()));
        overflow = o.overflow == null ? null : o.overflow.copy();
    }

    /** The invariants above (for assertions). */
    boolean invariantsHold() {
        return since.keySet().equals(writers.keySet());
    }
}
