package org.cobraverify.collector;

import java.util.List;

/**
 * What the collector recorded of one transaction: its id, session, outcome, wall-clock start and end
 * (nanoseconds since the epoch) and its operations in program order. A read's {@code value} is the
 * write id it observed (null: the key's initial state); a write's is the write id it installed.
 */
public record TxnRecord(String id, String session, Status status, long start, long end, List<Op> ops) {
    public enum Status { COMMITTED, ABORTED, UNKNOWN }

    public record Op(boolean write, String key, String value) {}
}
