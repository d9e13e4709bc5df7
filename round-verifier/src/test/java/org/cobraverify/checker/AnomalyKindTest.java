package org.cobraverify.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.junit.jupiter.api.Test;

/**
 * The taxonomy {@link AnomalyKind} carries, against the checker that reports it. Every kind is described; each kind's
 * weakest violated level is the level whose check first rejects a small history showing it (a witness, accepted at every
 * weaker level); on generated histories, every level from a reported kind's weakest violated level up rejects the history
 * (no level allows a kind it is said to forbid); and the README's table of anomalies is the one the kinds make.
 * No table in the code says which kinds each level forbids: each level's check decides it by construction
 * ({@link Isolation#check}), so the witnesses and the generated histories are what the data is held to.
 */
class AnomalyKindTest {
    private static final CheckOptions OPTIONS = CheckOptions.defaults().withStrict(0);
    /** Generated histories for {@link #noLevelAllowsAKindItIsSaidToForbid}; raise with -Dcobra.propertyRuns=N. */
    private static final int RUNS = Integer.getInteger("cobra.propertyRuns", 3000);
    private static final Set<String> ADYA = Set.of("G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2");
    private static final Path README = Path.of("..", "README.md");

    @Test
    void everyKindIsDescribed() {
        Set<String> names = new HashSet<>();
        for (AnomalyKind k : AnomalyKind.values()) {
            assertFalse(k.displayName().isBlank(), k.name());
            assertTrue(names.add(k.displayName()), "two kinds named " + k.displayName());
            assertFalse(k.adyaClass().isBlank(), k.name());
            assertEquals(k.isAdyaClass(), ADYA.contains(k.adyaClass()), k + ": " + k.adyaClass());
            if (!k.isAdyaClass()) assertTrue(k.adyaClass().startsWith("cobra: "), k + ": a class of cobra's own says so: " + k.adyaClass());
            assertNotNull(k.weakestViolated(), k.name());
            assertTrue(k.meaning().length() > 1 && k.meaning().endsWith("."), k + ": one sentence, ending in a period: " + k.meaning());
            assertEquals(k, AnomalyKind.named(k.displayName()));
            assertEquals(k, AnomalyKind.named(k.name()));
        }
        assertNull(AnomalyKind.named("no such anomaly"));
    }

    /** A small history per kind, showing it; the checks of every level weaker than its weakest violated one accept it. */
    private static Map<AnomalyKind, History> witnesses() {
        Map<AnomalyKind, History> w = new EnumMap<>(AnomalyKind.class);
        w.put(AnomalyKind.UNWRITTEN_READ, history("T1 a r x 5"));
        w.put(AnomalyKind.G1A, history("T1 a aborted w x 1", "T2 b r x 1"));
        w.put(AnomalyKind.G1B, history("T1 a w x 1 w x 2", "T2 b r x 1"));
        w.put(AnomalyKind.INTERNAL, history("T1 a w x 0 w x 1 r x 0"));
        w.put(AnomalyKind.NON_REPEATABLE_READ, history("T1 a w x 1", "T2 b r x nil r x 1"));
        w.put(AnomalyKind.NON_MONOTONIC_READ, history("T1 a w x 1", "T2 b r x 1 w x 2 w y 2", "T3 c r y 2 r x 1"));
        w.put(AnomalyKind.READ_YOUR_WRITES, history("T1 a w x 1", "T2 a r x nil"));
        w.put(AnomalyKind.FRACTURED_READ, history("T1 a w x 1 w y 1", "T2 b w x 2 w y 2", "T3 c r x 2 r y 1"));
        w.put(AnomalyKind.CAUSALITY_VIOLATION, history("T1 a w x 1", "T2 b r x 1 w y 1", "T3 c r y 1 r x nil"));
        w.put(AnomalyKind.LOST_UPDATE, history("T1 a r x nil w x 1", "T2 b r x nil w x 2"));
        // T1 and T2 append to x and y; the reads of x and of y see them in opposite orders
        w.put(AnomalyKind.G0, lists(new int[][] {{1, 1}, {2, 2}}, new int[][] {{1, 2}, {}}, new int[][] {{}, {2, 1}}));
        // two reads of x see T1's and T2's appends in opposite orders
        w.put(AnomalyKind.INCOMPATIBLE_ORDER, lists(new int[][] {{1, 0}, {2, 0}}, new int[][] {{1, 2}, {}}, new int[][] {{2, 1}, {}}));
        w.put(AnomalyKind.G1C, history("T1 a w x 1 r y 1", "T2 b w y 1 r x 1"));
        // T5's session saw T1's x, so T1's x precedes T2's; T2 then missed T1's y, though it wrote x after T1
        w.put(AnomalyKind.G_SINGLE, history("T1 a w x 1 w y 1", "T2 b r y nil w x 2", "T4 c r x 1", "T5 c r x 2"));
        w.put(AnomalyKind.WRITE_SKEW, history("T1 a r x nil r y nil w x 1", "T2 b r x nil r y nil w y 2"));
        w.put(AnomalyKind.LONG_FORK, history("T1 a w x 1", "T2 b w y 1", "T3 c r x 1 r y nil", "T4 d r y 1 r x nil"));
        // T1 -rw(x)-> T2 -rw(y)-> T3 -wr(z)-> T1: the two anti-dependencies meet, which snapshot isolation allows
        w.put(AnomalyKind.G2, history("T1 a r x nil r z 1", "T2 b r y nil w x 1", "T3 c w y 1 w z 1"));
        // examples/crossed-writes.jsonl: a long fork hidden behind blind writes, so that only search refutes it
        w.put(AnomalyKind.NOT_SNAPSHOT_ISOLATED, history("a 1 w x 1 w k1 1 w k3 1", "b 2 w x 2 w k2 1 w k4 1", "c 3 w y 1 w k5 1 w k7 1",
                "d 4 w y 2 w k6 1 w k8 1", "ra 5 r x 1 r k5 1 r k6 1", "rb 6 r x 2 r k7 1 r k8 1", "rc 7 r y 1 r k1 1 r k2 1",
                "rd 8 r y 2 r k3 1 r k4 1", "noise 9 r x 1 w z 1"));
        return w;
    }

