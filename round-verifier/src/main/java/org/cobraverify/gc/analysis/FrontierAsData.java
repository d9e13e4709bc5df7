package org.cobraverify.gc.analysis;

import java.util.Arrays;
import org.cobraverify.checker.CheckedRound;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Which old frontier writers garbage collection may delete and remember as data (docs/DESIGN.md §7.9): a record per
 * key of the latest write, its writer and the round; in later rounds a synthetic transaction that writes that value
 * (one per key the round reads with no held writer) stands for the writer, placed before the collected past.
 *
 * <p>Contract: an old, committed transaction {@code t} of the checked history that garbage collection would collect
 * but for its frontier writes is collected as data iff, for every key {@code x} it is the frontier of:
 * <ol>
 *   <li>it is the only frontier writer of {@code x} (several unordered ones stay: settlement needs them, §7.7);</li>
 *   <li>every other old writer of {@code x} (each reaches {@code t}) is collected in the same round, synthetic ones
 *       included (a writer left behind would look like the frontier once {@code t} is gone); or, with marks
 *       ({@code readOutside} not null), is a transaction of the checked history none of whose writes a transaction
 *       outside it reads: its write of {@code x} is then collected, superseded by {@code t}, while it stays (§7.9,
 *       "Superseded writes of staying writers");</li>
 *   <li>every writer of {@code x} that stays, and every reader of {@code t}'s write of {@code x} that stays, is in the
 *       checked history and reached in the facts from an entry fence of the next past: so in every later round the
 *       synthetic writer, which precedes that past, reaches it, and no fact between them is lost with {@code t}.</li>
 * </ol>
 * Condition 2 makes the set a fixed point (a writer dropped from it can drop another); it is computed by removing
 * writers until nothing changes. Synthetic transactions (from index {@code synthetic} on) are never collected as
 * data: they are the data. With {@code careless} (tests only) only condition 1 is checked.
 */
final class FrontierAsData {
    private FrontierAsData() {}

    /** Why a frontier writer stays (for people watching the retained set): indexes of {@link #why}. */
    static final byte COLLECTED = 0, SHARED = 1, OLD_WRITER_STAYS = 2, NOT_FOLLOWED = 3, OTHER = 4;

    /**
     * Marks in {@code collect} (and returns as a mask) the transactions collected as data; {@code collect} holds on entry
     * what garbage collection collects without them. {@code out}: the facts, {@code frontierWrite}: per operation,
     * whether it is a frontier write; {@code bad}: reached from a transaction that is not old.
     */
    static boolean[] collectible(History h, CheckedRound round, CheckedRound.Adjacency out, boolean[] frontierWrite, boolean[] old, boolean[] bad,
                                 boolean[] pinned, boolean[] inOpen, int[] entries, boolean[] collect, int synthetic, boolean careless,
                                 boolean[] readOutside, byte[] why) {
        boolean[] included = round.included(), finalWrite = round.finalWrite();
        int[] opTxn = round.opTxn();
        int n = h.size(), keys = h.keyCount();
        boolean[] asData = new boolean[n];
        Arrays.fill(why, OTHER);
        int[] frontierCount = new int[keys];
        for (int op = 0; op < frontierWrite.length; op++) if (frontierWrite[op]) frontierCount[h.key(op)]++;
        boolean any = false;
        for (int t = 0; t < synthetic; t++) {
            if (collect[t] || !old[t] || !included[t] || h.status(t) != History.COMMITTED || bad[t]) continue;
            if ((pinned != null && pinned[t]) || inOpen[t]) continue;
            boolean ok = true, frontier = false;
            for (int op = h.opStart(t); op < h.opEnd(t) && ok; op++) {
                if (!frontierWrite[op]) continue;
                frontier = true;
                ok = frontierCount[h.key(op)] == 1 && h.kind(op) == History.WRITE;
            }
            if (ok && frontier) { asData[t] = true; any = true; why[t] = COLLECTED; }
            else if (frontier) why[t] = SHARED;
        }
        if (!any || careless) {
            for (int t = 0; t < n; t++) if (asData[t]) collect[t] = true;
            return asData;
        }
        // the writers of each key, and the readers of each (key, writer)
        int[] writerStart = new int[keys + 1];
        for (int op = 0; op < h.opCount(); op++) if (finalWrite[op]) writerStart[h.key(op) + 1]++;
        for (int k = 0; k < keys; k++) writerStart[k + 1] += writerStart[k];
        int[] writers = new int[writerStart[keys]], fill = writerStart.clone();
        for (int op = 0; op < h.opCount(); op++) if (finalWrite[op]) writers[fill[h.key(op)]++] = opTxn[op];
        LongIntMap readersHead = new LongIntMap(64);
        IntVec readerTxn = new IntVec(), readerNext = new IntVec();
        for (int i = 0; i < round.reads(); i++) {
            int w = round.readWriter(i);
            if (w < 0 || w >= n || !asData[w]) continue;
            long k = LongIntMap.pack(round.readKey(i), w);
            int head = readersHead.get(k);
            readerTxn.add(round.readTxn(i));
            readerNext.add(head == LongIntMap.MISSING ? -1 : head);
            readersHead.put(k, readerTxn.size() - 1);
        }
        boolean[] fromEntries = out.reachedFrom(n, entries);
        for (int t = 0; t < n; t++) if (asData[t]) collect[t] = true;
        for (boolean changed = true; changed; ) {
            changed = false;
            for (int t = 0; t < synthetic; t++) {
                if (!asData[t]) continue;
                byte w = keeps(t, h, included, frontierWrite, old, collect, fromEntries, writerStart, writers, readersHead, readerTxn, readerNext,
                        readOutside == null ? 0 : synthetic, readOutside);
                if (w == COLLECTED) continue;
                why[t] = w;
                asData[t] = false;
                collect[t] = false;
                changed = true;
            }
        }
        return asData;
    }

