package org.cobraverify.io;

/**
 * The strings a reader made last, one per slot of a fixed table (direct-mapped by hash): {@link #of} gives back the
 * string held for the same characters instead of making another, and otherwise makes one and holds it in that slot,
 * replacing what was there. A history names the same keys over and over (TPC-C's hot rows, and a read-modify-write
 * names its key twice), a read names a value a write named a little earlier, and every transaction names its session
 * and status: with a table of 65,536 keys, 69% of a TPC-C file's key strings and 19% of its values are not made again,
 * and the verifier's comparisons of them are identity checks.
 *
 * <p>Invariant: each slot holds null or a string; {@link #of} returns a string equal to the characters it is given
 * (so nothing a check decides can change). Memory: {@code slots} references and the strings they hold, whatever the
 * file's size.
 */
final class RecentStrings {
    private final String[] held;
    /** Each held string's hash code: a slot whose hash differs is passed over without reading its string (a cache miss). */
    private final int[] hashes;
    private final int mask;

    /** A table of {@code slots} strings (a power of two). */
    RecentStrings(int slots) {
        if (slots < 1 || Integer.bitCount(slots) != 1) throw new IllegalArgumentException("slots must be a power of two: " + slots);
        held = new String[slots];
        hashes = new int[slots];
        mask = slots - 1;
    }

    /** A string of {@code chars[off, off + len)}: the one held for them, else a new one (then held). */
    String of(char[] chars, int off, int len) {
        int h = 0;
        for (int i = off, end = off + len; i < end; i++) h = 31 * h + chars[i]; // String.hashCode's, so the string caches it
        int slot = (h ^ (h >>> 16)) & mask;
        if (hashes[slot] == h) {
            String s = held[slot];
            if (s != null && s.length() == len && same(s, chars, off)) return s;
        }
        String s = new String(chars, off, len);
        s.hashCode(); // computed now, while the characters are in the cache: the verifier hashes every key and value later
        held[slot] = s;
        hashes[slot] = h;
        return s;
    }

    private static boolean same(String s, char[] chars, int off) {
        for (int i = 0, n = s.length(); i < n; i++) if (s.charAt(i) != chars[off + i]) return false;
        return true;
    }
}
