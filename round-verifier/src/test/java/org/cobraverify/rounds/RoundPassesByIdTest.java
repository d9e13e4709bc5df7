package org.cobraverify.rounds;

import static org.cobraverify.testkit.Txns.txn;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import org.cobraverify.checker.KnownGraph;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.junit.jupiter.api.Test;

/**
 * The round's passes that work by id where they used to work by name give what the names gave: {@link Admission}'s
 * answer to which reads have a held writer is {@link PastFrontier#heldReads}'s; the synthetic writers are built from the
 * round's key and value ids and write what the log names, each alone in its session; their edges to the key's writers are
 * facts between the right transactions, by index; and the history builder's index is the place of every transaction.
 */
class RoundPassesByIdTest {
    static final Predicate<CollectedWrites.FrontierEntry> ALL = e -> true;

    /** A round's view of {@code order} (all held, none whole, none isolable) against the frontier logs of {@code log}. */
    record Round(HeldTransactions held, RoundIds ids, int[][] opIds, PastFrontier frontier) {}

    static Round round(CollectedWrites log, List<Transaction> order) {
        HeldTransactions held = new HeldTransactions();
        for (Transaction x : order) held.recordWrites(x);
        RoundIds ids = new RoundIds();
        int[][] opIds = ids.compile(order);
        PastFrontier f = PastFrontier.of(order, opIds, PastFrontier.heldReads(order, x -> false, held), ids, log, held, ALL, x -> false,
                x -> false, x -> false);
        return new Round(held, ids, opIds, f);
    }

