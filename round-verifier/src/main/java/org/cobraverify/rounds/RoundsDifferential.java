package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;

/**
 * Verification in rounds against one-shot checking, through the service's own path: one generated history per
 * seed ({@link DifferentialHistories}), delivered to a {@link RoundVerifier} as the pipeline may deliver it
 * ({@link TopologyDelivery}), every round's verdict compared with a one-shot check of what that round could check
 * ({@link RoundsOracle}). Pure (no I/O); used by a test at CI size and by {@code cobra bench --differential} at campaign
 * size. {@code -Dcobra.differentialTrace=true} prints the history, each round's deliveries and each verdict on standard
 * error (to follow one seed).
 */
public final class RoundsDifferential {
    private RoundsDifferential() {}

    /** {@code -Dcobra.differentialTrace=true}: each round's verdict on standard error (to follow one seed). */
    static final boolean TRACE = Boolean.getBoolean("cobra.differentialTrace");

    /**
     * One history's result: rounds decided, and how many of them were unknown where the oracle had an answer, or
     * agreed on accept or reject; {@code problem}: the first disagreement (null: none), with what is needed to
     * reproduce it.
     */
    public record Result(long seed, int transactions, int rounds, int unknown, int accepted, int rejected, boolean collected, long isolatedKeys,
                         long chainedKeys, String problem, Map<String, Integer> unknownReasons, long unchecked, Set<String> shapes, long withoutPast, int named,
                         int certificates) {}

    /** Totals over many histories' results: verdicts by outcome, unknown ones by kind, disagreements. */
    public static final class Totals {
        public long histories, transactions, unknown, accepted, rejected, collected, isolatedKeys, isolatedIn, chainedKeys, chainedIn, unchecked, uncheckedIn,
                withoutPast, withoutPastIn;
        /** Certificates audited against their whole history ({@link CertificateAudit}) and found valid. */
        public long certificates;
        public final Map<String, Integer> unknownReasons = new TreeMap<>();
        /** Histories by the shapes the generator gave them (a history may have several). */
        public final Map<String, Integer> shapes = new TreeMap<>();
        public final List<String> problems = new ArrayList<>();

        public void add(Result r) {
            histories++;
            transactions += r.transactions();
            unknown += r.unknown();
            accepted += r.accepted();
            rejected += r.rejected();
            if (r.collected()) collected++;
            isolatedKeys += r.isolatedKeys();
            if (r.isolatedKeys() > 0) isolatedIn++;
            chainedKeys += r.chainedKeys();
            if (r.chainedKeys() > 0) chainedIn++;
            r.unknownReasons().forEach((k, c) -> unknownReasons.merge(k, c, Integer::sum));
            unchecked += r.unchecked();
            if (r.unchecked() > 0) uncheckedIn++;
            withoutPast += r.withoutPast();
            certificates += r.certificates();
            if (r.withoutPast() > 0) withoutPastIn++;
            for (String x : r.shapes()) shapes.merge(x, 1, Integer::sum);
            if (r.problem() != null) problems.add(r.problem());
        }

        public long verdicts() { return unknown + accepted + rejected; }

        /** The share of verdicts that were unknown. */
        public double unknownShare() { return (double) unknown / Math.max(1, verdicts()); }
    }

    /** The history, delivery and verdicts of {@code seed}. */
    public static Result run(long seed) { return run(seed, GarbageCollection.Rules.SOUND, Shapes.ALL); }

    /**
     * What the generator adds to the simulated histories beyond its first version: re-pointed reads of old writes
     * nobody read, keys that go cold ({@link DifferentialHistories#coldKeys}), rows inserted once
     * ({@link DifferentialHistories#inserts}), and the contrary solver on odd seeds. Their random choices
     * come from a stream of their own, so with {@link #FIRST} a seed gives the history and delivery it gave before
     * they existed (seeds found then still reproduce).
     */
    public record Shapes(boolean unreadRepoints, boolean coldKeys, boolean contrarySolver, boolean inserts, boolean untimed, boolean unfenced,
                         boolean violations, boolean lateCommits, boolean mixedNames, boolean blindWrites) {
        public static final Shapes ALL = new Shapes(true, true, true, true, true, true, true, true, true, true);
        public static final Shapes FIRST = new Shapes(false, false, false, false, false, false, false, false, false, false);
        /**
         * The generator of 2026-12-05 (the first four shapes): seeds found then name the same histories with it. The later
         * shapes ({@link PlantedShapes#untimedTimes}, {@link PlantedShapes#unfencedSessions}, {@link PlantedShapes#plantedViolations})
         * draw from a stream of their own.
         */
        public static final Shapes DECEMBER = new Shapes(true, true, true, true, false, false, false, false, false, false);
        /**
         * The generator before late commits ({@link DifferentialHistories#generate}: transactions of unknown outcome that take
         * effect after their session went on) and mixed names ({@link PlantedShapes#mixedNames}): seeds found before them
         * name the same histories with it.
         */
        public static final Shapes BEFORE_LATE_COMMITS = new Shapes(true, true, true, true, true, true, true, false, false, false);
        /**
         * The generator before blind writes of hot keys by sessions that fence at different paces ({@link DifferentialHistories#generate}):
         * seeds found before them name the same histories with it.
         */
        public static final Shapes BEFORE_BLIND_WRITES = new Shapes(true, true, true, true, true, true, true, true, true, false);
    }

