package org.cobraverify.history;

/** The hash finalizer of the project's open-addressing tables of strings ({@link Interner}, the verifier's writer index). */
public final class Hashing {
    private Hashing() {}

    /**
     * Murmur3's 32-bit finalizer: every input bit moves every output bit, so strings that differ only in their last
     * character (k1, k2, ..., write ids numbered in sequence), whose {@code hashCode}s are consecutive, do not fill one
     * probe run of a linearly probed table.
     */
    public static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }
}
