package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.synth.SimulatedStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Below serializability (docs/DESIGN.md §7.11, "Stale reads below serializability"): early in a long serial history W0
 * writes {@code ey}, and W reads it and writes {@code ey} and {@code ex} (so W0's version of {@code ey} is superseded by W,
 * which reaches it); at the end a reader B, in another session than W's, reads W's {@code ex} and W0's {@code ey}. Rounds seal
 * both writers long before B arrives. B saw W's write of {@code ex} and missed W's write of {@code ey}: a fractured read, a
 * violation at read atomic and above (and at read committed when B read {@code ex} first), whatever else B's session did,
 * since W0 precedes W in every commit order. The sealed past holds what decides it (the superseded version's superseder, and
 * the writer of what B read beside it), so rounds reject it as one-shot checking does, with a certificate naming W, rather
 * than leave B unchecked; where the order of B's reads makes it legal (read committed, {@code ey} first) B is left
 * unchecked, for what is true: the past keeps no order to decide it.
 */
class SealedFracturedReadTest {
    private static History planted(boolean exFirst) {
        History clean = SimulatedStore.run(SimulatedStore.Isolation.SERIAL, new SimulatedStore.Workload(4, 4_000 / 4, 50_000, 4, 0.5, 0, 0),
                new Random(23), false, 20);
        int w0 = -1, w = -1;
        for (int t = 0; t < clean.size() && w < 0; t++) {
            if (clean.status(t) != History.COMMITTED || isFence(clean, t)) continue;
            if (w0 < 0) w0 = t;
            else if (t > w0 + 10) w = t;
        }
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < clean.size(); t++) {
            b.beginCopyAsText(clean, t);
            if (t == w0) b.write(b.key("ey"), b.value("v0"));
            if (t == w) {
                b.read(b.key("ey"), b.value("v0"));
                b.write(b.key("ey"), b.value("v1"));
                b.write(b.key("ex"), b.value("x1"));
            }
            b.end();
        }
        int other = (clean.session(w) + 1) % clean.sessionCount(); // a fenced session, not W's
        b.begin("B", b.session(String.valueOf(clean.sessionName(other))), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        if (exFirst) b.read(b.key("ex"), b.value("x1"));
        b.read(b.key("ey"), b.value("v0"));
        if (!exFirst) b.read(b.key("ex"), b.value("x1"));
        b.end();
        return b.build();
    }

    private static boolean isFence(History h, int t) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) if (SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(h.key(op))))) return true;
        return false;
    }

    @ParameterizedTest(name = "{0}, ex read first: {1}")
    @CsvSource({"READ_COMMITTED, true", "READ_COMMITTED, false", "STRONG_SESSION_READ_COMMITTED, true", "STRONG_SESSION_READ_COMMITTED, false",
            "READ_ATOMIC, true", "READ_ATOMIC, false", "CAUSAL, false", "SNAPSHOT_ISOLATION, false"})
    void aFracturedReadOfTheSealedPastIsRejectedWhereOneShotRejectsIt(IsolationLevel level, boolean exFirst) {
        History h = planted(exFirst);
        Verdict oneShot = Isolation.check(h, level, CheckOptions.defaults());
        RoundsRun run;
        long collected;
        try (IncrementalVerifier v = new IncrementalVerifier(RoundSettings.defaults().withLevel(level), new InMemoryCollectedWrites())) {
            run = HistoryRounds.run(h, 200, SimulatedStore.FENCE_KEY, v, null);
            collected = v.collectedCount();
        }
        assertTrue(collected > 3_000, "W0 and W were sealed long before B: " + collected);
        RoundResult last = run.last();
        boolean legal = level == IsolationLevel.READ_COMMITTED && !exFirst || level == IsolationLevel.STRONG_SESSION_READ_COMMITTED && !exFirst;
        assertEquals(legal ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, oneShot.outcome(), "one-shot");
        if (legal) {
            assertEquals(Verdict.Outcome.ACCEPT, last.outcome(), last.reason());
            Unchecked u = last.unchecked().stream().filter(x -> x.id().equals("B")).findFirst().orElse(null);
            assertNotNull(u, "B is left unchecked: " + last.unchecked());
            assertTrue(u.reason().contains("ey") && u.reason().contains("superseded by"), u.reason());
            return;
        }
        Certificate c = run.rounds().stream().flatMap(r -> r.violations().stream()).filter(x -> x.summary().contains("B")).findFirst().orElse(null);
        assertNotNull(c, "B's read is reported: " + last.reason() + "; unchecked " + last.unchecked());
        if (!level.implies(IsolationLevel.CAUSAL)) {
            // named as one-shot checking names it: read committed's premise is an earlier read, read atomic's any read
            assertEquals(level == IsolationLevel.READ_ATOMIC ? AnomalyKind.FRACTURED_READ : AnomalyKind.NON_MONOTONIC_READ, c.kind(), c.summary());
            assertEquals(oneShot.certificate().kind(), c.kind(), oneShot.certificate().summary());
            assertTrue(c.summary().contains("ex") && c.summary().contains("ey"), c.summary());
        }
        assertTrue(last.unchecked().stream().noneMatch(x -> x.id().equals("B")), "B is not left unchecked: " + last.unchecked());
    }
}