    /** As {@link #run(long)}, with garbage collection by {@code rules} (the careless ones: to show the comparison has teeth). */
    public static Result run(long seed, GarbageCollection.Rules rules) { return run(seed, rules, Shapes.ALL); }

    /** As {@link #run(long)}, with garbage collection by {@code rules} and the generator's {@code shapes}. */
    public static Result run(long seed, GarbageCollection.Rules rules, Shapes shapes) { return run(seed, rules, shapes, IsolationLevel.SERIALIZABLE); }

    /**
     * As {@link #run(long, GarbageCollection.Rules, Shapes)}, with the rounds and the oracle checking {@code level}
     * (serializability: strict when the generated history's options are; a weaker level: the sealed past, docs/DESIGN.md §7.11).
     */
    public static Result run(long seed, GarbageCollection.Rules rules, Shapes shapes, IsolationLevel level) {
        Random rnd = new Random(seed);
        DifferentialHistories.Generated g = DifferentialHistories.generate(seed, shapes, rnd);
        CheckOptions opts = g.options();
        int roundSize = 1 + rnd.nextInt(10);
        // the service's default wait; in an eighth of the histories a short one, so that waits run out and sessions retire
        int pendingLimit = rnd.nextInt(8) == 0 ? 2 + rnd.nextInt(6) : RoundSettings.defaults().pendingRoundsLimit();
        if (!level.implies(IsolationLevel.SERIALIZABLE) && opts.strict()) opts = opts.withoutStrict();
        String what = (level == IsolationLevel.SERIALIZABLE ? "" : "checked at " + level.longName() + ", ") + g.isolation() + (opts.strict() ? " strict" : "") + ", solver " + opts.solver().name() + ", round size " + roundSize
                + ", waiting limit " + pendingLimit + (g.shapes().isEmpty() ? "" : ", shapes " + g.shapes());
        return drive(seed, g.history(), opts, roundSize, pendingLimit, rules, rnd, what, g.shapes(), level);
    }

    /** Delivers {@code h} in rounds ({@link TopologyDelivery}) and compares every batch's verdicts with the oracle ({@link RoundsOracle}). */
    private static Result drive(long seed, History h, CheckOptions opts, int roundSize, int pendingLimit, GarbageCollection.Rules rules, Random rnd,
                                String what, Set<String> shapes, IsolationLevel level) {
        int n = h.size();
        if (TRACE) for (int t = 0; t < n; t++) System.err.println(h.label(t) + " " + h.sessionName(h.session(t)) + " " + h.status(t) + " " + h.describeOps(t) + " @" + h.start(t) + ".." + h.end(t));
        TopologyDelivery delivery = new TopologyDelivery(h, roundSize, rnd);
        int lastRound = delivery.lastRound();
        RoundSettings settings = RoundSettings.defaults().withCheck(opts).withPendingRoundsLimit(pendingLimit).withGcRules(rules);
        if (level != IsolationLevel.SERIALIZABLE) settings = settings.withLevel(level);
        IsolationLevel checked = settings.level();
        RoundsOracle oracle = new RoundsOracle(seed, what, h, settings.check(), checked);
        boolean collectedAny = false;
        long isolated = 0, chained = 0, withoutPast = 0;
        List<RoundVerifier.Closed> batch = new ArrayList<>();
        int batchSize = delivery.batchSize();
        try (RoundVerifier v = new RoundVerifier(settings, new InMemoryCollectedWrites())) {
            for (int r = 0; r <= lastRound; r++) {
                batch.add(delivery.deliver(r, v));
                oracle.roundClosed(delivery.delivered());
                if (batch.size() < batchSize && r < lastRound) continue;
                String problem = oracle.compare(v.decide(batch));
                if (problem != null)
                    return new Result(seed, n, r + 1, oracle.unknown(), oracle.accepted(), oracle.rejected(), collectedAny, v.isolatedKeysCount(),
                            v.chainedKeysCount(), problem, oracle.unknownReasons(), oracle.uncheckedCount(), shapes, v.violationsWithoutPastCount(), oracle.namedCount(),
                            oracle.audited());
                collectedAny |= v.retainedCount() < v.checkedCount();
                isolated = v.isolatedKeysCount();
                chained = v.chainedKeysCount();
                withoutPast = v.violationsWithoutPastCount();
                batch.clear();
                batchSize = delivery.batchSize();
            }
        }
        return new Result(seed, n, lastRound + 1, oracle.unknown(), oracle.accepted(), oracle.rejected(), collectedAny, isolated, chained, null,
                oracle.unknownReasons(), oracle.uncheckedCount(), shapes, withoutPast, oracle.namedCount(), oracle.audited());
    }
}
