package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.cobraverify.gc.analysis.GarbageCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link RoundsDifferential} at CI size: generated histories with aborted and unknown transactions, dirty,
 * intermediate and long-past reads, keys gone cold, rows inserted once, delivered to a {@link RoundVerifier} in the orders the topology allows and
 * decided in batches as the service decides them; every round's verdict must equal the one-shot check of what it
 * could check, or be unknown. {@code -Dcobra.propertySeed=S} moves the seeds, {@code -Dcobra.propertyRuns=N} sets
 * how many (a failure names its seed: {@code -Dcobra.propertySeed=<seed> -Dcobra.propertyRuns=1} reruns it alone);
 * {@code cobra bench --differential N} runs the same at campaign size.
 */
class ServicePathAgainstOneShotTest {
    private static final int RUNS = Integer.getInteger("cobra.propertyRuns", 2000);
    private static final long SEED = Long.getLong("cobra.propertySeed", 1);

    @Test
    void everyRoundAgreesWithOneShotOrIsUnknown() {
        RoundsDifferential.Totals all = new RoundsDifferential.Totals();
        for (int i = 0; i < RUNS; i++) {
            RoundsDifferential.Result r = RoundsDifferential.run(SEED + i);
            assertNull(r.problem(), r.problem());
            all.add(r);
        }
        System.out.printf("service path: %d histories (%d transactions), %d verdicts: %d accept, %d reject, %d unknown (%.2f%%); collected in %d histories%n",
                all.histories, all.transactions, all.verdicts(), all.accepted, all.rejected, all.unknown, 100 * all.unknownShare(), all.collected);
        all.unknownReasons.forEach((k, c) -> System.out.println("  unknown " + c + "x: " + k));
        assertTrue(all.collected > RUNS / 4, "garbage collection must run in a good share of the histories: " + all.collected);
        assertTrue(all.rejected > RUNS / 10 && all.accepted > RUNS, all.accepted + " accepted and " + all.rejected + " rejected verdicts: both must be exercised");
        assertTrue(all.unknownShare() < 0.02, "unknown verdicts must stay under 2%: " + all.unknown + " of " + all.verdicts());
    }

    /**
     * Found by the campaign ({@code cobra bench --differential 10000 --seed 200001}): in strict mode the barrier's
     * real-time summary counted the start of an old transaction outside the checked history (aborted, or of unknown
     * outcome and unread), so a fence that ended before it was placed both before and after the collected past, and a
     * serializable history was rejected ("T44 -past-> T44"). The generator has grown since; {@code Shapes.FIRST} gives
     * the history the seed gave then.
     */
    @Test
    void strictBarrierTimesCountOnlyCheckedTransactions() {
        RoundsDifferential.Result r = RoundsDifferential.run(203050, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.FIRST);
        assertNull(r.problem(), r.problem());
        assertTrue(r.accepted() > 0, "accepted rounds: " + r.accepted());
    }

