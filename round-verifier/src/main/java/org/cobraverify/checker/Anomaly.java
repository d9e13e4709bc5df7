package org.cobraverify.checker;

/**
 * An immediate rejection found while resolving reads or chaining writes: what happened, and the
 * transactions and operations (indexes into the history) that show it.
 */
public record Anomaly(AnomalyKind kind, String explanation, int[] txns, int[] ops) {}
