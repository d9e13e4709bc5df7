package org.cobraverify.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Assigns dense int ids (0, 1, 2, ...) to keys, values or sessions. Integer and string names live in
 * separate namespaces, so {@code 1} and {@code "1"} get different ids, as the history format requires.
 * Strings are found in an open-addressing table (linear probing, at most half full) of the strings and their
 * ids: one array probe per lookup, no boxed ids, no nodes.
 */
public final class Interner {
    private final LongIntMap longs = new LongIntMap(1024);
    private String[] strings;
    private int[] stringIds, stringHashes;
    private int stringCount;
    private final List<Object> names;
    /** The name a string stands for (null: itself): an interner of texts that encode names keeps the names for reports. */
    private final java.util.function.Function<String, Object> nameOf;

    public Interner() { this(32); }

    /** An interner sized for about {@code expected} strings (it grows past them). */
    public Interner(int expected) { this(expected, null); }

    /**
     * An interner of texts, each standing for the name {@code nameOf} gives (a {@code Long} or a {@code String}): strings are
     * still told apart as texts (two texts, two ids), and {@link #name} gives the name each stands for. For texts that encode
     * names injectively (the wire's, {@code WireNames}), so that reports show {@code 1} and {@code "1"} as the history did.
     */
    public Interner(int expected, java.util.function.Function<String, Object> nameOf) {
        this.nameOf = nameOf;
        int cap = Integer.highestOneBit(Math.max(32, expected) * 2 - 1) << 1;
        strings = new String[cap];
        stringIds = new int[cap];
        stringHashes = new int[cap];
        names = new ArrayList<>(Math.max(16, expected));
    }

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
        int h = Hashing.mix(s.hashCode());
        int mask = strings.length - 1, i = h & mask;
        for (String e; (e = strings[i]) != null; i = (i + 1) & mask)
            if (stringHashes[i] == h && (e == s || e.equals(s))) return stringIds[i];
        int id = names.size();
        strings[i] = s;
        stringIds[i] = id;
        stringHashes[i] = h;
        names.add(nameOf == null ? s : nameOf.apply(s));
        if (++stringCount * 2 > strings.length) growStrings();
        return id;
    }

    /** The id of {@code s}, or -1 when it has none (nothing is added). */
    public int find(String s) {
        int h = Hashing.mix(s.hashCode());
        int mask = strings.length - 1;
        for (int i = h & mask; strings[i] != null; i = (i + 1) & mask)
            if (stringHashes[i] == h && (strings[i] == s || strings[i].equals(s))) return stringIds[i];
        return -1;
    }

    /**
     * A new id named {@code s} that lookups never return ({@link #of} of an equal string gives another id): for a name
     * that must stay apart from those interned (a synthetic session).
     */
    public int fresh(String s) {
        int id = names.size();
        names.add(s);
        return id;
    }

    private void growStrings() {
        String[] old = strings;
        int[] oldIds = stringIds, oldHashes = stringHashes;
        strings = new String[old.length * 2];
        stringIds = new int[old.length * 2];
        stringHashes = new int[old.length * 2];
        int mask = strings.length - 1;
        for (int j = 0; j < old.length; j++) {
            if (old[j] == null) continue;
            int i = oldHashes[j] & mask;
            while (strings[i] != null) i = (i + 1) & mask;
            strings[i] = old[j];
            stringIds[i] = oldIds[j];
            stringHashes[i] = oldHashes[j];
        }
    }

    public int size() { return names.size(); }

    /** An empty interner that maps texts to names as this one does. */
    public Interner sibling(int expected) { return new Interner(expected, nameOf); }

    /** The original name: a {@code Long} or a {@code String}. */
    public Object name(int id) { return names.get(id); }

    Object[] names() { return names.toArray(); }
}
