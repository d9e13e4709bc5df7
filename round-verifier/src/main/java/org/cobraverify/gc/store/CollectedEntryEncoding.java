package org.cobraverify.gc.store;

import java.nio.charset.StandardCharsets;
import org.cobraverify.gc.CollectedWrites.Entry;
import org.cobraverify.gc.CollectedWrites.Fate;

/**
 * The bytes {@link RocksDbCollectedWrites} keeps on disk for a collected write and a frontier log's key: a collected write's
 * id (its key in a generation, {@link #id}), its entry ({@link #encode}, read back by {@link #decode}), and a frontier log's
 * key in the frontier family ({@link #frontierKey}; the log itself is {@link org.cobraverify.gc.FrontierLog#encode}'s).
 *
 * <p>Contract: a state directory outlives a build, so every layout here stays byte for byte what it is, and
 * {@code decode(encode(e))} equals {@code e}. An id always holds a zero byte (between the key and the value), so it is
 * never a key without one, such as {@link CheckpointMark}'s. Static methods only; no state.
 */
final class CollectedEntryEncoding {
    private CollectedEntryEncoding() {}

    /** A collected write's key in its generation: the key's and the value's UTF-8 bytes, a zero byte between them. */
    static byte[] id(String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8), v = value.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1 + v.length];
        System.arraycopy(k, 0, out, 0, k.length);
        System.arraycopy(v, 0, out, k.length + 1, v.length);
        return out;
    }

    /** A frontier log's key in the frontier family: the key's UTF-8 bytes. */
    static byte[] frontierKey(String key) { return key.getBytes(StandardCharsets.UTF_8); }

    /**
     * A collected write's entry, as text in UTF-8: its fate's ordinal (one digit), the writer, then zero-byte separated the
     * superseding writer (empty for none), the round and the incarnation in decimal; {@link #decode} reads it back. Built
     * into one array of the exact size (string concatenation, with its decimal conversions, was 4% of a TPC-C round).
     */
    static byte[] encode(Entry e) {
        assert e.fate().ordinal() <= 9 : "a fate's ordinal is one digit: " + e.fate();
        byte[] w = String.valueOf(e.writer()).getBytes(StandardCharsets.UTF_8);
        byte[] by = e.supersededBy() == null ? new byte[0] : e.supersededBy().getBytes(StandardCharsets.UTF_8);
        int roundLength = decimalLength(e.round()), incarnationLength = decimalLength(e.incarnation());
        byte[] out = new byte[1 + w.length + 1 + by.length + 1 + roundLength + 1 + incarnationLength];
        int at = 0;
        out[at++] = (byte) ('0' + e.fate().ordinal());
        System.arraycopy(w, 0, out, at, w.length);
        at += w.length + 1; // (the separator: arrays start zeroed)
        System.arraycopy(by, 0, out, at, by.length);
        at += by.length + 1;
        putDecimal(out, at, roundLength, e.round());
        at += roundLength + 1;
        putDecimal(out, at, incarnationLength, e.incarnation());
        assert at + incarnationLength == out.length : "an entry fills its array exactly";
        return out;
    }

    /** The characters of {@code v} in decimal, its sign included. */
    static int decimalLength(long v) {
        int n = v < 0 ? 2 : 1;
        for (long q = v < 0 ? v : -v; q <= -10; q /= 10) n++; // on the negative magnitude: Long.MIN_VALUE has no positive one
        return n;
    }

    /** Writes {@code v} in decimal into {@code b[from, from + length)}, {@code length} being its {@link #decimalLength}. */
    private static void putDecimal(byte[] b, int from, int length, long v) {
        long q = v < 0 ? v : -v;
        int i = from + length - 1;
        do {
            b[i--] = (byte) ('0' - q % 10);
            q /= 10;
        } while (q != 0);
        if (v < 0) b[from] = '-';
    }

    /** The entry {@link #encode} wrote into {@code b}. */
    static Entry decode(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        String[] f = s.substring(1).split("\0", -1);
        Fate fate = Fate.values()[s.charAt(0) - '0'];
        return new Entry(f[0], f[1].isEmpty() ? null : f[1], fate, Long.parseLong(f[2]), Long.parseLong(f[3]));
    }
}
