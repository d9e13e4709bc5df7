package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.cobraverify.history.History;
import org.cobraverify.synth.SyntheticWorkloads;
import org.junit.jupiter.api.Test;

/**
 * A violation proved by search is reported the moment it is decided, with the solver's core; its certificate
 * is shrunk afterwards within its own budget, and says honestly what that achieved.
 */
class DecisionFirstTest {
    private static final Set<String> FORK = Set.of("fork-1", "fork-2", "fork-3", "fork-4", "fork-5", "fork-6", "fork-7", "fork-8");

    /** The keys the certificate's transactions touch that are the fork's private keys, per transaction. */
    private static Set<String> forkKeysOf(History h, List<String> ids) {
        Set<String> keys = new TreeSet<>();
        for (String id : ids)
            for (int t = 0; t < h.size(); t++)
                if (h.name(t).equals(id))
                    for (int op = h.opStart(t); op < h.opEnd(t); op++) keys.add(History.show(h.keyName(h.key(op))));
        keys.retainAll(FORK);
        return keys;
    }

    @Test
    void hiddenForkIsDecidedBySearchReportedFirstAndShrunkToTheEightTransactionsOfTheFork() {
        History h = SyntheticWorkloads.hiddenLongFork(4000, 96, 24, 3);
        List<Verdict> heard = new ArrayList<>();
        // no limit on shrinking: MINIMAL must follow from the work, not from how fast this machine is today
        Verdict v = Checker.check(h, CheckOptions.defaults().withCertificateBudget(Double.POSITIVE_INFINITY).withDecisionListener(heard::add));
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        Certificate c = v.certificate();
        assertEquals(AnomalyKind.UNSERIALIZABLE, c.kind(), "pruning alone must not find it: " + c.summary());
        assertEquals(1, heard.size(), "the decision is announced once, before shrinking");
        Certificate atDecision = heard.get(0).certificate();
        assertEquals(null, atDecision.reduction(), "at the decision: the solver's core, not yet shrunk");
        assertTrue(v.stats().decisionNanos > 0 && v.stats().certificateNanos > 0);

        assertNotNull(c.reduction());
        assertEquals(Certificate.Reduction.Status.MINIMAL, c.reduction().status(), c.reduction().describe());
        assertEquals(8, c.subHistory().size(), "the planted fork and nothing else: " + c.subHistory());
        assertEquals(FORK, forkKeysOf(h, c.subHistory()));
        int[] sub = c.subHistory().stream().mapToInt(id -> {
            for (int t = 0; t < h.size(); t++) if (h.name(t).equals(id)) return t;
            throw new AssertionError(id);
        }).sorted().toArray();
        assertEquals(Verdict.Outcome.REJECT, Checker.check(h.restrict(sub)).outcome(), "the certificate is itself rejected");
        assertEquals(2, c.cases().size(), "each order of x, case by case: " + c.cases());
    }

    @Test
    void budgetZeroReportsTheCoreAsFoundAndNeverCallsItMinimal() {
        History h = SyntheticWorkloads.hiddenLongFork(4000, 96, 24, 3);
        List<Verdict> heard = new ArrayList<>();
        Verdict v = Checker.check(h, CheckOptions.defaults().withCertificateBudget(0).withDecisionListener(heard::add));
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        Certificate c = v.certificate();
        assertEquals(Certificate.Reduction.Status.AS_FOUND, c.reduction().status());
        assertEquals(0, v.stats().certificateNanos);
        assertTrue(c.summary().contains("whichever way they go"), c.summary());
        assertTrue(!c.summary().contains("removing any one"), "no minimality claimed: " + c.summary());
    }

    @Test
    void aBudgetTooSmallToFinishIsReportedHonestly() {
        History h = SyntheticWorkloads.hiddenLongFork(4000, 96, 24, 3);
        Verdict v = Checker.check(h, CheckOptions.defaults().withCertificateBudget(1e-6));
        Certificate c = v.certificate();
        assertEquals(Verdict.Outcome.REJECT, v.outcome());
        assertNotEquals(Certificate.Reduction.Status.MINIMAL, c.reduction().status(), c.reduction().describe());
        assertTrue(!c.summary().contains("removing any one"), c.summary());
    }
}
