package org.cobraverify.history;

import java.util.Arrays;

/** A growable array of ints: the hot-path replacement for {@code List<Integer>}. Elements 0..size()-1 are valid. */
public final class IntVec {
    private int[] a;
    private int n;

    public IntVec() { this(8); }

    public IntVec(int capacity) { a = new int[Math.max(1, capacity)]; }

    public void add(int x) {
        if (n == a.length) a = Arrays.copyOf(a, a.length * 2);
        a[n++] = x;
    }

    public int get(int i) { return a[i]; }

    public void set(int i, int x) { a[i] = x; }

    public int size() { return n; }

    public boolean isEmpty() { return n == 0; }

    public void clear() { n = 0; }

    /** Drops elements from the end so that {@code size() == newSize}; requires {@code newSize <= size()}. */
    public void shrink(int newSize) { n = newSize; }

    public int pop() { return a[--n]; }

    public int last() { return a[n - 1]; }

    public int[] toArray() { return Arrays.copyOf(a, n); }

    /** The backing array; valid up to {@link #size()}. */
    public int[] raw() { return a; }
}
