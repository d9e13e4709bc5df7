package org.cobraverify.schemas.protocol;

/**
 * How a key, a value or a session travels as text: on the wire ({@code Operation}, {@code Transaction}), in checkpoints,
 * frontier logs and the collected-write store. A history names each of them by an integer or a string, and {@code 1} and
 * {@code "1"} are different names (docs/history-format.md); the text form keeps them apart, so that comparing texts compares
 * names everywhere a history travels:
 *
 * <ul>
 *   <li>an integer is its decimal text, canonical: {@code 1}, {@code -7} (no sign on zero, no leading zero);
 *   <li>a string that is such a text after zero or more double quotes ({@code 1}, {@code "1}, {@code ""-7}) gets one
 *       double quote more in front: the string {@code 1} travels as {@code "1};
 *   <li>every other string travels as it is (the write ids and keys a collector records, {@code w:1:3}, {@code "x}).
 * </ul>
 *
 * <p>This is a bijection between texts and names: {@link #name} inverts {@link #of}, and {@link #of} inverts {@link #name}
 * on every text, so a name read back from a text and written again gives the same text, even for a text recorded before
 * the encoding existed.
 */
public final class WireNames {
    private WireNames() {}

    /** The text of an integer name. */
    public static String of(long n) { return Long.toString(n); }

    /** The text of a string name. */
    public static String of(String s) { return quotedLong(s) ? '"' + s : s; }

    /** The text of a name that is a {@link Long} (an integer) or anything else (its string). */
    public static String of(Object name) {
        return name instanceof Long l ? of(l.longValue()) : name instanceof Integer i ? of(i.longValue()) : of(String.valueOf(name));
    }

    /** The name a text stands for: a {@link Long} for an integer's text, else the {@link String} it encodes. */
    public static Object name(String text) {
        if (isCanonicalLong(text)) return Long.parseLong(text);
        return quotedLong(text) ? text.substring(1) : text;
    }

    /** Whether the text stands for an integer name. */
    public static boolean isInteger(String text) { return isCanonicalLong(text); }

    /** Whether {@code s} is a canonical integer's text after zero or more double quotes. */
    private static boolean quotedLong(String s) {
        int q = 0;
        while (q < s.length() && s.charAt(q) == '"') q++;
        return isCanonicalLong(q == 0 ? s : s.substring(q));
    }

    /** Whether {@code s} is what {@link Long#toString(long)} gives for some long. */
    static boolean isCanonicalLong(String s) {
        int n = s.length();
        if (n == 0 || n > 20) return false;
        int i = s.charAt(0) == '-' ? 1 : 0;
        if (i == n) return false;
        char first = s.charAt(i);
        if (first < '0' || first > '9') return false;
        if (first == '0') return n == 1; // "0" only: not "-0", not "007"
        for (int j = i + 1; j < n; j++) {
            char c = s.charAt(j);
            if (c < '0' || c > '9') return false;
        }
        if (n - i < 19) return true;
        try {
            Long.parseLong(s);
            return true;
        } catch (NumberFormatException e) {
            return false; // beyond a long: a string like any other
        }
    }
}
