package org.cobraverify.rounds;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The tainted keys a verifier no longer remembers one by one (docs/DESIGN.md §7.10): past {@link TaintedKeys#MAX_KEYS},
 * the oldest tainted keys move here, a Bloom filter of fixed size. A read of a key it may hold is untestable unless it reads
 * its own write or a set-aside one: the key's writes from before the taint can no longer be told from later ones. A false
 * positive makes a read untestable that was not (its round's own outcome unknown), never the reverse: the filter forgets no
 * key. Its rate grows with the keys in it: about 3% at a million keys, half at ten million (2^23 bits, three hashes).
 */
final class TaintOverflow {
    /** Bits in the filter: 1 MiB. */
    static final int BITS = 1 << 23;
    private static final int HASHES = 3;

    private final long[] words;
    private long keys;

    TaintOverflow() { this(new long[BITS / 64], 0); }

    private TaintOverflow(long[] words, long keys) {
        this.words = words;
        this.keys = keys;
    }

    /** Remembers {@code key} as possibly tainted, for good. */
    void add(String key) {
        long h = hash(key);
        int a = (int) h, b = (int) (h >>> 32);
        for (int i = 0; i < HASHES; i++) {
            int bit = Math.floorMod(a + i * b, BITS);
            words[bit >>> 6] |= 1L << bit;
        }
        keys++;
    }

    /** Whether {@code key} may have been added (false: it was not). */
    boolean mightContain(String key) {
        long h = hash(key);
        int a = (int) h, b = (int) (h >>> 32);
        for (int i = 0; i < HASHES; i++) {
            int bit = Math.floorMod(a + i * b, BITS);
            if ((words[bit >>> 6] & (1L << bit)) == 0) return false;
        }
        return true;
    }

    /** How many keys were added. */
    long keys() { return keys; }

    /** Two 32-bit hashes of the key's UTF-8 bytes (CRC32C of the bytes, and of the bytes reversed), as one long. */
    private static long hash(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        CRC32C c = new CRC32C();
        c.update(b);
        long h1 = c.getValue();
        c.reset();
        for (int i = b.length - 1; i >= 0; i--) c.update(b[i]);
        long h2 = c.getValue() | 1; // odd: every step reaches other bits
        return (h2 << 32) | h1;
    }

    TaintOverflow copy() { return new TaintOverflow(words.clone(), keys); }

    /** The filter as bytes (for checkpoints): its key count, then its words. */
    byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(8 + words.length * 8);
        out.putLong(keys);
        for (long w : words) out.putLong(w);
        return out.array();
    }

    /** The filter {@link #encode} wrote; throws {@link IllegalArgumentException} when the bytes are not one. */
    static TaintOverflow decode(byte[] bytes) {
        if (bytes.length != 8 + BITS / 8) throw new IllegalArgumentException("checkpoint: a tainted-key filter of " + bytes.length + " bytes, expected " + (8 + BITS / 8));
        ByteBuffer in = ByteBuffer.wrap(bytes);
        long keys = in.getLong();
        long[] words = new long[BITS / 64];
        for (int i = 0; i < words.length; i++) words[i] = in.getLong();
        return new TaintOverflow(words, keys);
    }
}
