package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.testkit.Histories;
import org.cobraverify.testkit.WitnessReplayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real recorded histories with pruning unavailable: the solver alone gets every constraint (hundreds to
 * thousands) and must still reach the listed verdict, with a witness that replays.
 */
class UnprunedSolverTest {
    @ParameterizedTest
    @ValueSource(strings = {"cobra-logs/one-shot/chengRW-1000", "cobra-logs/one-shot/chengRW-4000", "cobra-logs/one-shot/twitter-10000"})
    void solverAloneAcceptsSerializableHistories(String rel) throws Exception {
        Path shared = Histories.shared();
        assumeTrue(shared != null, "../shared/data is not beside this checkout (it exists only in development and CI)");
        Path p = shared.resolve("data").resolve(rel);
        assumeTrue(Files.exists(p), p + " is not in this copy of the shared corpus");
        History h = HistoryReaders.read(p).history();
        Verdict v = Checker.check(h, CheckOptions.defaults().withReachability(ChainCoverReachability.withMaxCells(0)));
        assertEquals(Verdict.Outcome.ACCEPT, v.outcome(), rel);
        assertEquals(v.stats().constraintsBefore, v.stats().constraintsAfterPrune, "nothing was pruned");
        assertNull(WitnessReplayer.problem(h, v.witness()), rel);
    }
}
