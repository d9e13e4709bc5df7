package org.cobraverify.rounds;

import java.util.HashMap;
import java.util.Map;
import org.cobraverify.schemas.Transaction;

/**
 * Which transaction installed each (key, value) write id: a map of maps, so that a lookup hashes the strings the
 * operations already hold (their hash codes are cached) and allocates nothing. (It was one map keyed by
 * {@code key + '\0' + value}: a new string, hashed anew, for every read of every round's history.)
 */
final class WriterIndex {
    private final Map<String, Map<String, Transaction>> byKey = new HashMap<>();
    private int size;

    Transaction get(String key, String value) {
        Map<String, Transaction> m = byKey.get(key);
        return m == null ? null : m.get(value);
    }

    boolean contains(String key, String value) { return get(key, value) != null; }

    /** Records {@code t} as the writer unless one is recorded already (the first write of a value wins). */
    void putIfAbsent(String key, String value, Transaction t) {
        if (byKey.computeIfAbsent(key, k -> new HashMap<>(4)).putIfAbsent(value, t) == null) size++;
    }

    void remove(String key, String value) {
        Map<String, Transaction> m = byKey.get(key);
        if (m == null || m.remove(value) == null) return;
        size--;
        if (m.isEmpty()) byKey.remove(key);
    }

    int size() { return size; }

    void clear() { byKey.clear(); size = 0; }

    WriterIndex copy() {
        WriterIndex c = new WriterIndex();
        byKey.forEach((k, m) -> c.byKey.put(k, new HashMap<>(m)));
        c.size = size;
        return c;
    }

    void replaceWith(WriterIndex other) {
        byKey.clear();
        other.byKey.forEach((k, m) -> byKey.put(k, new HashMap<>(m)));
        size = other.size;
    }
}
