package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/**
 * {@code --isolation} on the commands that verify in rounds: serializable and strict-serializable are taken, a weaker level
 * is refused before anything starts (exit 2, saying where it is checked), and every verdict line names its level.
 */
class RoundsIsolationTest {
    @Test
    void theLevelsRoundsCheckAreTakenAndTheOthersRefusedWithWhere() {
        assertFalse(RoundsIsolation.strict(null, false));
        assertTrue(RoundsIsolation.strict(null, true));
        assertFalse(RoundsIsolation.strict("serializable", false));
        assertTrue(RoundsIsolation.strict("strict-ser", false));
        assertTrue(RoundsIsolation.strict("strict-serializable", true));
        IllegalArgumentException si = assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.strict("si", false));
        assertTrue(si.getMessage().contains("snapshot-isolation is checked one shot (cobra verify --isolation si FILE)"), si.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.strict("ser", true), "--strict contradicts serializable");
        assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.strict("linearizable", false));
    }

    @Test
    void eachRoundsCommandRefusesAWeakerLevelBeforeItStarts() {
        for (String[] args : new String[][] {{"verifier", "--isolation", "read-committed"}, {"replay", "--from-round", "0", "--isolation", "causal"},
                {"demo", "--isolation", "snapshot-isolation"}}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ":\n" + r.err());
            assertTrue(r.err().contains("rounds check serializable and strict-serializable"), r.err());
            assertFalse(r.err().contains("did not answer"), "refused before reaching for Kafka: " + r.err());
        }
    }

    @Test
    void aVerdictNamesItsLevelAndAnOldOneIsReadFromItsStrictFlag() {
        Verdict v = Verdict.newBuilder().setRound(3).setOutcome(Outcome.ACCEPT).setReason("ok").setRoundTxns(1).setCheckedTxns(1).setPendingTxns(0)
                .setFirstEpoch(0).setLastEpoch(0).setConstraints(0).setConstraintsAfterPruning(0).setBuildMs(0).setConstructMs(0).setPruneMs(0)
                .setSolveMs(0).setTotalMs(0).setVerifiedAt(0).build();
        assertEquals("serializable", VerdictLines.isolation(v));
        v.setStrict(true);
        assertEquals("strict-serializable", VerdictLines.isolation(v));
        v.setIsolation("serializable");
        assertEquals("serializable", VerdictLines.isolation(v));
        assertTrue(VerdictLines.json(v).contains("\"isolation\":\"serializable\""), VerdictLines.json(v));
    }
}
