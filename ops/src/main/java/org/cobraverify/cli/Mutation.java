package org.cobraverify.cli;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * One way to break an input, as a broken file arrives from a user: a flipped bit, a cut, a line
 * duplicated or moved, a number made huge or negative, deep nesting, bytes deleted or inserted.
 * {@code a} and {@code b} choose where and how much (taken modulo what the input allows), so any pair of
 * ints is a valid mutation of any input. {@link #randomList} is the one generator of them, for {@code cobra fuzz} and
 * the fuzz tests alike.
 */
public record Mutation(Kind kind, int a, int b) {
    public enum Kind { FLIP_BIT, TRUNCATE, DUPLICATE_LINE, SWAP_LINES, HUGE_NUMBER, NEGATIVE_NUMBER, DEEP_NESTING, DELETE, INSERT }

    public byte[] apply(byte[] in) {
        int n = in.length;
        int a = Math.floorMod(this.a, Math.max(1, n)), b = Math.abs(this.b % 1_000_000);
        switch (kind) {
            case FLIP_BIT -> {
                if (n == 0) return in;
                byte[] out = in.clone();
                out[a] ^= (byte) (1 << (b % 8));
                return out;
            }
            case TRUNCATE -> { return Arrays.copyOf(in, Math.floorMod(this.a, n + 1)); }
            case DUPLICATE_LINE, SWAP_LINES -> {
                List<byte[]> lines = lines(in);
                if (lines.isEmpty()) return in;
                int i = Math.floorMod(this.a, lines.size()), j = Math.floorMod(this.b, lines.size());
                if (kind == Kind.DUPLICATE_LINE) lines.add(j, lines.get(i));
                else { byte[] t = lines.get(i); lines.set(i, lines.get(j)); lines.set(j, t); }
                return join(lines);
            }
            case HUGE_NUMBER, NEGATIVE_NUMBER -> {
                List<int[]> runs = new ArrayList<>(); // digit runs: start, end
                for (int i = 0; i < n; i++) {
                    if (!Character.isDigit(in[i])) continue;
                    int s = i;
                    while (i < n && Character.isDigit(in[i])) i++;
                    runs.add(new int[] {s, i});
                }
                if (runs.isEmpty()) return in;
                int[] r = runs.get(Math.floorMod(this.a, runs.size()));
                String with = kind == Kind.HUGE_NUMBER ? "9".repeat(20 + b % 60) : "-" + (1 + b % 3);
                return splice(in, r[0], r[1], with.getBytes());
            }
            case DEEP_NESTING -> {
                int depth = 1_000 + b % 100_000;
                return splice(in, a, a, "[".repeat(depth).getBytes());
            }
            case DELETE -> { return splice(in, a, Math.min(n, a + 1 + b % 16), new byte[0]); }
            case INSERT -> { return splice(in, a, a, new byte[] {(byte) b}); }
            default -> throw new AssertionError(kind);
        }
    }

    /** One to three mutations of any kind, where and how much chosen by {@code rnd}. */
    public static List<Mutation> randomList(Random rnd) {
        List<Mutation> ms = new ArrayList<>();
        for (int k = 1 + rnd.nextInt(3); k > 0; k--)
            ms.add(new Mutation(Kind.values()[rnd.nextInt(Kind.values().length)], rnd.nextInt(), rnd.nextInt()));
        return ms;
    }

    public static byte[] applyAll(byte[] in, List<Mutation> ms) {
        for (Mutation m : ms) in = m.apply(in);
        return in;
    }

    private static byte[] splice(byte[] in, int from, int to, byte[] with) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + with.length);
        out.write(in, 0, from);
        out.write(with, 0, with.length);
        out.write(in, to, in.length - to);
        return out.toByteArray();
    }

    private static List<byte[]> lines(byte[] in) {
        List<byte[]> ls = new ArrayList<>();
        int s = 0;
        for (int i = 0; i < in.length; i++)
            if (in[i] == '\n') { ls.add(Arrays.copyOfRange(in, s, i + 1)); s = i + 1; }
        if (s < in.length) ls.add(Arrays.copyOfRange(in, s, in.length));
        return ls;
    }

    private static byte[] join(List<byte[]> ls) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] l : ls) out.write(l, 0, l.length);
        return out.toByteArray();
    }
}
