package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/**
 * {@code --isolation} on the commands that verify in rounds: every level of the ladder is taken (below serializability with
 * the sealed past, docs/DESIGN.md §7.11), a name that is no level, or one that contradicts {@code --strict}, is refused
 * before anything starts (exit 2), and every verdict line names its level.
 */
class RoundsIsolationTest {
    @Test
    void everyLevelIsTakenAndWhatNamesNoneOrContradictsStrictIsRefused() {
        assertEquals(IsolationLevel.SERIALIZABLE, RoundsIsolation.level(null, false));
        assertEquals(IsolationLevel.STRICT_SERIALIZABLE, RoundsIsolation.level(null, true));
        assertEquals(IsolationLevel.STRICT_SERIALIZABLE, RoundsIsolation.level("strict-ser", false));
        assertEquals(IsolationLevel.STRICT_SERIALIZABLE, RoundsIsolation.level("strict-serializable", true));
        for (IsolationLevel l : IsolationLevel.values()) {
            assertEquals(l, RoundsIsolation.level(l.longName(), false));
            assertEquals(l, RoundsIsolation.level(l.shortName(), false));
        }
        assertFalse(RoundsIsolation.strict("si", false));
        IllegalArgumentException contra = assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.level("si", true));
        assertTrue(contra.getMessage().contains("--strict means --isolation strict-serializable"), contra.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.level("ser", true), "--strict contradicts serializable");
        assertThrows(IllegalArgumentException.class, () -> RoundsIsolation.level("linearizable", false));
    }

    @Test
    void eachRoundsCommandRefusesANameThatIsNoLevelBeforeItStarts() {
        for (String[] args : new String[][] {{"verifier", "--isolation", "linearizable"}, {"replay", "--from-round", "0", "--isolation", "si", "--strict"},
                {"demo", "--isolation", "read-uncommitted"}}) {
            VerifyCommandTest.Run r = VerifyCommandTest.cobra(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ":\n" + r.err());
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
