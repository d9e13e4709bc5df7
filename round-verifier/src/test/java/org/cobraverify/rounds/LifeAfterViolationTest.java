package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.synth.PlantedAnomalies.Kind;
import org.cobraverify.synth.PlantedAnomalies.Plant;
import org.cobraverify.synth.PlantedAnomalies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Life after a violation (docs/DESIGN.md §7.10): a serializable fenced history with anomalies planted at chosen
 * rounds is verified in rounds; each anomaly is reported once, in its own round, with its own certificate; the rounds
 * between are verified clean, and every verdict counts the violations so far.
 */
class LifeAfterViolationTest {
    static final String FENCE = "EPOCH";

    /**
     * A serial (hence serializable) history: {@code sessions} sessions take turns; each transaction reads one key and
     * writes another, and every session runs a fence (a read-modify-write of {@link #FENCE}) first and every 5 transactions.
     */
    static List<Transaction> serialHistory(long seed, int sessions, int txns, int keys) {
        Random rnd = new Random(seed);
        Map<String, String> current = new HashMap<>();
        List<Transaction> out = new ArrayList<>();
        int[] count = new int[sessions];
        int values = 0;
        for (int i = 0; i < txns; i++) {
            int s = i % sessions;
            List<TxnOp> ops = new ArrayList<>();
            boolean fence = count[s]++ % 5 == 0;
            if (fence) {
                ops.add(new TxnOp(false, FENCE, current.get(FENCE)));
                String v = "e" + values++;
                ops.add(new TxnOp(true, FENCE, v));
                current.put(FENCE, v);
            } else {
                String r = "k" + rnd.nextInt(keys), w = "k" + rnd.nextInt(keys);
                ops.add(new TxnOp(false, r, current.get(r)));
                String v = "v" + values++;
                ops.add(new TxnOp(true, w, v));
                current.put(w, v);
            }
            out.add(Transaction.newBuilder().setId("t" + i).setSession("s" + s).setStatus(TxnStatus.COMMITTED).setStart(0).setEnd(0).setOps(ops).build());
        }
        return out;
    }

