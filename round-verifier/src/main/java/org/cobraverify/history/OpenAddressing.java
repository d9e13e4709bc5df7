package org.cobraverify.history;

/**
 * The table moves shared by the project's open-addressing tables with removal ({@code WriterIndex}, the frontier-log
 * cache): linear probing over an array of hashes, {@link #EMPTY} marking a free slot, and each slot's {@code stride}
 * objects side by side in one array of entries ({@code entries[stride * i ...]}), so that a hit reads two cache lines.
 * Removal is by backward shift, so no tombstones build up.
 *
 * <p>Contract of the tables passed in: {@code hashes.length} is a power of two, {@code entries.length == stride *
 * hashes.length}; every occupied slot is reachable from its home slot ({@code hash & mask}) without crossing a free one
 * (both methods keep this); a stored hash is never {@link #EMPTY} ({@link #stored}).
 */
public final class OpenAddressing {
    private OpenAddressing() {}

    /** The hash of a free slot. */
    public static final int EMPTY = 0;

    /** {@code h} as a table stores it: never {@link #EMPTY}. */
    public static int stored(int h) { return h == EMPTY ? 1 : h; }

    /**
     * Frees slot {@code i}: the later entries of its probe run move back into the hole unless their home lies cyclically
     * after it. Returns nothing; afterwards slot {@code i} holds what followed it in the run, if anything moved there.
     */
    public static void remove(int[] hashes, Object[] entries, int stride, int i) {
        int mask = hashes.length - 1, j = i;
        while (true) {
            j = (j + 1) & mask;
            if (hashes[j] == EMPTY) break;
            int home = hashes[j] & mask;
            boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (stays) continue;
            System.arraycopy(entries, stride * j, entries, stride * i, stride);
            hashes[i] = hashes[j];
            i = j;
        }
        hashes[i] = EMPTY;
        java.util.Arrays.fill(entries, stride * i, stride * i + stride, null);
    }

    /** Puts every entry of the old table ({@code oldHashes}, {@code oldEntries}) into the new, empty one. */
    public static void rehash(int[] oldHashes, Object[] oldEntries, int[] hashes, Object[] entries, int stride) {
        int mask = hashes.length - 1;
        for (int i = 0; i < oldHashes.length; i++) {
            if (oldHashes[i] == EMPTY) continue;
            int j = oldHashes[i] & mask;
            while (hashes[j] != EMPTY) j = (j + 1) & mask;
            System.arraycopy(oldEntries, stride * i, entries, stride * j, stride);
            hashes[j] = oldHashes[i];
        }
    }
}
