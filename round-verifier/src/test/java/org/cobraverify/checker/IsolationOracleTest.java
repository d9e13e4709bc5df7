package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.api.Test;

/**
 * The isolation ladder against a brute-force oracle ({@link IsolationOracle}): first the oracle itself, on hand-written
 * anomalies with known answers and on the ladder property over generated histories; then {@link Isolation#check} at
 * every level against the oracle on seeded random histories.
 *
 * <p>Generated cases: a base seed ({@code -Dcobra.oracleSeed=N}, default {@value #DEFAULT_BASE_SEED}) derives one seed
 * per case; every failure prints the case's seed and its history, and {@code -Dcobra.seed=S} reruns case seed S alone.
 * The generator ({@link #generate}) makes 2–6 transactions in 1–3 sessions on 1–3 keys, mostly committed, some aborted
 * or unknown, half of the histories timed; their reads come from executions that each allow the anomalies of some
 * level ({@link Visibility}), now and then disturbed, so that every level both accepts and rejects often and is often
 * the strongest one satisfied ({@link #generatorCoversEveryOutcome}). A third of the histories are Elle-style
 * list-append histories (every key a list: appends and list reads; -Dcobra.oracleLists=false leaves them out), and
 * both the coverage and the differential are counted for register and list histories apart.
 */
class IsolationOracleTest {
    private static final long DEFAULT_BASE_SEED = 20_240_601L;
    private static final long BASE_SEED = Long.getLong("cobra.oracleSeed", DEFAULT_BASE_SEED);
    /** Generated histories for the checker's differential; raise with -Dcobra.oracleRuns=N for a longer campaign. */
    private static final int DIFFERENTIAL_RUNS = Integer.getInteger("cobra.oracleRuns", 5000);
    /**
     * Whether a third of the generated histories are list-append histories (-Dcobra.oracleLists=false: registers only,
     * the same register histories).
     */
    private static final boolean LISTS = Boolean.parseBoolean(System.getProperty("cobra.oracleLists", "true"));
    /** Generated histories for the oracle's own properties. */
    private static final int ORACLE_RUNS = 5000;
    private static final CheckOptions OPTIONS = CheckOptions.defaults().withStrict(0);
    private static final IsolationLevel[] LEVELS = IsolationLevel.values();

    // ---------------------------------------------------------------- the oracle on hand-written histories

    @Test
    void lostUpdateIsCausalNotSnapshotIsolation() {
        History h = new Hand().txn("s1", "r(x)=nil w(x)=1").txn("s2", "r(x)=nil w(x)=2").build();
        assertLevels(upTo(IsolationLevel.CAUSAL), h);
    }

    @Test
    void writeSkewIsSnapshotIsolationNotSerializable() {
        History h = new Hand().txn("s1", "r(x)=nil r(y)=nil w(x)=1").txn("s2", "r(x)=nil r(y)=nil w(y)=2").build();
        assertLevels(upTo(IsolationLevel.SNAPSHOT_ISOLATION), h);
    }

