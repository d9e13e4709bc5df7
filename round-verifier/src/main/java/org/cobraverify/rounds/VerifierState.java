package org.cobraverify.rounds;

import java.util.List;
import java.util.Map;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.schemas.Transaction;

/**
 * Everything an {@link IncrementalVerifier} carries from round to round, as one typed value: what a snapshot
 * (a batch of rounds that must be decided again one by one) copies and restores, and what a checkpoint encodes
 * ({@link CheckpointCodec}) and a restart decodes. The collected writes are not in it: they live in the
 * {@link org.cobraverify.gc.CollectedWrites} store, which a snapshot does not copy (so a snapshot is restored only
 * if nothing was collected since) and a checkpoint makes durable instead.
 *
 * <p>Invariant: the parts share nothing mutable with a live verifier ({@link IncrementalVerifier#snapshot} copies,
 * {@link IncrementalVerifier#restore(VerifierState)} copies again), so one state may be restored more than once.
 *
 * @param held         the retained and waiting transactions, and the writer index over them
 * @param stale        reads of collected writes not judged yet
 * @param past         the collected past (the barrier's state, carried facts, the last frontier)
 * @param endedSince   sessions seen ended, with the round first seen so ({@link org.cobraverify.gc.CollectionPlanner})
 * @param withoutFenceSince live sessions seen without a fence in the round's history, with the round first seen so (the same)
 * @param counters     rounds, checked, collected, settled, collections, duplicates, frontier records, violations, unchecked
 * @param rejectedIn   why verification stopped after a violation, or null
 * @param droppedState why the state was dropped, or null
 * @param lostProof    why no later round can be accepted, or null
 * @param incoming     transactions added to the open round (always empty in a checkpoint)
 */
record VerifierState(HeldTransactions held, StaleReads stale, CollectedPast past, Map<String, Long> endedSince, Map<String, Long> withoutFenceSince,
                     Counters counters,
                     String rejectedIn, String droppedState, String lostProof, List<Transaction> incoming) {

    /** The verifier's running totals. */
    record Counters(long rounds, long checked, long collected, long settled, long collections, long duplicates, long frontierRecords,
                    long violations, long firstViolationRound, long setAside, long uncheckedReads, long unchecked) {}
}
