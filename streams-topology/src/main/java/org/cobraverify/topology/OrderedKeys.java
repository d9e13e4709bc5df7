package org.cobraverify.topology;

/** Store keys whose byte order is numeric order: numbers written as 19 decimal digits, zero-padded. */
final class OrderedKeys {
    private OrderedKeys() {}

    /** Appends {@code v} (not negative) as 19 digits. */
    static StringBuilder appendPadded(StringBuilder sb, long v) {
        String d = Long.toString(v);
        for (int i = d.length(); i < 19; i++) sb.append('0');
        return sb.append(d);
    }
}
