/**
 * The steps of garbage collection that work on an accepted round's own graph of facts: the round's check with the
 * collected past as a {@link org.cobraverify.gc.analysis.Barrier} ({@link org.cobraverify.gc.analysis.IncrementalCheck}),
 * then the analysis of what can go ({@link org.cobraverify.gc.analysis.GarbageCollection}), with the frontier, the open
 * constraints settled for good, the frontier writers collected as data, the contraction of paths through what goes and,
 * in strict mode, the next past's real-time point. Everything here reads the checker through
 * {@link org.cobraverify.checker.CheckedRound} only, in vertices and edges of the round's known graph; the rest of
 * {@code org.cobraverify.gc} (plan, judge, collect, remember), which tells the whole story in order, works on
 * transactions and ids. Proofs: docs/DESIGN.md §7.
 */
package org.cobraverify.gc.analysis;
