/**
 * Garbage collection in rounds: how a verifier forgets checked transactions without changing a verdict.
 * Read in this order; the proofs, and the assumptions A1–A9 each step relies on, are in docs/DESIGN.md §7.
 *
 * <ol>
 *   <li><b>Plan</b> ({@link org.cobraverify.gc.CollectionPlanner}), before the round's check: which transactions
 *       are old (their epoch is closed, capped so that everything that may still join the history follows an
 *       entry fence, A6), which are entry fences of the new past, which writers are pinned by a waiting reader,
 *       and which unknown-outcome transactions are set aside (A7).</li>
 *   <li><b>Analyse</b> (in {@code org.cobraverify.checker}, because it reads the checker's own graph of the
 *       accepted round): {@code GarbageCollection} finds the frontier of each key, the superseded transactions,
 *       and the collectible ones (superseded, not pinned, in no open constraint); it checks that every old
 *       transaction reaches every entry fence (A4) and keeps the paths through what goes ({@code contract}).
 *       {@code Settlement} fixes, on the side the round chose, the open constraints nothing later can reach (§7.7).
 *       {@code IncrementalCheck} runs the round's check and then these two.</li>
 *   <li><b>Judge</b> ({@link org.cobraverify.gc.StaleReads}): a read of a collected write is judged once its
 *       reader is in the checked history: G1a, G1b, a stale read (when the reader provably follows the past),
 *       or {@code unknown}; an aborted reader's read is nothing (§7.5).</li>
 *   <li><b>Collect</b> ({@link org.cobraverify.gc.Collector}), only once the round's outcome is final: each
 *       collected write goes to {@link org.cobraverify.gc.CollectedWrites} with its fate, and the
 *       {@link org.cobraverify.gc.CollectedPast} moves after every old transaction and before every entry
 *       fence. The next round turns the past into one barrier vertex ({@code checker.Barrier}, §7.3) with the
 *       carried facts (§7.4).</li>
 *   <li><b>Remember</b> ({@link org.cobraverify.gc.CollectedWrites}): exactly, never a probabilistic filter
 *       (A5); {@link org.cobraverify.gc.InMemoryCollectedWrites} for tests and short runs,
 *       {@link org.cobraverify.gc.store.RocksDbCollectedWrites} on disk, bounded by a time horizon.</li>
 * </ol>
 *
 * <p>The round's orchestration, and the transactions held between rounds, are the verifier's
 * ({@code org.cobraverify.rounds.IncrementalVerifier}); this package holds no transaction of its own beyond the
 * stale reads' readers. Nothing here imports Kafka. The careless rules of {@code GarbageCollection.Rules} exist so
 * that tests can show what the sound ones prevent; {@code RoundsDifferential} holds the whole path to one-shot
 * checking.
 */
package org.cobraverify.gc;
