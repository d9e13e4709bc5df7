package org.cobraverify.gc;

import org.cobraverify.history.History;
import org.cobraverify.schemas.protocol.WireNames;

/** How verdicts show a key, value or session the wire carries as text ({@link WireNames}): as the name it stands for, as {@link History#show} shows names. */
public final class WireText {
    private WireText() {}

    /** The name {@code text} stands for, shown: {@code 1} for the integer, {@code "1"} for the string; null: {@code null}. */
    public static String shown(String text) { return text == null ? "null" : History.show(WireNames.name(text)); }
}
