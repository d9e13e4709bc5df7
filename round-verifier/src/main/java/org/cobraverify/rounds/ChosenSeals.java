package org.cobraverify.rounds;

import java.util.HashMap;
import java.util.Map;

/**
 * Below serializability, the keys whose latest sealed version was sealed by choice (docs/DESIGN.md §7.11, open writers): its
 * writer was left open on the key when the version before was sealed, so whether it came after that version, or after any
 * older one, is an order the collected past does not keep. A later read of an older version of such a key is not judged
 * (its reader is left unchecked) until a writer that follows the collected past seals the key again: that one follows every
 * older version. Bounded: {@link #MAX_KEYS}; past it every read of an older sealed version is left unjudged from then on.
 */
final class ChosenSeals {
    /** Keys remembered at most; then {@link #overflowed}. */
    static final int MAX_KEYS = 200_000;

    /** Per key, the round its latest version was sealed by choice. */
    private final Map<String, Long> since = new HashMap<>();
    private boolean overflowed;

    /** Whether a read of an older sealed version of {@code key} cannot be judged. */
    boolean chosen(String key) { return overflowed || (!since.isEmpty() && since.containsKey(key)); }

    /** {@code key} was sealed in {@code round} by a writer left open on it. */
    void choose(String key, long round) {
        if (overflowed) return;
        since.put(key, round);
        if (since.size() > MAX_KEYS) { overflowed = true; since.clear(); }
    }

    /** {@code key} was sealed by a writer that follows the collected past. */
    void settle(String key) { if (!since.isEmpty()) since.remove(key); }

    boolean overflowed() { return overflowed; }

    Map<String, Long> sinceCopy() { return new HashMap<>(since); }

    void restore(Map<String, Long> keys, boolean overflow) {
        since.clear();
        since.putAll(keys);
        overflowed = overflow;
    }

    void replaceWith(ChosenSeals o) { restore(o.since, o.overflowed); }

    void clear() { restore(Map.of(), false); }
}