    /**
     * The kinds no one-shot check of a small history shows first: only the serializability checks report them (a refutation by
     * search; a cycle through session order and the collected past, or a stale read of a collected write, in rounds).
     */
    private static final Set<AnomalyKind> REPORTED_BY_SERIALIZABILITY_ONLY = EnumSet.of(AnomalyKind.UNSERIALIZABLE, AnomalyKind.SESSION_CYCLE,
            AnomalyKind.STALE_READ);

    @Test
    void eachKindIsFirstRejectedAtItsWeakestViolatedLevel() {
        Map<AnomalyKind, History> witnesses = witnesses();
        for (AnomalyKind k : AnomalyKind.values())
            assertTrue(witnesses.containsKey(k) ^ REPORTED_BY_SERIALIZABILITY_ONLY.contains(k), k + ": a witness, or reported by serializability only");
        for (AnomalyKind k : REPORTED_BY_SERIALIZABILITY_ONLY) assertEquals(IsolationLevel.SERIALIZABLE, k.weakestViolated(), k.name());
        for (Map.Entry<AnomalyKind, History> e : witnesses.entrySet()) {
            AnomalyKind k = e.getKey();
            Isolation.Ladder l = Isolation.checkAll(e.getValue(), OPTIONS);
            assertTrue(l.consistent(), k + ": " + l.verdicts());
            assertEquals(k.weakestViolated(), l.weakestViolated(), k + ": the weakest level rejecting its witness; " + l.verdicts());
            Certificate c = l.verdicts().get(l.weakestViolated()).certificate();
            assertEquals(k, c.kind(), k + ": the witness's first certificate: " + c.summary());
        }
    }

