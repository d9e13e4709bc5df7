package org.cobraverify.history;

import java.util.Arrays;

/**
 * Open-addressing hash map from {@code long} to non-negative {@code int}, with linear probing.
 * Absent keys read as {@link #MISSING}. No boxing; used for (key, value) write indexes and interning.
 */
public final class LongIntMap {
    public static final int MISSING = -1;
    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys;
    private int[] vals;
    private int size;
    private boolean hasEmptyKey;
    private int emptyKeyVal = MISSING;

    public LongIntMap() { this(16); }

    /** Two ints as one key (a (key, value) write id, an edge): {@code high} in the upper half, {@code low} in the lower. */
    public static long pack(int high, int low) { return ((long) high << 32) | (low & 0xffffffffL); }

    public LongIntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[cap];
        Arrays.fill(keys, EMPTY);
        vals = new int[cap];
    }

    private static int mix(long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    public int get(long k) {
        if (k == EMPTY) return hasEmptyKey ? emptyKeyVal : MISSING;
        int mask = keys.length - 1;
        for (int i = mix(k) & mask; ; i = (i + 1) & mask) {
            long kk = keys[i];
            if (kk == k) return vals[i];
            if (kk == EMPTY) return MISSING;
        }
    }

    /** Associates {@code v} with {@code k}; returns the previous value or {@link #MISSING}. */
    public int put(long k, int v) {
        if (k == EMPTY) {
            int old = hasEmptyKey ? emptyKeyVal : MISSING;
            if (!hasEmptyKey) size++;
            hasEmptyKey = true;
            emptyKeyVal = v;
            return old;
        }
        if ((size + 1) * 2 > keys.length) grow();
        int mask = keys.length - 1;
        for (int i = mix(k) & mask; ; i = (i + 1) & mask) {
            long kk = keys[i];
            if (kk == k) { int old = vals[i]; vals[i] = v; return old; }
            if (kk == EMPTY) { keys[i] = k; vals[i] = v; size++; return MISSING; }
        }
    }

    /** Returns the value of {@code k}, inserting {@code v} first if absent. */
    public int putIfAbsent(long k, int v) {
        int old = get(k);
        if (old != MISSING) return old;
        put(k, v);
        return v;
    }

    public int size() { return size; }

    private void grow() {
        long[] ok = keys;
        int[] ov = vals;
        keys = new long[ok.length * 2];
        Arrays.fill(keys, EMPTY);
        vals = new int[ov.length * 2];
        int mask = keys.length - 1;
        for (int j = 0; j < ok.length; j++) {
            long k = ok[j];
            if (k == EMPTY) continue;
            int i = mix(k) & mask;
            while (keys[i] != EMPTY) i = (i + 1) & mask;
            keys[i] = k;
            vals[i] = ov[j];
        }
    }
}