    @Test
    void fracturedReadIsReadCommittedOnlyWhenTheMissedKeyIsReadFirst() {
        History missedFirst = new Hand().txn("s1", "w(x)=1 w(y)=1").txn("s2", "r(y)=nil r(x)=1").build();
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), missedFirst);
        History missedAfter = new Hand().txn("s1", "w(x)=1 w(y)=1").txn("s2", "r(x)=1 r(y)=nil").build();
        assertLevels(none(), missedAfter);
    }

    @Test
    void readCommittedCountsFromWhereTheReadIs() {
        History repeatedAfterSeeingTheWriter = new Hand().txn("s1", "w(x)=1 w(y)=1").txn("s2", "r(x)=nil r(y)=1 r(x)=nil").build();
        assertLevels(none(), repeatedAfterSeeingTheWriter);
        History repeatedBeforeSeeingIt = new Hand().txn("s1", "w(x)=1 w(y)=1").txn("s2", "r(x)=nil r(x)=nil r(y)=1").build();
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), repeatedBeforeSeeingIt);
    }

    @Test
    void causalityViolationIsReadAtomicNotCausal() {
        History h = new Hand().txn("s1", "w(x)=1").txn("s2", "r(x)=1 w(y)=1").txn("s3", "r(y)=1 r(x)=nil").build();
        assertLevels(upTo(IsolationLevel.READ_ATOMIC), h);
    }

    @Test
    void longForkIsCausalNotSnapshotIsolation() {
        History h = new Hand().txn("s1", "w(x)=1").txn("s2", "w(y)=1")
                .txn("s3", "r(x)=1 r(y)=nil").txn("s4", "r(y)=1 r(x)=nil").build();
        assertLevels(upTo(IsolationLevel.CAUSAL), h);
    }

    @Test
    void staleReadAfterTheWriterEndedIsSerializableNotStrict() {
        History h = new Hand().txn("s1", History.COMMITTED, 0, 10, "w(x)=1").txn("s2", History.COMMITTED, 20, 30, "r(x)=nil")
                .build();
        assertLevels(upTo(IsolationLevel.SERIALIZABLE), h);
        assertEquals(upTo(IsolationLevel.SERIALIZABLE), IsolationOracle.satisfied(h, 9), "a drift of 9 orders them still");
        assertEquals(all(), IsolationOracle.satisfied(h, 10), "a drift of 10 leaves them concurrent");
    }

    @Test
    void realTimeOrdersByTheTimesATransactionHas() {
        History endOnly = new Hand().txn("s1", History.COMMITTED, History.NO_TIME, 10, "w(x)=1")
                .txn("s2", History.COMMITTED, 20, 30, "r(x)=nil").build();
        assertLevels(upTo(IsolationLevel.SERIALIZABLE), endOnly);
        History startOnly = new Hand().txn("s1", History.COMMITTED, 0, History.NO_TIME, "w(x)=1")
                .txn("s2", History.COMMITTED, 20, 30, "r(x)=nil").build();
        assertLevels(all(), startOnly);
        History unknownWriter = new Hand().txn("s1", History.UNKNOWN, 0, 10, "w(x)=1 w(y)=1")
                .txn("s2", History.COMMITTED, 20, 30, "r(x)=nil").txn("s3", "r(y)=1").build();
        assertLevels(all(), unknownWriter); // it commits (s3 reads it) but has no end: it may have taken effect after 30
        History unknownReader = new Hand().txn("s1", History.COMMITTED, 0, 10, "w(x)=1")
                .txn("s2", History.UNKNOWN, 20, 30, "r(x)=nil w(y)=1").txn("s3", "r(y)=1").build();
        assertLevels(upTo(IsolationLevel.SERIALIZABLE), unknownReader); // it keeps its start
    }

    @Test
    void abortedReadFailsEveryLevel() {
        History h = new Hand().txn("s1", History.ABORTED, "w(x)=1").txn("s2", "r(x)=1").build();
        assertLevels(none(), h);
    }

    @Test
    void intermediateReadFailsEveryLevel() {
        History h = new Hand().txn("s1", "w(x)=1 w(x)=2").txn("s2", "r(x)=1").build();
        assertLevels(none(), h);
    }

    @Test
    void nonRepeatableReadIsReadCommittedNotReadAtomic() {
        History h = new Hand().txn("s1", "w(x)=1").txn("s2", "r(x)=nil r(x)=1").build();
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), h);
    }

    @Test
    void unknownTransactionThatIsReadCountsAsCommitted() {
        History h = new Hand().txn("s1", History.UNKNOWN, "w(x)=1").txn("s2", "r(x)=1").build();
        assertLevels(all(), h);
    }

    @Test
    void unknownTransactionsNobodyReadsDoNotHurt() {
        History lostUpdate = new Hand().txn("s1", "r(x)=nil w(x)=1").txn("s2", History.UNKNOWN, "r(x)=nil w(x)=2").build();
        assertLevels(all(), lostUpdate);
        History abortedRead = new Hand().txn("s1", History.ABORTED, "w(x)=1").txn("s2", History.UNKNOWN, "r(x)=1").build();
        assertLevels(all(), abortedRead);
    }

    @Test
    void abortedTransactionsReadsAreNotChecked() {
        History h = new Hand().txn("s1", "w(x)=1 w(x)=2").txn("s2", History.ABORTED, "r(x)=1 w(x)=3 r(x)=nil").build();
        assertLevels(all(), h);
    }

    @Test
    void readsInsideOneTransaction() {
        assertLevels(all(), new Hand().txn("s1", "w(x)=1 r(x)=1 w(x)=2 r(x)=2").build());
        assertLevels(none(), new Hand().txn("s1", "w(x)=1 w(x)=2 r(x)=1").build());
        assertLevels(none(), new Hand().txn("s1", "w(x)=1 r(x)=nil").build());
        assertLevels(none(), new Hand().txn("s1", "r(x)=1 w(x)=1").build());
    }

    @Test
    void sessionOrderMakesLaterTransactionsReadTheirWritesAboveReadCommitted() {
        // read committed as Biswas and Enea define it has no session premise: a session may miss its own earlier write
        assertLevels(upTo(IsolationLevel.READ_COMMITTED), new Hand().txn("s1", "w(x)=1").txn("s1", "r(x)=nil").build());
        // reading older than the session read before (monotonic reads) is forbidden from causal on, through the causal past
        assertLevels(upTo(IsolationLevel.READ_ATOMIC), new Hand().txn("s1", "w(x)=1").txn("s2", "r(x)=1 w(x)=2")
                .txn("s3", "r(x)=2").txn("s3", "r(x)=1").build());
        assertLevels(all(), new Hand().txn("s1", "w(x)=1").txn("s2", "r(x)=nil").build());
        // and still no cycle through session order
        assertLevels(none(), new Hand().txn("s1", "r(x)=1").txn("s1", "w(x)=1").build());
    }

    @Test
    void aSessionNeedNotFollowATransactionOfUnknownOutcome() {
        // u's commit may take effect after the session went on (docs/DESIGN.md §1.2): t missing u's write while another reads it
        History late = new Hand().txn("s1", History.UNKNOWN, "w(x)=1").txn("s1", "r(x)=nil").txn("s2", "r(x)=1").build();
        assertLevels(all(), late);
        // but u follows its session's predecessors
        History before = new Hand().txn("s1", "w(y)=1").txn("s1", History.UNKNOWN, "r(y)=nil w(x)=1").txn("s2", "r(x)=1").build();
        assertLevels(upTo(IsolationLevel.READ_COMMITTED), before);
        // and a committed transaction still precedes its session's later ones, past an unknown one between them
        History past = new Hand().txn("s1", "w(y)=1").txn("s1", History.UNKNOWN, "w(x)=1").txn("s1", "r(y)=nil").build();
        assertLevels(upTo(IsolationLevel.READ_COMMITTED), past);
    }

    // ---------------------------------------------------------------- the oracle on hand-written list histories

    @Test
    void listReadsOfWholeRunsInCommitOrder() {
        assertLevels(all(), new Hand().txn("s1", "a(x)=1 a(x)=2").txn("s2", "a(x)=3").txn("s3", "r(x)=[1,2,3]").build());
        assertLevels(all(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2").txn("s3", "r(x)=[2,1]").build());
        assertLevels(all(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2").txn("s3", "r(x)=[]").build());
    }

    @Test
    void listReadsThatNoVersionOrderExplainsFailEveryLevel() {
        History intermediate = new Hand().txn("s1", "a(x)=1 a(x)=2").txn("s2", "r(x)=[1]").build();
        assertLevels(none(), intermediate);
        History reversedRun = new Hand().txn("s1", "a(x)=1 a(x)=2").txn("s2", "r(x)=[2,1]").build();
        assertLevels(none(), reversedRun);
        History splitRun = new Hand().txn("s1", "a(x)=1 a(x)=2").txn("s2", "a(x)=3").txn("s3", "r(x)=[1,3,2]").build();
        assertLevels(none(), splitRun);
        History aborted = new Hand().txn("s1", History.ABORTED, "a(x)=1").txn("s2", "r(x)=[1]").build();
        assertLevels(none(), aborted);
        History nobody = new Hand().txn("s1", "a(x)=1").txn("s2", "r(x)=[1,7]").build();
        assertLevels(none(), nobody);
        History skipsTheFirst = new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2").txn("s3", "r(x)=[1,2]").txn("s4", "r(x)=[2]")
                .build();
        assertLevels(none(), skipsTheFirst); // [2] makes s2's append x's first version, [1 2] s1's
    }

    @Test
    void listReadAfterOwnAppends() {
        assertLevels(all(), new Hand().txn("s1", "a(x)=1").txn("s2", "r(x)=[1] a(x)=2 r(x)=[1,2] a(x)=3 r(x)=[1,2,3]").build());
        assertLevels(all(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2 r(x)=[1,2]").build());
        // read committed: each statement may see a newer committed state under its own appends; no level above allows it
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), new Hand().txn("s1", "a(x)=1").txn("s2", "r(x)=[] a(x)=2 r(x)=[1,2]").build());
        assertLevels(none(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2 r(x)=[2,1]").build());
        assertLevels(none(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2 r(x)=[1]").build());
        assertLevels(none(), new Hand().txn("s1", "a(x)=1 a(x)=2 r(x)=[1]").build());
        // s2 saw [1] and appended after it: s1's append is x's first version, and [2] contradicts that
        assertLevels(none(), new Hand().txn("s1", "a(x)=1").txn("s2", "a(x)=2 r(x)=[1,2]").txn("s3", "r(x)=[2]").build());
    }

    @Test
    void listAnomaliesClimbTheLadder() {
        History lostUpdate = new Hand().txn("s1", "r(x)=[] a(x)=1").txn("s2", "r(x)=[] a(x)=2").txn("s3", "r(x)=[1,2]").build();
        assertLevels(upTo(IsolationLevel.CAUSAL), lostUpdate);
        History nonRepeatable = new Hand().txn("s1", "a(x)=1").txn("s2", "r(x)=[] r(x)=[1]").build();
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), nonRepeatable);
        History fractured = new Hand().txn("s1", "a(x)=1 a(y)=1").txn("s2", "r(x)=[1] r(y)=[]").build();
        assertLevels(none(), fractured);
        // a list read observes every append in it, not only the last: [1 2] saw t1's append of x, so y=[] is fractured
        History observedEarlier = new Hand().txn("t1", "a(x)=1 a(y)=1").txn("t2", "a(x)=2").txn("t3", "r(x)=[1,2] r(y)=[]").build();
        assertLevels(none(), observedEarlier);
        History observedLater = new Hand().txn("t1", "a(x)=1 a(y)=1").txn("t2", "a(x)=2").txn("t3", "r(y)=[] r(x)=[1,2]").build();
        assertLevels(upTo(IsolationLevel.STRONG_SESSION_READ_COMMITTED), observedLater);
        History causality = new Hand().txn("s1", "a(x)=1").txn("s2", "r(x)=[1] a(y)=1").txn("s3", "r(y)=[1] r(x)=[]").build();
        assertLevels(upTo(IsolationLevel.READ_ATOMIC), causality);
        History longFork = new Hand().txn("s1", "a(x)=1").txn("s2", "a(y)=1")
                .txn("s3", "r(x)=[1] r(y)=[]").txn("s4", "r(y)=[1] r(x)=[]").build();
        assertLevels(upTo(IsolationLevel.CAUSAL), longFork);
        History writeSkew = new Hand().txn("s1", "r(x)=[] r(y)=[] a(x)=1").txn("s2", "r(x)=[] r(y)=[] a(y)=1").build();
        assertLevels(upTo(IsolationLevel.SNAPSHOT_ISOLATION), writeSkew);
        History stale = new Hand().txn("s1", History.COMMITTED, 0, 10, "a(x)=1").txn("s2", History.COMMITTED, 20, 30, "r(x)=[]")
                .build();
        assertLevels(upTo(IsolationLevel.SERIALIZABLE), stale);
    }

    // ---------------------------------------------------------------- the oracle on generated histories

    @Test
    void oracleVerdictsFormALadder() {
        for (long seed : caseSeeds(ORACLE_RUNS)) {
            History h = generate(new Random(seed));
            EnumSet<IsolationLevel> sat = IsolationOracle.satisfied(h, 0);
            if (!isLadder(sat)) fail("the oracle's levels " + sat + " are not closed toward weaker levels, " + context(seed, h));
        }
    }

    @Test
    void generatorCoversEveryOutcome() {
        int[] runs = new int[2]; // [0]: register histories, [1]: list histories
        int[][] accepts = new int[2][LEVELS.length], strongest = new int[2][LEVELS.length + 1]; // strongest[.][0]: none
        for (long seed : caseSeeds(ORACLE_RUNS)) {
            History h = generate(new Random(seed));
            EnumSet<IsolationLevel> sat = IsolationOracle.satisfied(h, 0);
            int kind = isList(h) ? 1 : 0;
            runs[kind]++;
            for (IsolationLevel l : sat) accepts[kind][l.ordinal()]++;
            strongest[kind][sat.isEmpty() ? 0 : 1 + Collections.max(sat).ordinal()]++;
        }
        for (int kind = 0; kind < (LISTS ? 2 : 1); kind++) {
            System.out.printf("IsolationOracleTest: the oracle on %d generated %s histories (base seed %d); %d satisfy no level%n",
                    runs[kind], kind == 1 ? "list" : "register", BASE_SEED, strongest[kind][0]);
            for (IsolationLevel l : LEVELS) {
                int a = accepts[kind][l.ordinal()];
                System.out.printf("  %-29s %5d satisfied, %5d not, %5d the strongest satisfied%n", l.longName(), a, runs[kind] - a,
                        strongest[kind][1 + l.ordinal()]);
            }
        }
        if (runs[0] + runs[1] < ORACLE_RUNS) return; // one seed alone (-Dcobra.seed) covers nothing
        for (int kind = 0; kind < (LISTS ? 2 : 1); kind++) {
            String what = kind == 1 ? " (list histories)" : " (register histories)";
            int n = runs[kind];
            assertTrue(n >= ORACLE_RUNS / 5, "too few generated" + what + ": " + n);
            for (IsolationLevel l : LEVELS) {
                int a = accepts[kind][l.ordinal()];
                assertTrue(a >= n / 10 && n - a >= n / 10, l + " should be satisfied and violated often" + what + ": " + a + " of " + n);
                assertTrue(strongest[kind][1 + l.ordinal()] >= n / 100, l + " should often be the strongest level satisfied" + what
                        + ": " + strongest[kind][1 + l.ordinal()] + " of " + n);
            }
        }
    }

    // ---------------------------------------------------------------- the checker against the oracle

    @Test
    void checkerAgreesWithOracle() {
        System.out.printf("IsolationOracleTest: the checker against the oracle, base seed %d (-Dcobra.oracleSeed)%n", BASE_SEED);
        int[] runs = new int[2]; // [0]: register histories, [1]: list histories
        int[][] accepts = new int[2][LEVELS.length], rejects = new int[2][LEVELS.length], disagreements = new int[2][LEVELS.length];
        List<String> reports = new ArrayList<>();
        int ladderBreaks = 0;
        int reportLimit = Integer.getInteger("cobra.oracleReports", 5);
        for (long seed : caseSeeds(DIFFERENTIAL_RUNS)) {
            History h = generate(new Random(seed));
            EnumSet<IsolationLevel> truth = IsolationOracle.satisfied(h, 0), accepted = EnumSet.noneOf(IsolationLevel.class);
            int kind = isList(h) ? 1 : 0;
            runs[kind]++;
            for (IsolationLevel l : LEVELS) {
                Verdict.Outcome expected = truth.contains(l) ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT;
                String problem;
                try {
                    Verdict v = Isolation.check(h, l, OPTIONS);
                    if (v.outcome() == Verdict.Outcome.ACCEPT) {
                        accepted.add(l);
                        accepts[kind][l.ordinal()]++;
                    }
                    if (v.outcome() == Verdict.Outcome.REJECT) rejects[kind][l.ordinal()]++;
                    problem = v.outcome() != expected ? "the checker says " + v.outcome().word() + ", the oracle " + expected.word()
                            + (v.outcome() == Verdict.Outcome.UNKNOWN ? " (" + v.unknownReason() + ")" : "")
                            : v.outcome() == Verdict.Outcome.REJECT && v.certificate() == null ? "a reject without a certificate" : null;
                } catch (RuntimeException e) {
                    problem = "the checker throws " + e + ", the oracle says " + expected.word();
                }
                if (problem != null) {
                    disagreements[kind][l.ordinal()]++;
                    if (reports.size() < reportLimit) reports.add(l + ": " + problem + ", " + context(seed, h));
                }
            }
            if (!isLadder(accepted)) {
                ladderBreaks++;
                if (reports.size() < reportLimit) {
                    reports.add("the checker accepts " + accepted + ", not closed toward weaker levels, " + context(seed, h));
                }
            }
        }
        System.out.printf("  %-9s %-29s %9s %7s %7s %13s%n", "histories", "level", "histories", "accept", "reject", "disagreements");
        int total = 0;
        for (int kind = 0; kind < (LISTS ? 2 : 1); kind++) {
            for (IsolationLevel l : LEVELS) {
                int i = l.ordinal();
                System.out.printf("  %-9s %-29s %9d %7d %7d %13d%n", kind == 1 ? "list" : "register", l.longName(), runs[kind],
                        accepts[kind][i], rejects[kind][i], disagreements[kind][i]);
                total += disagreements[kind][i];
            }
        }
        if (!reports.isEmpty()) System.out.println("IsolationOracleTest: the first disagreements:\n" + String.join("\n", reports));
        assertEquals(0, total + ladderBreaks, total + " disagreements with the oracle and " + ladderBreaks
                + " verdict sets off the ladder; the first:\n" + String.join("\n", reports));
    }

    // ---------------------------------------------------------------- the generator

    /**
     * How a generated history's transactions choose what they see. Each transaction commits (or not) in a random order
     * that keeps session order and sees a set of the transactions committed before it (always those of its own
     * session); an external read returns the last write of the key in that order among what it sees, or NIL.
     */
    private enum Visibility {
        /** Everything committed before it: a serial execution. */
        SERIAL(1),
        /** A prefix of the commit order: a snapshot, perhaps stale (lost updates and write skew, never a long fork). */
        PREFIX(2),
        /** A random set closed under what its members saw: causal, perhaps a long fork. */
        CAUSAL(2),
        /** A random set, the same for all its reads, leaving out some of what its members saw: atomic, perhaps not causal. */
        ATOMIC(3),
        /**
         * A random set per read, usually growing from one read to the next, a read of a key read before sometimes
         * repeating that read: fractured, non-repeatable and stale repeated reads.
         */
        PER_READ(2),
        /** No visible set: every read picks a plausible value at random ({@link #plausibleRead}). */
        RANDOM(1);

        /** How often a history is generated this way, relative to the others. */
        final int weight;

        Visibility(int weight) { this.weight = weight; }

        static Visibility pick(Random rnd) {
            int total = 0;
            for (Visibility v : values()) total += v.weight;
            int roll = rnd.nextInt(total);
            for (Visibility v : values()) if ((roll -= v.weight) < 0) return v;
            throw new AssertionError();
        }
    }

    /**
     * A random history: 2–6 transactions in 1–3 sessions on 1–3 keys, 1–4 operations each, about 10% aborted and 10%
     * unknown (at most 2), mostly reads before writes; in a third of the histories every key is a list, a write appends
     * (at most 2 appends of one key a transaction) and a read returns a list ({@link #visibleList}); reads chosen by a
     * random {@link Visibility}, then in a quarter of the histories a read or two replaced by a {@link #plausibleRead}
     * (which may be an aborted or intermediate value, or a list no version order explains);
     * times on about half of the histories ({@link #assignTimes}), in the execution's commit order or (a quarter of
     * them) in history order.
     */
    static History generate(Random rnd) {
        int n = 2 + Math.max(rnd.nextInt(5), rnd.nextInt(5)), sessions = 1 + rnd.nextInt(Math.min(3, n)), keys = 1 + rnd.nextInt(3);
        boolean lists = rnd.nextInt(3) == 0 && LISTS;
        Txn[] txns = new Txn[n];
        int unknown = 0, nextValue = 1;
        for (int t = 0; t < n; t++) {
            int roll = rnd.nextInt(10);
            byte status = roll == 0 ? History.ABORTED : roll == 1 && unknown < 2 ? History.UNKNOWN : History.COMMITTED;
            if (status == History.UNKNOWN) unknown++;
            Txn txn = txns[t] = new Txn(rnd.nextInt(sessions), status, 1 + Math.max(rnd.nextInt(4), rnd.nextInt(4)), lists);
            for (int i = 0; i < txn.write.length; i++) {
                txn.key[i] = rnd.nextInt(keys);
                txn.write[i] = rnd.nextInt(100) < 45;
                if (lists && txn.write[i] && txn.appendsBefore(txn.key[i], i).length == 2) txn.write[i] = false; // 1–2 appends a key
            }
            if (rnd.nextInt(3) != 0) txn.readsFirst();
            for (int i = 0; i < txn.write.length; i++) if (txn.write[i]) txn.value[i] = nextValue++;
        }
        int[] order = sessionRespectingOrder(txns, rnd);
        if (rnd.nextInt(3) == 0) commitLate(txns, order, rnd);
        Visibility visibility = Visibility.pick(rnd);
        if (lists && rnd.nextInt(6) == 0) visibility = Visibility.PER_READ; // lists' version orders leave read committed rarer
        if (visibility == Visibility.RANDOM) {
            for (int t = 0; t < n; t++) {
                for (int i = 0; i < txns[t].write.length; i++) if (!txns[t].write[i]) plausibleRead(txns, order, t, i, rnd);
            }
        } else {
            execute(txns, order, visibility, rnd);
            if (rnd.nextInt(4) == 0) for (int disturbed = 1 + rnd.nextInt(2); disturbed > 0; disturbed--) disturbOneRead(txns, order, rnd);
        }
        if (rnd.nextBoolean()) assignTimes(txns, rnd.nextInt(4) == 0 ? IntStream.range(0, n).toArray() : order, rnd);
        return build(txns);
    }

    /**
     * One generated transaction: session, status, times, and per operation a key, whether it writes, and the value; in
     * a list history ({@code lists}) every key is a list, a write appends its value and a read returns {@code list}.
     */
    private static final class Txn {
        final int session;
        final byte status;
        final boolean lists;
        long start = History.NO_TIME, end = History.NO_TIME;
        final int[] key, value;
        final int[][] list;
        final boolean[] write;

        Txn(int session, byte status, int ops, boolean lists) {
            this.session = session;
            this.status = status;
            this.lists = lists;
            key = new int[ops];
            value = new int[ops];
            list = new int[ops][];
            write = new boolean[ops];
        }

        /** The values this transaction appends (writes) to {@code x} before operation {@code op}, in order. */
        int[] appendsBefore(int x, int op) {
            return IntStream.range(0, op).filter(i -> write[i] && key[i] == x).map(i -> value[i]).toArray();
        }

        /** All of its appends to {@code x}. */
        int[] appends(int x) { return appendsBefore(x, write.length); }

        /** The list read {@code op}'s external part: its list without this transaction's own appends before it. */
        int[] externalPart(int op) {
            return Arrays.copyOf(list[op], Math.max(0, list[op].length - appendsBefore(key[op], op).length));
        }

        /** Sets read {@code op}'s result: {@code external} with this transaction's own appends before it on top. */
        void readList(int op, int[] external) { list[op] = concat(external, appendsBefore(key[op], op)); }

        /** Moves the reads before the writes, each in its order (read-modify-write: the shape of most anomalies). */
        void readsFirst() {
            int[] keys = key.clone();
            boolean[] writes = write.clone();
            int at = 0;
            for (boolean w : new boolean[] {false, true}) {
                for (int i = 0; i < keys.length; i++) {
                    if (writes[i] != w) continue;
                    key[at] = keys[i];
                    write[at++] = w;
                }
            }
        }

        /** This transaction's last read of {@code x} before operation {@code op}, or -1. */
        int lastReadBefore(int x, int op) {
            for (int i = op - 1; i >= 0; i--) if (!write[i] && key[i] == x) return i;
            return -1;
        }

        /** Whether this transaction writes {@code x} before operation {@code op}. */
        boolean writesBefore(int x, int op) {
            for (int i = 0; i < op; i++) if (write[i] && key[i] == x) return true;
            return false;
        }

        /** The value of this transaction's last write of {@code x} before operation {@code op}, or NIL. */
        int lastWriteBefore(int x, int op) {
            int v = History.NIL;
            for (int i = 0; i < op; i++) if (write[i] && key[i] == x) v = value[i];
            return v;
        }
    }

    /** A random interleaving of the sessions: every transaction after the earlier ones of its session. */
    private static int[] sessionRespectingOrder(Txn[] txns, Random rnd) {
        List<List<Integer>> bySession = new ArrayList<>();
        for (int t = 0; t < txns.length; t++) {
            while (bySession.size() <= txns[t].session) bySession.add(new ArrayList<>());
            bySession.get(txns[t].session).add(t);
        }
        bySession.removeIf(List::isEmpty);
        int[] order = new int[txns.length];
        for (int i = 0; i < order.length; i++) {
            List<Integer> s = bySession.get(rnd.nextInt(bySession.size()));
            order[i] = s.remove(0);
            if (s.isEmpty()) bySession.remove(s);
        }
        return order;
    }

    /**
     * Moves one transaction of unknown outcome (if there is one) to a random later place in {@code order}, perhaps after later
     * transactions of its session: its commit took effect after its session went on (docs/DESIGN.md §1.2).
     */
    private static void commitLate(Txn[] txns, int[] order, Random rnd) {
        List<Integer> at = new ArrayList<>();
        for (int p = 0; p < order.length; p++) if (txns[order[p]].status == History.UNKNOWN) at.add(p);
        if (at.isEmpty()) return;
        int p = at.get(rnd.nextInt(at.size())), to = p + rnd.nextInt(order.length - p), u = order[p];
        System.arraycopy(order, p + 1, order, p, to - p);
        order[to] = u;
    }

    /**
     * Fills in the reads: the transactions run one at a time in {@code order}, each committed one (and each unknown one,
     * by a coin) committing at its turn; each sees a set of the earlier committed ones chosen by {@code visibility}.
     */
    private static void execute(Txn[] txns, int[] order, Visibility visibility, Random rnd) {
        int n = txns.length;
        boolean[] commits = new boolean[n];
        boolean[][] saw = new boolean[n][];
        for (int p = 0; p < n; p++) {
            int t = order[p];
            Txn txn = txns[t];
            int[] before = Arrays.copyOf(order, p);
            boolean[] session = new boolean[n];
            int lastOfSession = -1;
            for (int q = 0; q < p; q++) {
                if (txns[before[q]].session == txn.session) lastOfSession = q;
                session[before[q]] = commits[before[q]] && txns[before[q]].session == txn.session;
            }
            boolean[] sees = switch (visibility) {
                case SERIAL -> prefix(before, p, commits);
                case PREFIX -> { // at least up to its own session's last, and rather stale than fresh
                    int lengths = p - lastOfSession;
                    yield prefix(before, lastOfSession + 1 + Math.min(rnd.nextInt(lengths), rnd.nextInt(lengths)), commits);
                }
                case CAUSAL -> {
                    boolean[] v = randomSubset(before, commits, session, 3, rnd);
                    boolean[] closed = v.clone();
                    for (int u = 0; u < n; u++) if (v[u]) for (int w = 0; w < n; w++) closed[w] |= saw[u][w];
                    yield closed;
                }
                case ATOMIC -> {
                    boolean[] v = randomSubset(before, commits, session, 2, rnd);
                    boolean[] open = v.clone();
                    for (int u = 0; u < n; u++) {
                        for (int w = 0; w < n; w++) if (v[u] && saw[u][w] && !session[w] && rnd.nextInt(4) != 0) open[w] = false;
                    }
                    yield open;
                }
                case PER_READ -> randomSubset(before, commits, session, 3, rnd); // its first read's
                case RANDOM -> throw new IllegalArgumentException("random reads see no set");
            };
            saw[t] = sees;
            for (int i = 0; i < txn.write.length; i++) {
                if (txn.write[i]) continue;
                int x = txn.key[i];
                int earlier = txn.lastReadBefore(x, i);
                if (txn.lists && txn.writesBefore(x, i)) { // its appends on top of what it saw last, or sees now
                    boolean fresh = earlier < 0 || visibility == Visibility.PER_READ && rnd.nextInt(3) == 0; // (a newer state, at rc)
                    if (fresh && earlier >= 0) {
                        boolean[] more = randomSubset(before, commits, session, 3, rnd);
                        for (int u = 0; u < n; u++) more[u] |= sees[u];
                        sees = more;
                    }
                    txn.readList(i, fresh ? visibleList(txns, before, commits, sees, x, rnd) : txn.externalPart(earlier));
                    continue;
                }
                if (txn.writesBefore(x, i)) {
                    txn.value[i] = txn.lastWriteBefore(x, i);
                    continue;
                }
                if (visibility == Visibility.PER_READ && earlier >= 0 && rnd.nextInt(3) == 0) { // a repeat, stale by now
                    txn.value[i] = txn.value[earlier];
                    txn.list[i] = txn.list[earlier];
                    continue;
                }
                if (visibility == Visibility.PER_READ) {
                    boolean[] more = randomSubset(before, commits, session, 3, rnd);
                    if (rnd.nextInt(4) != 0) for (int u = 0; u < n; u++) more[u] |= sees[u];
                    sees = more;
                }
                if (txn.lists) {
                    txn.list[i] = visibleList(txns, before, commits, sees, x, rnd);
                    continue;
                }
                int v = History.NIL;
                for (int u : before) {
                    int last = txns[u].lastWriteBefore(x, txns[u].write.length);
                    if (sees[u] && last != History.NIL) v = last;
                }
                txn.value[i] = v;
            }
            commits[t] = txn.status == History.COMMITTED || txn.status == History.UNKNOWN && rnd.nextBoolean();
        }
    }

    /**
     * The list {@code x} holds for a transaction that sees {@code sees}: the version of the last appender of x it sees,
     * which holds the appends of every committing appender of x before it in {@code before}; now and then (1 in 8) only
     * the appends of those it sees, whatever came between.
     */
    private static int[] visibleList(Txn[] txns, int[] before, boolean[] commits, boolean[] sees, int x, Random rnd) {
        boolean onlySeen = rnd.nextInt(8) == 0;
        int[] list = {}, version = {};
        for (int u : before) {
            if (!commits[u] || !(sees[u] || !onlySeen)) continue;
            int[] run = txns[u].appends(x);
            if (run.length == 0) continue;
            version = concat(version, run);
            if (sees[u]) list = version;
        }
        return list;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** The committing transactions among the first {@code length} of {@code before}. */
    private static boolean[] prefix(int[] before, int length, boolean[] commits) {
        boolean[] v = new boolean[commits.length];
        for (int q = 0; q < length; q++) v[before[q]] = commits[before[q]];
        return v;
    }

    /**
     * {@code session} (the committing ones of the transaction's own session) and each other committing one of
     * {@code before} with chance 1 in {@code odds}.
     */
    private static boolean[] randomSubset(int[] before, boolean[] commits, boolean[] session, int odds, Random rnd) {
        boolean[] v = session.clone();
        for (int u : before) v[u] |= commits[u] && rnd.nextInt(odds) == 0;
        return v;
    }

    /** Replaces one read's value (if the history has a read) by another plausible one. */
    private static void disturbOneRead(Txn[] txns, int[] order, Random rnd) {
        List<int[]> reads = new ArrayList<>();
        for (int t = 0; t < txns.length; t++) {
            for (int i = 0; i < txns[t].write.length; i++) if (!txns[t].write[i]) reads.add(new int[] {t, i});
        }
        if (reads.isEmpty()) return;
        int[] r = reads.get(rnd.nextInt(reads.size()));
        plausibleRead(txns, order, r[0], r[1], rnd);
    }

    /** Sets read {@code op} of transaction {@code t} to a plausible result: {@link #plausibleList} or {@link #plausibleValue}. */
    private static void plausibleRead(Txn[] txns, int[] order, int t, int op, Random rnd) {
        if (txns[t].lists) txns[t].list[op] = plausibleList(txns, order, t, op, rnd);
        else txns[t].value[op] = plausibleValue(txns, t, op, rnd);
    }

    /**
     * A list for read {@code op} of transaction {@code t}: after its own append to the key, usually its earlier read's
     * external part (or a {@link #serialishList}) with its own appends on top; otherwise sometimes what an earlier read
     * returned and mostly a {@link #serialishList}, now and then without its own appends.
     */
    private static int[] plausibleList(Txn[] txns, int[] order, int t, int op, Random rnd) {
        Txn txn = txns[t];
        int x = txn.key[op], earlier = txn.lastReadBefore(x, op);
        boolean own = txn.writesBefore(x, op);
        if (own && rnd.nextInt(100) < 85) {
            return concat(earlier >= 0 ? txn.externalPart(earlier) : serialishList(txns, order, t, x, rnd), txn.appendsBefore(x, op));
        }
        int[] external = rnd.nextInt(100) < 15 && earlier >= 0 ? txn.externalPart(earlier) : serialishList(txns, order, t, x, rnd);
        return own && rnd.nextInt(3) != 0 ? concat(external, txn.appendsBefore(x, op)) : external;
    }

    /**
     * The external part of a list read of {@code x} by {@code t}: the whole runs of the transactions other than t that
     * append x and do not abort, in the execution {@code order}, up to about t's place (sometimes fewer: stale, or
     * more); then now and then disturbed: a run left out (fractured), two neighbouring runs swapped, the last run cut
     * short (an intermediate version), an aborted transaction's run put in, or one run split around another.
     */
    private static int[] serialishList(Txn[] txns, int[] order, int t, int x, Random rnd) {
        List<int[]> runs = new ArrayList<>(), aborted = new ArrayList<>();
        int upTo = 0;
        for (int u : order) {
            if (u == t) upTo = runs.size();
            if (u == t || txns[u].appends(x).length == 0) continue;
            (txns[u].status == History.ABORTED ? aborted : runs).add(txns[u].appends(x));
        }
        int roll = rnd.nextInt(10), length = roll < 6 ? upTo : roll < 9 ? rnd.nextInt(upTo + 1) : rnd.nextInt(runs.size() + 1);
        runs = new ArrayList<>(runs.subList(0, length));
        roll = rnd.nextInt(100);
        if (roll < 10 && runs.size() >= 2) {
            runs.remove(rnd.nextInt(runs.size() - 1)); // not the last: a gap
        } else if (roll < 20 && runs.size() >= 2) {
            int i = rnd.nextInt(runs.size() - 1);
            Collections.swap(runs, i, i + 1);
        } else if (roll < 25 && !runs.isEmpty() && runs.get(runs.size() - 1).length == 2) {
            runs.set(runs.size() - 1, Arrays.copyOf(runs.get(runs.size() - 1), 1));
        } else if (roll < 30 && !aborted.isEmpty()) {
            runs.add(rnd.nextInt(runs.size() + 1), aborted.get(rnd.nextInt(aborted.size())));
        } else if (roll < 33 && runs.size() >= 2 && runs.get(0).length == 2) {
            int[] split = runs.remove(0);
            runs.add(0, new int[] {split[0]});
            runs.add(2, new int[] {split[1]});
        }
        int[] list = {};
        for (int[] run : runs) list = concat(list, run);
        return list;
    }

    /**
     * A value for read {@code op} of transaction {@code t}: after its own write of the key, usually that write's value;
     * otherwise sometimes what an earlier read of the key returned, sometimes NIL, rarely an aborted or intermediate
     * write, and mostly another live transaction's last write of the key.
     */
    private static int plausibleValue(Txn[] txns, int t, int op, Random rnd) {
        Txn txn = txns[t];
        int x = txn.key[op];
        if (txn.writesBefore(x, op) && rnd.nextInt(100) < 85) return txn.lastWriteBefore(x, op);
        List<Integer> live = new ArrayList<>(), dead = new ArrayList<>();
        for (int u = 0; u < txns.length; u++) {
            if (u == t) continue;
            int last = txns[u].lastWriteBefore(x, txns[u].write.length);
            for (int i = 0; i < txns[u].write.length; i++) {
                if (!txns[u].write[i] || txns[u].key[i] != x) continue;
                (txns[u].value[i] == last && txns[u].status != History.ABORTED ? live : dead).add(txns[u].value[i]);
            }
        }
        int roll = rnd.nextInt(100), earlier = txn.lastReadBefore(x, op);
        if (roll < 15 && earlier >= 0) return txn.value[earlier];
        if (roll < 22 && !dead.isEmpty()) return dead.get(rnd.nextInt(dead.size()));
        if (roll < 45 || live.isEmpty()) return History.NIL;
        return live.get(rnd.nextInt(live.size()));
    }

    /**
     * Times in {@code order}: each transaction starts a little after the previous one started (so that neighbours often
     * overlap) and lasts a while; about one transaction in ten stays untimed, one in twenty has only a start, and one
     * in twenty only an end.
     */
    private static void assignTimes(Txn[] txns, int[] order, Random rnd) {
        long cursor = 0;
        for (int t : order) {
            cursor += rnd.nextInt(10);
            int roll = rnd.nextInt(20);
            if (roll >= 2) txns[t].start = cursor;
            if (roll == 0 || roll >= 4) txns[t].end = cursor + 1 + rnd.nextInt(12);
        }
    }

    private static History build(Txn[] txns) {
        HistoryBuilder b = new HistoryBuilder();
        for (Txn txn : txns) {
            b.begin(null, b.session("s" + (txn.session + 1)), txn.status, txn.start, txn.end, -1);
            for (int i = 0; i < txn.write.length; i++) {
                int k = b.key("k" + txn.key[i]), v = txn.value[i] == History.NIL ? History.NIL : b.value(txn.value[i]);
                if (txn.lists && txn.write[i]) b.append(k, v);
                else if (txn.lists) b.readList(k, Arrays.stream(txn.list[i]).map(b::value).toArray());
                else if (txn.write[i]) b.write(k, v);
                else b.read(k, v);
            }
            b.end();
        }
        return b.build();
    }

    // ---------------------------------------------------------------- helpers

    /** Hand-written histories: one transaction per call, in the order given, its operations as text like {@code r(x)=nil w(x)=1}. */
    private static final class Hand {
        private static final Pattern OP = Pattern.compile("([rwa])\\((\\w+)\\)=(\\w+|\\[[\\w,]*\\])");
        private final HistoryBuilder b = new HistoryBuilder();

        Hand txn(String session, String ops) { return txn(session, History.COMMITTED, ops); }

        Hand txn(String session, byte status, String ops) { return txn(session, status, History.NO_TIME, History.NO_TIME, ops); }

        Hand txn(String session, byte status, long start, long end, String ops) {
            b.begin(null, b.session(session), status, start, end, -1);
            for (String op : ops.trim().split("\\s+")) {
                Matcher m = OP.matcher(op);
                if (!m.matches()) throw new IllegalArgumentException("not an operation: " + op);
                int k = b.key(m.group(2));
                if (m.group(3).startsWith("[")) {
                    String inner = m.group(3).substring(1, m.group(3).length() - 1);
                    b.readList(k, inner.isEmpty() ? new int[0] : Arrays.stream(inner.split(",")).mapToInt(b::value).toArray());
                    continue;
                }
                int v = m.group(3).equals("nil") ? History.NIL : b.value(m.group(3));
                if (m.group(1).equals("w")) b.write(k, v);
                else if (m.group(1).equals("a")) b.append(k, v);
                else b.read(k, v);
            }
            b.end();
            return this;
        }

        History build() { return b.build(); }
    }

    /** The cases' seeds, each derived from the base seed, or only the one {@code -Dcobra.seed=S} names. */
    private static long[] caseSeeds(int count) {
        String one = System.getProperty(Seeds.PROPERTY);
        if (one != null && !one.isBlank()) return new long[] {Long.parseLong(one.trim())};
        SplittableRandom base = new SplittableRandom(BASE_SEED);
        long[] seeds = new long[count];
        for (int i = 0; i < count; i++) seeds[i] = base.nextLong();
        return seeds;
    }

    private static void assertLevels(EnumSet<IsolationLevel> expected, History h) {
        assertEquals(expected, IsolationOracle.satisfied(h, 0), "the oracle on\n" + describe(h));
    }

    /** Every level from read committed up to {@code strongest}. */
    private static EnumSet<IsolationLevel> upTo(IsolationLevel strongest) {
        return EnumSet.range(IsolationLevel.READ_COMMITTED, strongest);
    }

    private static EnumSet<IsolationLevel> all() { return EnumSet.allOf(IsolationLevel.class); }

    private static EnumSet<IsolationLevel> none() { return EnumSet.noneOf(IsolationLevel.class); }

    /** Whether {@code h} is a list history: it appends or reads a list. */
    private static boolean isList(History h) {
        for (int op = 0; op < h.opCount(); op++) if (h.kind(op) == History.APPEND || h.kind(op) == History.READ_LIST) return true;
        return false;
    }

    /** Whether {@code levels} holds every level weaker than each of its own. */
    private static boolean isLadder(EnumSet<IsolationLevel> levels) {
        for (IsolationLevel l : levels) {
            for (IsolationLevel weaker : LEVELS) if (l.implies(weaker) && !levels.contains(weaker)) return false;
        }
        return true;
    }

    private static String time(long t) { return t == History.NO_TIME ? "-" : Long.toString(t); }

    /** A generated case for a failure message: its seed, how to rerun it, and its history. */
    private static String context(long seed, History h) { return Seeds.rerun(seed) + ", history:\n" + describe(h); }

    /** The history as text, one transaction a line: label, session, status, times, operations. */
    static String describe(History h) {
        StringBuilder sb = new StringBuilder();
        for (int t = 0; t < h.size(); t++) {
            String times = h.start(t) == History.NO_TIME && h.end(t) == History.NO_TIME ? "untimed"
                    : "[" + time(h.start(t)) + ", " + time(h.end(t)) + "]";
            sb.append(String.format("  %-4s session %s %-9s %-9s %s%n", h.label(t), History.show(h.sessionName(h.session(t))),
                    History.statusName(h.status(t)), times, h.describeOps(t)));
        }
        return sb.toString();
    }
}