    /**
     * On generated histories (those of {@link IsolationOracleTest}): whenever a level's certificate names a kind, every level
     * from the kind's weakest violated one up rejects the history. Counted are the certificates of read committed, read atomic
     * and causal (their derived edges are the premises of the level itself or weaker ones) and, of the stronger levels, those
     * whose cycle is observed dependencies and session order only (an order derived at one level may not hold at another, and
     * a cycle closed through real time breaks strict serializability alone). Snapshot isolation and the levels above it take
     * a read-modify-write's version to follow the version it read at once (they forbid lost updates), which the weaker levels
     * do not: a G0, G1c or incompatible order in their certificates may rest on that, so theirs are held to the levels from
     * snapshot isolation up.
     */
    @Test
    void noLevelAllowsAKindItIsSaidToForbid() {
        SplittableRandom seeds = new SplittableRandom(Long.getLong("cobra.propertySeed", 20_260_101L));
        Map<AnomalyKind, Integer> counted = new EnumMap<>(AnomalyKind.class);
        List<String> problems = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            long seed = seeds.nextLong();
            History h = IsolationOracleTest.generate(new Random(seed));
            Isolation.Ladder l = Isolation.checkAll(h, OPTIONS);
            for (Map.Entry<IsolationLevel, Verdict> e : l.verdicts().entrySet()) {
                Certificate c = e.getValue().certificate();
                if (c == null || !counted(e.getKey(), c)) continue;
                counted.merge(c.kind(), 1, Integer::sum);
                IsolationLevel from = c.kind().weakestViolated();
                if (e.getKey().implies(IsolationLevel.SNAPSHOT_ISOLATION) && !from.implies(IsolationLevel.SNAPSHOT_ISOLATION)) from = IsolationLevel.SNAPSHOT_ISOLATION;
                for (IsolationLevel above : IsolationLevel.values())
                    if (above.implies(from) && l.verdicts().get(above).outcome() != Verdict.Outcome.REJECT)
                        problems.add(c.kind() + " (from " + e.getKey().shortName() + ": " + c.summary() + ") but " + above.longName() + " says "
                                + l.verdicts().get(above).outcome().word() + "; history of seed " + seed + ":\n" + IsolationOracleTest.describe(h));
            }
        }
        System.out.println("AnomalyKindTest: certificates counted, by kind: " + counted);
        assertTrue(problems.isEmpty(), problems.size() + " disagreements, the first: " + (problems.isEmpty() ? "" : problems.get(0)));
        assertTrue(counted.size() >= 10, "the generated histories should show most kinds: " + counted.keySet());
    }

    private static boolean counted(IsolationLevel level, Certificate c) {
        if (!level.implies(IsolationLevel.SNAPSHOT_ISOLATION)) return true;
        for (Certificate.Edge e : c.cycle())
            if (e.derivedBecause() != null || !Set.of("so", "wr", "ww", "rw").contains(e.kind())) return false;
        return true;
    }

    /** The README's table of anomalies, as the kinds make it. */
    static String readmeTable() {
        StringBuilder b = new StringBuilder("| anomaly | class | first forbidden at | what it means |\n| --- | --- | --- | --- |\n");
        for (AnomalyKind k : AnomalyKind.values())
            b.append("| ").append(k.displayName()).append(" | ").append(k.adyaClass()).append(" | `").append(k.weakestViolated().longName())
                    .append("` | ").append(k.meaning()).append(" |\n");
        return b.toString();
    }

    /** The README's table of anomalies must be the kinds' own; {@code -Dcobra.writeReadme=true} writes it. */
    @Test
    void theReadmeTableIsTheKinds() throws Exception {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        int section = readme.indexOf("\n## Anomalies\n");
        assertTrue(section >= 0, "the README has a section of anomalies");
        int start = readme.indexOf("\n| anomaly |", section) + 1, end = start;
        assertTrue(start > 0, "the section has a table");
        while (end < readme.length() && readme.charAt(end) == '|') end = readme.indexOf('\n', end) + 1;
        String want = readmeTable();
        if (Boolean.getBoolean("cobra.writeReadme")) Files.writeString(README, readme.substring(0, start) + want + readme.substring(end), StandardCharsets.UTF_8);
        else assertEquals(want, readme.substring(start, end),
                "README.md's table of anomalies is not AnomalyKind's: run mvn -pl round-verifier test -Dtest=AnomalyKindTest -Dcobra.writeReadme=true");
    }

    private static History history(String... txns) { return IsolationLevelsTest.history(txns); }

    /**
     * A list history of two keys, x and y: {@code appends[t]} are the values transaction t appends to x and y (0: none), and
     * each of {@code reads} is a transaction of its own reading x and y as the lists given (empty: no read).
     */
    private static History lists(int[][] appends, int[][]... reads) {
        HistoryBuilder b = new HistoryBuilder();
        int[] keys = {b.key("x"), b.key("y")};
        int t = 0;
        for (int[] a : appends) {
            b.begin("T" + ++t, b.session("s" + t), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            for (int k = 0; k < 2; k++) if (a[k] != 0) b.append(keys[k], b.value(a[k]));
            b.end();
        }
        for (int[][] r : reads) {
            b.begin("T" + ++t, b.session("s" + t), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            for (int k = 0; k < 2; k++) {
                if (r[k].length == 0) continue;
                int[] vs = new int[r[k].length];
                for (int i = 0; i < vs.length; i++) vs[i] = b.value(r[k][i]);
                b.readList(keys[k], vs);
            }
            b.end();
        }
        return b.build();
    }
}
