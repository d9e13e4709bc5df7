package org.cobraverify.rounds;

/**
 * A transaction that verification in rounds leaves out of the checked history because nothing shows that it follows the
 * collected past (docs/DESIGN.md §7.6): its session ran no fence before it, or it joined after a collection without a
 * fact that puts it after the past. It is named in the round's verdict, with {@code reason}; the reads of its writes are
 * not checked either. An accept speaks of the history less these transactions and those reads.
 */
public record Unchecked(String id, String reason) {}