    static History toHistory(List<Transaction> txns) {
        HistoryBuilder b = new HistoryBuilder();
        for (Transaction t : txns) {
            b.begin(t.getId(), b.session(t.getSession()), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            for (TxnOp o : t.getOps()) {
                int k = b.key(o.getKey());
                if (o.getWrite()) b.write(k, b.value(o.getValue()));
                else b.read(k, o.getValue() == null ? History.NIL : b.value(o.getValue()));
            }
            b.end();
        }
        return b.build();
    }

    static RoundsRun rounds(List<Transaction> txns, int roundSize) {
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults(), new InMemoryCollectedWrites())) {
            return HistoryRounds.run(toHistory(txns), roundSize, FENCE, v, null);
        }
    }

    /** The rounds that found a new violation. */
    static List<Long> violationRounds(RoundsRun run) {
        List<Long> out = new ArrayList<>();
        for (RoundResult r : run.rounds()) if (!r.violations().isEmpty()) out.add(r.round());
        return out;
    }

    /** The planting point (a fraction of the history, in steps of 1/200) whose anomaly the rounds find in round {@code round}. */
    static double pointFor(List<Transaction> base, Kind kind, int round, int roundSize) {
        for (int i = 10; i <= 200; i++) {
            RoundsRun run = rounds(PlantedAnomalies.plant(base, List.of(new Plant(kind, i / 200.0))), roundSize);
            List<Long> at = violationRounds(run);
            if (at.equals(List.of((long) round))) return i / 200.0;
        }
        throw new AssertionError("no planting point puts a " + kind + " in round " + round);
    }

    @Test
    void aViolationInRound3AndAnotherInRound10AreEachReportedOnceAndTheRoundsBetweenAreClean() {
        long seed = 26;
        int roundSize = 100;
        List<Transaction> base = serialHistory(seed, 4, 1600, 40);
        RoundsRun clean = rounds(base, roundSize);
        assertTrue(clean.rounds().size() >= 12, "rounds: " + clean.rounds().size());
        assertTrue(clean.rounds().stream().allMatch(r -> r.outcome() == Verdict.Outcome.ACCEPT), "seed " + seed + ": the base history is serializable");

        double at3 = pointFor(base, Kind.LOST_UPDATE, 3, roundSize), at10 = pointFor(base, Kind.WRITE_SKEW, 10, roundSize);
        List<Transaction> planted = PlantedAnomalies.plant(base, List.of(new Plant(Kind.LOST_UPDATE, at3), new Plant(Kind.WRITE_SKEW, at10)));
        RoundsRun run = rounds(planted, roundSize);
        assertEquals(List.of(3L, 10L), violationRounds(run), "seed " + seed + ": exactly two rounds with a new violation");
        for (RoundResult r : run.rounds()) {
            long expectedSoFar = r.round() < 3 ? 0 : r.round() < 10 ? 1 : 2;
            assertEquals(expectedSoFar, r.violationsTotal(), "round " + r.round() + ": " + r.reason());
            assertEquals(expectedSoFar == 0 ? -1 : 3, r.firstViolationRound(), "round " + r.round());
            // the history as a whole: accepted before the first violation, rejected from it on
            assertEquals(r.round() < 3 ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, r.outcome(), "round " + r.round() + ": " + r.reason());
            if (r.round() == 3 || r.round() == 10) {
                assertEquals(Verdict.Outcome.REJECT, r.own(), "round " + r.round());
                assertEquals(1, r.violations().size(), "round " + r.round() + ": " + r.reason());
                Certificate c = r.violations().get(0);
                String prefix = r.round() == 3 ? "planted:0:lost-update" : "planted:1:write-skew";
                assertTrue(c.transactions().stream().allMatch(t -> t.id().startsWith(prefix)),
                        "round " + r.round() + ": the certificate is made of the planted transactions: " + c.summary());
                assertTrue(r.round() == 3 ? c.kind() == AnomalyKind.LOST_UPDATE || c.kind() == AnomalyKind.WRITE_SKEW || c.kind() == AnomalyKind.G2
                        : c.kind() == AnomalyKind.WRITE_SKEW || c.kind() == AnomalyKind.G2, c.kind() + ": " + c.summary());
            } else if (r.round() > 3) {
                assertTrue(r.clean(), "round " + r.round() + " is verified clean: " + r.reason());
                assertTrue(r.reason().contains("no new violation"), r.reason());
            }
        }
        // garbage collection goes on after the violation: the retained set stays about what the clean history keeps
        assertTrue(run.retainedMax() <= 2 * clean.retainedMax() + 10, "retained " + run.retainedMax() + " vs clean " + clean.retainedMax());
        // one-shot agrees that the whole is not serializable, and that it is without the planted transactions
        assertEquals(Verdict.Outcome.REJECT, Checker.check(toHistory(planted), CheckOptions.defaults()).outcome());
    }

    /** One-shot, as Elle: every independent violation, one certificate each ({@code verify --all}). */
    @Test
    void oneShotReportsEachIndependentViolation() {
        long seed = 11;
        List<Transaction> planted = PlantedAnomalies.plant(serialHistory(seed, 5, 1500, 50),
                List.of(new Plant(Kind.LOST_UPDATE, 0.2), new Plant(Kind.G1C, 0.5), new Plant(Kind.LONG_FORK, 0.8)));
        History h = toHistory(planted);
        Verdict v = Checker.check(h, CheckOptions.defaults());
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        org.cobraverify.checker.AllViolations.Result all = org.cobraverify.checker.AllViolations.after(h, v.certificate(), CheckOptions.defaults(), 0, 100);
        assertEquals(3, all.certificates().size(), "seed " + seed + ": " + all.certificates().stream().map(Certificate::summary).toList());
        assertEquals(Verdict.Outcome.ACCEPT, all.rest().outcome(), "without the three, the history is serializable");
        java.util.Set<String> anomalies = new java.util.HashSet<>();
        for (Certificate c : all.certificates()) {
            String prefix = c.transactions().get(0).id().replaceAll(":T\\d+$", "");
            assertTrue(c.transactions().stream().allMatch(t -> t.id().startsWith(prefix + ":")), "each certificate is one planted anomaly: " + c.summary());
            anomalies.add(prefix.replaceAll("^planted:\\d+:", ""));
        }
        assertEquals(java.util.Set.of("lost-update", "g1c", "long-fork"), anomalies);
        // with a budget of 1 violation the search stops and says so
        org.cobraverify.checker.AllViolations.Result one = org.cobraverify.checker.AllViolations.after(h, v.certificate(), CheckOptions.defaults(), 0, 1);
        assertEquals(1, one.certificates().size());
        assertNotNull(one.note());
    }

    /** Each kind of planted anomaly, on its own, is found in one round and nowhere else; seeded. */
    @ParameterizedTest
    @ValueSource(strings = {"lost-update", "write-skew", "g1c", "long-fork"})
    void eachPlantedAnomalyIsReportedOnce(String kind) {
        long seed = 7;
        List<Transaction> base = serialHistory(seed, 5, 1200, 30);
        List<Transaction> planted = PlantedAnomalies.plant(base, List.of(new Plant(Kind.of(kind), 0.5)));
        RoundsRun run = rounds(planted, 80);
        List<Long> at = violationRounds(run);
        assertEquals(1, at.size(), "seed " + seed + ", " + kind + ": one round with a violation: " + at);
        RoundResult last = run.last();
        assertEquals(1, last.violationsTotal());
        assertTrue(last.clean() || last.round() == at.get(0), "the last round: " + last.reason());
        Certificate c = run.rounds().get(at.get(0).intValue()).violations().get(0);
        assertTrue(c.transactions().stream().allMatch(t -> t.id().startsWith("planted:0:")), c.summary());
    }
}