    /**
     * Found by the campaign ({@code cobra bench --differential 20000 --seed 200001}) in the life-after-a-violation path,
     * both false "own transactions clean" claims (the history's verdict stayed reject). Seed 206374: a transaction of
     * unknown outcome stayed retained after garbage collection took the committed reader that proved it committed, so a
     * later round left it out and missed the cycle it closed ({@code Collector.Outcome#knownCommitted}). Seed 210441: a
     * path the collected past kept only through a transaction set aside later was lost with it
     * ({@code CollectedPast#contract}). Seed 1415324 ({@code --differential 20000 --seed 1400001}): a transaction of unknown
     * outcome read a tainted key's initial value (§7.10) while nobody read its writes, so the checked history left it out;
     * when a later round's reader brought it in, only that round's admitted transactions were examined for untestable
     * reads, and the round claimed clean a G-single through the read (now: checked for the first time includes it).
     * Seed 1609066 ({@code --differential 20000 --seed 1600001}): a transaction read a key's current frontier value and
     * then its initial value; the key was taken for isolated (its only toucher read the current value first), so the
     * first read left the round's history and the internal inconsistency went unseen (now: a second read before a write
     * makes the key shared).
     * Pinned to the generator of 2026-12-05 ({@code Shapes.DECEMBER}): if it changes, the seeds still run but may no longer
     * reach these states.
     */
    @ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {206374, 210441, 1415324, 1609066})
    void ownCleanRoundsAfterAViolationAgreeWithOneShot(long seed) {
        RoundsDifferential.Result r = RoundsDifferential.run(seed, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.DECEMBER);
        assertNull(r.problem(), r.problem());
        assertTrue(r.rejected() > 0, "the seed's history holds violations: " + r.rejected() + " rejects");
    }

    /**
     * Found by the generator's late commits (transactions of unknown outcome that take effect after their session went on,
     * docs/DESIGN.md §1.2): seed 1651, a false reject. A retained transaction of unknown outcome that a collected reader had
     * read was recorded as committed, and the round's history then ran session order from it, closing "T20 -so-> T29 -so->
     * T30 -path-> T20" (now: it stays unacknowledged, {@code HeldTransactions.acknowledged}, and nothing follows it by
     * session order). Seed 7200286 ({@code --differential 600 --seed 7200001}, with certificates audited): a carried fact
     * of an earlier round closed a cycle as a plain ww edge, neither observed nor explained (now: carried facts say so,
     * {@code KnownGraph.CARRIED}). Seed 8139320 ({@code --differential 60000 --seed 8100001}): a collected transaction of
     * unknown outcome, found committed, gave the past's real-time summary its end while garbage collection (rightly) gave it
     * none, and the verifier stopped on "internal: garbage collection's real-time point is not the past's" (now: the
     * summary asks the round's history whether it is acknowledged).
     */
    @ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1651, 7200286, 8139320})
    void lateCommitsAndCarriedFactsAgreeWithOneShot(long seed) {
        RoundsDifferential.Result r = RoundsDifferential.run(seed, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.BEFORE_BLIND_WRITES);
        assertNull(r.problem(), r.problem());
        assertTrue(r.certificates() > 0 || r.rejected() == 0, "its certificates were audited: " + r.certificates());
    }

    /**
     * Found while building the collection of superseded writes of staying writers (docs/DESIGN.md §7.9), each a wrong
     * verdict of an early version: seed 2951, a false accept (a path between two staying transactions ran through a
     * synthetic writer, which the contraction took for a transaction that stays, so the path was not carried); seeds 1534
     * and 2548, false rejects (a writer's last write of a key was collected but an earlier, intermediate one stayed in the
     * round's history, where it looked like the writer's final write); seed 1612748 ({@code --differential 20000 --seed
     * 1600001}), a false accept (the writer's write was read by a transaction of unknown outcome outside the checked
     * history, whose reads the read-from index never looks at; when a later read included it, its read of the collected
     * write was not judged).
     */
    @ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {2951, 1534, 2548, 1612748})
    void writesCollectedWhileTheirWritersStayAgreeWithOneShot(long seed) {
        RoundsDifferential.Result r = RoundsDifferential.run(seed, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.DECEMBER);
        assertNull(r.problem(), r.problem());
        assertTrue(r.collected(), "seed " + seed + " collected nothing");
    }

    /**
     * The comparison has teeth: on these seeds (found by scanning seeds 1..5,000 with each careless rule; about one
     * history in 2,500 exposes each), garbage collection by the paper's careless rule accepts a history one-shot
     * checking rejects (a path through collected transactions lost), and settling frontier writers against each other
     * rejects a serializable one (on keys gone cold, with the contrary solver), and collecting a frontier writer as data
     * while an older writer of its key stays, or a later one does not follow the next past, gives verdicts one-shot
     * checking contradicts (88 of 5,000: {@code cobra bench --differential 5000 --gc-rules CARELESS_FRONTIER}), and
     * collecting a frontier writer as data while an older writer of its key stays without collecting that writer's write
     * (7 of the first 1,000 seeds: {@code --gc-rules CARELESS_MARKS}; seed 834 a false accept); the sound rules agree with one-shot
     * checking on the same seeds. If the generator changes, these seeds stop exposing the rules and this test fails:
     * scan again ({@code RoundsDifferential.run(seed, rules)} for seeds 1..5,000) and name the new ones.
     */
    @ParameterizedTest(name = "{0} on seed {1}")
    @CsvSource({"CARELESS_COLLECTION, 866", "CARELESS_COLLECTION, 2922", "CARELESS_SETTLING, 1809", "CARELESS_SETTLING, 3289",
                "CARELESS_FRONTIER, 55", "CARELESS_FRONTIER, 87", "CARELESS_MARKS, 834", "CARELESS_MARKS, 35"})
    void carelessRulesDisagreeWithOneShotWhereTheSoundOnesAgree(GarbageCollection.Rules rules, long seed) {
        RoundsDifferential.Result careless = RoundsDifferential.run(seed, rules, RoundsDifferential.Shapes.DECEMBER);
        assertNotNull(careless.problem(), rules + " on seed " + seed + " agreed with one-shot checking everywhere");
        RoundsDifferential.Result sound = RoundsDifferential.run(seed, GarbageCollection.Rules.SOUND, RoundsDifferential.Shapes.DECEMBER);
        assertNull(sound.problem(), sound.problem());
    }
}
