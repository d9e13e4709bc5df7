package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;
import org.cobraverify.testkit.Histories;

/**
 * A history with a stale reader planted at its end: a new last transaction, {@code stale-reader}, reading a version written
 * by a committed transaction in the first 1% of {@code clean} (not the fence key) and overwritten since.
 *
 * @param h      {@code clean} with the reader appended
 * @param writer the early writer's name
 * @param key    the key read
 * @param value  the early version read
 */
record LateStaleReader(History h, String writer, String key, String value) {
    static LateStaleReader plant(History clean) {
        int early = -1, earlyTxn = -1;
        for (int t = 0; t < clean.size() / 100 && early < 0; t++)
            for (int op = clean.opStart(t); op < clean.opEnd(t); op++)
                if (clean.status(t) == History.COMMITTED && clean.kind(op) == History.WRITE
                        && !SimulatedStore.FENCE_KEY.equals(String.valueOf(clean.keyName(clean.key(op))))) { early = op; earlyTxn = t; break; }
        assertTrue(early >= 0, "an early write to read");
        String key = String.valueOf(clean.keyName(clean.key(early))), value = String.valueOf(clean.valueName(clean.value(early)));
        return new LateStaleReader(Histories.withAppended(clean, "stale-reader", b -> b.read(b.key(key), b.value(value))), clean.name(earlyTxn), key, value);
    }
}
