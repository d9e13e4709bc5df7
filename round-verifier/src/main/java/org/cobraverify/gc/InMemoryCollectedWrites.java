package org.cobraverify.gc;

import java.util.HashMap;
import java.util.Map;

/** {@link CollectedWrites} on the heap: grows with the history, so for tests and short runs only. */
public final class InMemoryCollectedWrites implements CollectedWrites {
    private final Map<String, Entry> map = new HashMap<>();

    @Override
    public void put(String key, String value, Entry e) { map.put(key + '\0' + value, e); }

    @Override
    public Entry get(String key, String value) { return map.get(key + '\0' + value); }

    @Override
    public long size() { return map.size(); }

    @Override
    public void close() { map.clear(); }
}
