package org.cobraverify.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns dense int ids (0, 1, 2, ...) to keys, values or sessions. Integer and string names live in
 * separate namespaces, so {@code 1} and {@code "1"} get different ids, as the history format requires.
 */
public final class Interner {
    private final LongIntMap longs = new LongIntMap(1024);
    private final Map<String, Integer> strings = new HashMap<>();
    private final List<Object> names = new ArrayList<>();

    public int of(long x) {
        int id = longs.get(x);
        if (id == LongIntMap.MISSING) {
            id = names.size();
            longs.put(x, id);
            names.add(x);
        }
        return id;
    }

    public int of(String s) {
        Integer id = strings.get(s);
        if (id == null) {
            id = names.size();
            strings.put(s, id);
            names.add(s);
        }
        return id;
    }

    public int size() { return names.size(); }

    /** The original name: a {@code Long} or a {@code String}. */
    public Object name(int id) { return names.get(id); }

    Object[] names() { return names.toArray(); }
}
