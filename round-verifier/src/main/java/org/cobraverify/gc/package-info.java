/**
 * Garbage collection in rounds: how a verifier forgets checked transactions without changing a verdict.
 * Read in this order; the proofs, and the assumptions A1–A9 each step relies on, are in docs/DESIGN.md §7.
 *
 * <ol>
 *   <li><b>Plan</b> ({@link org.cobraverify.gc.CollectionPlanner}), before the round's check: which transactions
 *       are old (their epoch is closed, capped so that everything that may still join the history follows an
 *       entry fence, A6), which are entry fences of the new past, which writers are pinned by a waiting reader,
 *       and which unknown-outcome transactions are set aside (A7).</li>
 *   <li><b>Analyse</b> ({@link org.cobraverify.gc.analysis.IncrementalCheck}): the checker runs on the retained
 *       history plus the round's transactions, with the collected past as one vertex; on accept,
 *       {@link org.cobraverify.gc.analysis.GarbageCollection} reads the round's own graph of facts through
 *       {@link org.cobraverify.checker.CheckedRound}, the checker's one door for garbage collection. It checks that
 *       every old transaction reaches every entry fence (A4); finds the frontier of each key and the superseded
 *       transactions ({@code analysis.Frontier}, §7.2); the collectible ones (superseded, not pinned, in no open
 *       constraint), and the frontier writers collected as data, with superseded marks on the older writes of their
 *       keys that stay ({@code analysis.FrontierAsData}, §7.9); keeps the facts between what stays and the paths
 *       through what goes ({@code analysis.Contraction}, §7.4); and in strict mode places the next past's real-time
 *       point ({@code analysis.RealTimePoint}, §7.3).</li>
 *   <li><b>Settle</b> ({@code analysis.Settlement}), within the analysis, before anything is collected: the open
 *       constraints nothing later can reach are fixed for good on the side the round chose, so that their
 *       transactions can go (§7.7).</li>
 *   <li><b>Barrier</b> ({@link org.cobraverify.gc.analysis.Barrier}): the collected past as the next round's check
 *       takes it, one vertex B after every old transaction and before every entry fence (and, in strict mode, the
 *       real-time point R), with the carried facts (§7.3, §7.4).</li>
 *   <li><b>Judge</b> ({@link org.cobraverify.gc.StaleReads}): a read of a collected write is judged once its
 *       reader is in the checked history: G1a, G1b, a stale read (when the reader provably follows the past),
 *       or {@code unknown}; an aborted reader's read is nothing (§7.5).</li>
 *   <li><b>Collect</b> ({@link org.cobraverify.gc.Collector}), only once the round's outcome is final: each
 *       collected write goes to {@link org.cobraverify.gc.CollectedWrites} with its fate, and the
 *       {@link org.cobraverify.gc.CollectedPast} moves after every old transaction and before every entry
 *       fence. The next round turns the past into its {@link org.cobraverify.gc.analysis.Barrier} (§7.3) with the
 *       carried facts (§7.4).</li>
 *   <li><b>Remember</b> ({@link org.cobraverify.gc.CollectedWrites}): exactly, never a probabilistic filter
 *       (A5); {@link org.cobraverify.gc.InMemoryCollectedWrites} for tests and short runs, the frontier records of
 *       writers collected as data in a {@link org.cobraverify.gc.FrontierLog} (§7.9).</li>
 *   <li><b>The store</b> ({@link org.cobraverify.gc.store}): {@link org.cobraverify.gc.store.RocksDbCollectedWrites}
 *       keeps the collected writes on disk, bounded by a time horizon.</li>
 * </ol>
 *
 * <p>Layering: {@code gc} and {@code gc.analysis} import {@code checker} and {@code history}, never the other way;
 * {@code gc} imports {@code gc.analysis}, never the other way. The checker's internals stay package-private: what
 * the analysis needs of an accepted round's check is {@link org.cobraverify.checker.CheckedRound}, in primitive
 * arrays and int ids.
 *
 * <p>The round's orchestration, and the transactions held between rounds, are the verifier's
 * ({@code org.cobraverify.rounds.IncrementalVerifier}); this package holds no transaction of its own beyond the
 * stale reads' readers. Nothing here imports Kafka. The careless rules of
 * {@link org.cobraverify.gc.analysis.GarbageCollection.Rules} exist so that tests can show what the sound ones
 * prevent; {@code RoundsDifferential} holds the whole path to one-shot checking.
 */
package org.cobraverify.gc;