    /** {@link #COLLECTED} if {@code t} still meets conditions 2 and 3 for each key it is the frontier of; else which it fails. */
    private static byte keeps(int t, History h, boolean[] included, boolean[] frontierWrite, boolean[] old, boolean[] collect, boolean[] fromEntries,
                                 int[] writerStart, int[] writers, LongIntMap readersHead, IntVec readerTxn, IntVec readerNext, int markable,
                                 boolean[] readOutside) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (!frontierWrite[op]) continue;
            int k = h.key(op);
            for (int i = writerStart[k]; i < writerStart[k + 1]; i++) {
                int w = writers[i];
                if (w == t || collect[w]) continue;
                if (included[w] && old[w] && w < markable && !readOutside[w]) continue; // stays, its write collected (GarbageCollection#markOps)
                if (!included[w] || old[w]) return OLD_WRITER_STAYS;
                if (!fromEntries[w]) return NOT_FOLLOWED;
            }
            int head = readersHead.get(LongIntMap.pack(k, t));
            for (int i = head == LongIntMap.MISSING ? -1 : head; i >= 0; i = readerNext.get(i)) {
                int r = readerTxn.get(i);
                if (r != t && !collect[r] && !fromEntries[r]) return NOT_FOLLOWED;
            }
        }
        return COLLECTED;
    }

    /**
     * The superseded marks of a collection: for each key whose frontier write goes as data, the final writes of the old
     * writers of that key that stay (each reaches that frontier write: it is the only one, condition 1). As three parallel
     * vectors: the operations, their transactions, and the frontier writer that goes as data
     * ({@link GarbageCollection#markOps}, {@code markTxn}, {@code markBy}).
     */
    static IntVec[] marks(History h, CheckedRound round, boolean[] old, boolean[] collect, boolean[] frontierWrite,
                          boolean[] asData, int synthetic) {
        boolean[] included = round.included(), finalWrite = round.finalWrite();
        int[] opTxn = round.opTxn();
        int[] by = new int[h.keyCount()];
        Arrays.fill(by, -1);
        for (int op = 0; op < frontierWrite.length; op++) if (frontierWrite[op] && asData[opTxn[op]]) by[h.key(op)] = opTxn[op];
        IntVec ops = new IntVec(), txns = new IntVec(), bys = new IntVec();
        for (int op = 0; op < h.opCount(); op++) {
            if (!finalWrite[op] || frontierWrite[op]) continue;
            int t = opTxn[op], f = by[h.key(op)];
            if (f < 0 || t == f || t >= synthetic || collect[t] || !old[t] || !included[t]) continue;
            ops.add(op);
            txns.add(t);
            bys.add(f);
        }
        return new IntVec[] {ops, txns, bys};
    }
}
