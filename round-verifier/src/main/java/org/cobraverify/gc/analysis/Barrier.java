package org.cobraverify.gc.analysis;

import org.cobraverify.checker.CheckedRound;
import org.cobraverify.checker.KnownGraph;
import org.cobraverify.history.History;

/**
 * The collected past of an incremental verification, as one vertex B of the known graph placed right
 * after the last old transaction (old: of an epoch that garbage collection has closed) in every serial
 * order, and, in strict mode, a second vertex R, the real-time point of the past. Their edges are facts,
 * not guesses:
 * <ul>
 *   <li>{@code T → B} for every retained old transaction T (B comes after every old transaction);</li>
 *   <li>{@code B → F} for every entry fence F: the latest fence of a live session when the barrier was
 *       placed; every old transaction reached it in the known graph then (checked, not assumed: the
 *       fences chain through their read-modify-writes of the fence key), so it follows all of them;</li>
 *   <li>in strict mode, {@code T → B} when T ended (plus drift) before some old transaction started;</li>
 *   <li>in strict mode, {@code R → T} when T started after {@code oldMaxEnd} (plus drift), the latest end of an
 *       old transaction; {@code U → R} for every retained U of {@code rtBefore} (U reaches, in the facts, a
 *       transaction that ended by {@code oldMaxEnd}); and {@code B → R} only when {@code pastBeforeRt}: every
 *       transaction B stands for reaches such a transaction. An old transaction without times is placed
 *       before nothing by real time (docs/DESIGN.md §7.3).</li>
 * </ul>
 * With B in the graph, every path "old ⇝ later" that ran through collected transactions survives their
 * deletion, which is what keeps garbage collection sound (see {@link GarbageCollection}); R does the same for
 * the real-time order of collected transactions.
 *
 * <p>The past also carries facts a rebuild of the retained history would lose: the rw and ww edges
 * between retained transactions that were known (observed or forced by pruning) when their proof still
 * involved transactions since collected (e.g. R read d's version, d was collected, R must still precede
 * the write that superseded d's).
 *
 * <p>The checker adds these edges itself, as {@link CheckedRound.Past} lists them: this record is the past
 * {@link IncrementalCheck} checks a round with.
 *
 * <p>Why its edges are facts, and the assumptions they rest on (A3, A4, A9): docs/DESIGN.md §7.3.
 *
 * @param before       transactions (indexes into the round's history) with an edge to B
 * @param after        entry fences (indexes) that B precedes
 * @param rtBefore     transactions (indexes) with an edge to R (strict mode)
 * @param pastBeforeRt whether B precedes R (strict mode)
 * @param oldMaxEnd    latest end time of any old transaction, or {@link History#NO_TIME}
 * @param oldMaxStart  latest start time of any old transaction, or {@link History#NO_TIME}
 * @param description  how certificates explain a path through B
 * @param carriedSrc   carried facts: sources (indexes), with {@code carriedDst}, {@code carriedKind}
 *                     ({@link KnownGraph#RW}, {@link KnownGraph#WW}, {@link KnownGraph#PATH} or
 *                     {@link KnownGraph#SETTLED}) and {@code carriedKey} (key ids)
 */
public record Barrier(int[] before, int[] after, int[] rtBefore, boolean pastBeforeRt, long oldMaxEnd, long oldMaxStart, String description,
                      int[] carriedSrc, int[] carriedDst, int[] carriedKind, int[] carriedKey) implements CheckedRound.Past {
}