    @Test
    void admissionsHeldReadsAreWhatTheWriterIndexSays() {
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            HeldTransactions held = new HeldTransactions();
            List<Transaction> retained = new ArrayList<>();
            int keys = 1 + rnd.nextInt(20);
            for (int i = 0; i < 30; i++) {
                Transaction w = txn("W" + i, "s" + (i % 3), i, 1, false, "w k" + rnd.nextInt(keys) + " v" + i);
                if (held.recordWrites(w) == null) retained.add(w);
            }
            held.retain(retained, id -> false);
            List<Transaction> candidates = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                List<String> ops = new ArrayList<>();
                for (int j = 0; j < 1 + rnd.nextInt(6); j++) {
                    int c = rnd.nextInt(4);
                    ops.add(c == 0 ? "r k" + rnd.nextInt(keys) + " -" // the initial value
                            : c == 1 ? "r k" + rnd.nextInt(keys) + " v" + rnd.nextInt(40) // held, or nobody's write
                            : c == 2 ? "w k" + rnd.nextInt(keys) + " u" + i + "." + j
                            : "r k" + rnd.nextInt(keys) + " u" + rnd.nextInt(20) + "." + rnd.nextInt(6)); // a candidate's, maybe
                }
                Transaction t = txn("C" + i, "c" + i, 0, 2, false, ops.toArray(new String[0]));
                if (held.recordWrites(t) == null) { held.arrive(t, 0); candidates.add(t); }
            }
            Admission a = Admission.of(new ArrayList<>(held.waiting()), null, 0, held, new StaleReads(),
                    (k, v) -> new CollectedWrites.Entry[k.size()]);
            boolean[][] expected = PastFrontier.heldReads(candidates, t -> false, held);
            for (int i = 0; i < candidates.size(); i++)
                assertArrayEquals(expected[i], a.heldReads().get(candidates.get(i)), "seed " + seed + " " + candidates.get(i).getId());
            // and heldReads given them answers the same as without
            boolean[][] given = PastFrontier.heldReads(candidates, t -> false, held, a.heldReads());
            for (int i = 0; i < candidates.size(); i++) assertArrayEquals(expected[i], given[i], "seed " + seed);
        }
    }

    @Test
    void syntheticWritersAreBuiltByIdAndTheirEdgesJoinTheRightTransactions() {
        InMemoryCollectedWrites log = new InMemoryCollectedWrites();
        log.appendFrontier("x", new CollectedWrites.FrontierEntry("vF", "F", 2, 0), ALL, 2);
        log.appendFrontier("y", new CollectedWrites.FrontierEntry("yF", "G", 2, 0), ALL, 2);
        // x: read by T, written by U (two touchers: a synthetic writer, with an edge to U); y: read by U and T (a writer, no edge)
        Transaction t = txn("T", "a", 0, 5, false, "r x vF", "r y yF");
        Transaction u = txn("U", "b", 0, 5, false, "r y yF", "w x v2");
        List<Transaction> order = List.of(t, u);
        Round r = round(log, order);
        HeldTransactions held = r.held();
        RoundIds ids = r.ids();
        int[][] opIds = r.opIds();
        PastFrontier f = r.frontier();
        HistoryBuilder b = new HistoryBuilder(8, 16, ids.keys(), ids.values());
        b.session("\0frontier\0x"); // an input session named as a synthetic one is not merged with it
        for (Transaction x : order) {
            b.begin(x.getId(), b.session(x.getSession()), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            int[] xs = opIds[order.indexOf(x)];
            for (int j = 0; j < x.getOps().size(); j++) {
                if (x.getOps().get(j).getWrite()) b.write(xs[2 * j], xs[2 * j + 1]);
                else b.read(xs[2 * j], xs[2 * j + 1]);
            }
            b.end();
        }
        f.addWriters(b);
        History h = b.build();
        Map<String, Integer> index = b.index();
        assertEquals(2, f.writers().length);
        for (int w : f.writers()) {
            assertEquals(h.opStart(w) + 1, h.opEnd(w));
            int op = h.opStart(w);
            String key = String.valueOf(h.keyName(h.key(op))), value = String.valueOf(h.valueName(h.value(op)));
            assertEquals(key.equals("x") ? "vF" : "yF", value);
            assertEquals(key.equals("x") ? "F" : "G", h.name(w).substring(0, 1));
            assertEquals(w, index.get(h.name(w)).intValue());
            for (int other = 0; other < h.size(); other++) if (other != w) assertNotEquals(h.session(w), h.session(other));
        }
        assertEquals(0, index.get("T").intValue());
        assertEquals(1, index.get("U").intValue());
        assertNull(index.get("V"));
        CollectedPast.RoundFacts e = f.edges(order, opIds, ids, List.of(), Set.of(), false, held);
        assertEquals(1, e.src().length);
        int wx = h.name(f.writers()[0]).startsWith("F") ? f.writers()[0] : f.writers()[1];
        assertEquals(wx, e.src()[0]);
        assertEquals(1, e.dst()[0]);
        assertEquals(KnownGraph.PATH, e.kind()[0]);
        assertEquals("x", String.valueOf(h.keyName(e.key()[0])));
        // U admitted this round: its A3 is still to be checked, so no edge; and none when a proof was lost
        assertEquals(0, f.edges(order, opIds, ids, List.of(u), Set.of(), false, held).src().length);
        assertEquals(0, f.edges(order, opIds, ids, List.of(), Set.of(), true, held).src().length);
    }

    /**
     * Judging by id drops exactly the reads of current frontier records (checked in the graph) and keeps the rest, for a
     * reader with several such reads, recorded in order or not: x's record is current (two touchers), z's log moved past
     * the value read (a stale read, superseded by the writer the log names last).
     */
    @Test
    void judgingByIdKeepsExactlyTheReadsThatAreNotOfCurrentRecords() {
        InMemoryCollectedWrites log = new InMemoryCollectedWrites();
        log.appendFrontier("x", new CollectedWrites.FrontierEntry("vF", "F", 2, 0), ALL, 2);
        log.appendFrontier("z", new CollectedWrites.FrontierEntry("zOld", "E", 1, 0), ALL, 2);
        log.appendFrontier("z", new CollectedWrites.FrontierEntry("zF", "G", 2, 0), ALL, 2);
        Transaction t = txn("T", "a", 0, 5, false, "r x vF", "r z zOld", "r x vF", "w y 1");
        Transaction u = txn("U", "b", 0, 5, false, "w x v2", "r z zF");
        Round r = round(log, List.of(t, u));
        RoundIds ids = r.ids();
        PastFrontier f = r.frontier();
        CollectedWrites.Entry frontier = new CollectedWrites.Entry("F", null, CollectedWrites.Fate.FRONTIER, 2, 0);
        CollectedWrites.Entry zOld = new CollectedWrites.Entry("E", null, CollectedWrites.Fate.FRONTIER, 1, 0);
        StaleReads.StaleRead x0 = new StaleReads.StaleRead(t, t.getOps().get(0), frontier), z1 = new StaleReads.StaleRead(t, t.getOps().get(1), zOld),
                x2 = new StaleReads.StaleRead(t, t.getOps().get(2), frontier);
        for (List<StaleReads.StaleRead> reads : List.of(List.of(x0, z1, x2), List.of(x2, z1, x0))) {
            List<StaleReads.StaleRead> kept = f.judgeable(new ArrayList<>(reads), ids);
            assertEquals(1, kept.size(), String.valueOf(kept));
            assertEquals(t.getOps().get(1), kept.get(0).op());
            assertEquals(CollectedWrites.Fate.SUPERSEDED, kept.get(0).entry().fate());
            assertEquals("G", kept.get(0).entry().supersededBy());
        }
    }
}
