package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.synth.SimulatedStore;

/**
 * The histories {@link RoundsDifferential} checks, one per seed: a {@link SimulatedStore} run (serializable, snapshot
 * isolation, read committed or stale reads) with fences, aborted transactions and transactions of unknown outcome (fences
 * included), then, in some histories, reads re-pointed to other writes of their key: long-past values, writes of aborted
 * transactions (dirty reads), intermediate writes, read by committed, aborted and unknown readers alike; and in some, keys
 * that go cold ({@link #coldKeys}: blind writes early, reads of them late), and rows inserted once and read later
 * ({@link #inserts}); then the later shapes of {@link PlantedShapes}; in some, transactions of unknown outcome that commit
 * after their session went on ({@link SimulatedStore}'s late commits). Each shape draws from a random stream of its own, so
 * that a seed names the same history whichever later shapes are on ({@link RoundsDifferential.Shapes}).
 *
 * <p><b>Solutions.</b> Settlement keeps the side of an open constraint that the round's solution took, so it must be
 * sound whichever solution the solver found: odd seeds run the solver with reversed first phases
 * ({@link AcyclicitySolver#contrary}), which tends to find another.
 */
final class DifferentialHistories {
    private DifferentialHistories() {}

    /** A generated history, the options to check it with, the simulated store's isolation, and the later shapes it took. */
    record Generated(History history, CheckOptions options, SimulatedStore.Isolation isolation, Set<String> shapes) {}

    /** The history of {@code seed} with {@code shapes}; its first choices are drawn from {@code rnd}, the seed's own stream. */
    static Generated generate(long seed, RoundsDifferential.Shapes shapes, Random rnd) {
        Random extra = new Random(~seed * 0x9E3779B97F4A7C15L);
        SimulatedStore.Isolation iso = pick(rnd);
        boolean weak = iso == SimulatedStore.Isolation.READ_COMMITTED || iso == SimulatedStore.Isolation.STALE_READS;
        SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(4), 8 + rnd.nextInt(30), weak ? 6 + rnd.nextInt(10) : 2 + rnd.nextInt(8),
                2 + rnd.nextInt(3), 0.25 + 0.5 * rnd.nextDouble(), 0.2 * rnd.nextDouble(), 0.1 * rnd.nextDouble());
        int fenceEvery = 1 + rnd.nextInt(4);
        // transactions of unknown outcome that commit after their session went on (docs/DESIGN.md §1.2): a stream of their own
        Random fifth = new Random(seed * 0x9FB21C651E98DF25L + 23);
        boolean late = shapes.lateCommits() && fifth.nextInt(3) == 0;
        // blind writes of hot keys, by sessions of which some fence far less often than the rest (docs/DESIGN.md §7.11): their
        // transactions read from later epochs and write what later epochs write; a stream of its own
        Random sixth = new Random(seed * 0xC2B2AE3D27D4EB4FL + 29);
        SimulatedStore.Skew skew = shapes.blindWrites() && sixth.nextInt(3) == 0
                ? new SimulatedStore.Skew(1 + sixth.nextInt(3), 0.2 + 0.4 * sixth.nextDouble(), 0.5 + 0.5 * sixth.nextDouble(), 1 + sixth.nextInt(2),
                        fenceEvery * (4 + sixth.nextInt(12)), sixth)
                : null;
        History h = SimulatedStore.run(iso, w, rnd, false, fenceEvery, late ? fifth : null, skew);
        if (rnd.nextBoolean()) h = repointReads(h, rnd, 1 + rnd.nextInt(3), shapes.unreadRepoints() ? extra : null);
        if (shapes.coldKeys() && extra.nextBoolean()) h = coldKeys(h, extra, 1 + extra.nextInt(4));
        Random third = new Random(seed * 0xD1B54A32D192ED03L + 11);
        if (shapes.inserts() && third.nextInt(3) == 0) h = inserts(h, third);
        CheckOptions opts = rnd.nextInt(5) == 0 ? CheckOptions.defaults().withStrict(2) : CheckOptions.defaults();
        // the later shapes: violations on keys read again later, sessions that never fence, transactions without times
        Random fourth = new Random(seed * 0x2545F4914F6CDD1DL + 17);
        Set<String> shaped = new TreeSet<>();
        if (shapes.violations() && fourth.nextInt(4) == 0) { h = PlantedShapes.plantedViolations(h, fourth, 1 + fourth.nextInt(4)); shaped.add("violations"); }
        if (shapes.unfenced() && fourth.nextInt(4) == 0) { h = PlantedShapes.unfencedSessions(h, fourth, 1 + fourth.nextInt(3)); shaped.add("unfenced"); }
        if (shapes.untimed() && fourth.nextInt(4) == 0) {
            if (!opts.strict()) opts = CheckOptions.defaults().withStrict(2);
            h = PlantedShapes.untimedTimes(h, fourth);
            shaped.add("untimed");
        }
        if (late) shaped.add("late commits");
        if (skew != null) shaped.add("blind writes");
        if (shapes.mixedNames() && fifth.nextInt(4) == 0) { h = PlantedShapes.mixedNames(h, fifth); shaped.add("mixed names"); }
        if (opts.strict()) shaped.add("strict");
        // odd seeds: the solver with reversed first phases, so that settlement keeps other solutions than the usual ones
        // (it must be sound whichever one the solver found; the seed decides, so the random stream is the same)
        if (shapes.contrarySolver() && (seed & 1) == 1) opts = opts.withSolver(AcyclicitySolver.contrary());
        return new Generated(h, opts, iso, shaped);
    }

    private static SimulatedStore.Isolation pick(Random rnd) {
        int x = rnd.nextInt(20);
        return x < 8 ? SimulatedStore.Isolation.SERIAL : x < 13 ? SimulatedStore.Isolation.SNAPSHOT
                : x < 16 ? SimulatedStore.Isolation.READ_COMMITTED : SimulatedStore.Isolation.STALE_READS;
    }

    /**
     * {@code h} with {@code k} reads (of any reader, not of the fence key) re-pointed to another write of their key:
     * any write; or, from the last third of the history, a write of its first third; or (drawing from {@code unread},
     * when not null) a write of its first third that nobody read (with blind writes, one of several old writes of the key whose order nothing fixed: the shape
     * that settling frontier writers against each other gets wrong, and that a read of a long-collected write takes).
     */
    static History repointReads(History h, Random rnd, int k, Random unread) {
        List<Integer> reads = new ArrayList<>();
        Map<Integer, List<Integer>> writesOfKey = new HashMap<>();
        Set<Long> readValues = new HashSet<>();
        for (int t = 0; t < h.size(); t++)
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(h.key(op))))) continue;
                if (h.kind(op) == History.READ) { reads.add(op); readValues.add(LongIntMap.pack(h.key(op), h.value(op))); }
                else if (h.kind(op) == History.WRITE) writesOfKey.computeIfAbsent(h.key(op), x -> new ArrayList<>()).add(op);
            }
        Map<Integer, Integer> newValue = new HashMap<>();
        int n = h.size();
        for (int i = 0; i < k && !reads.isEmpty(); i++) {
            boolean longPast = rnd.nextBoolean(); // a read in the last third of the history of a write in its first third
            boolean onlyUnread = longPast && unread != null && unread.nextBoolean();
            int r = -1;
            for (int tries = 0; tries < 20 && r < 0; tries++) {
                int c = reads.get(rnd.nextInt(reads.size()));
                if (!longPast || txnOf(h, c) >= 2 * n / 3) r = c;
            }
            if (r < 0) continue;
            List<Integer> ws = new ArrayList<>(writesOfKey.getOrDefault(h.key(r), List.of()));
            if (longPast) ws.removeIf(op -> txnOf(h, op) >= n / 3);
            if (onlyUnread) ws.removeIf(op -> readValues.contains(LongIntMap.pack(h.key(op), h.value(op))));
            if (!ws.isEmpty()) newValue.put(r, h.value(ws.get(rnd.nextInt(ws.size()))));
        }
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            b.beginCopyAsText(h, t, op -> newValue.getOrDefault(op, h.value(op)));
            b.end();
        }
        return b.build();
    }

    /**
     * {@code h} with {@code keys} keys that go cold: transactions of the first third of the history write them blind
     * (each write a fresh value), some of the middle third read one of those writes, and some of the last third read
     * one again, long after the last write. Nothing but those reads orders the blind writers, so the late reads are
     * serializable or not depending on the earlier ones: the shape in which garbage collection must keep old
     * frontier writers apart (settling them against each other, or collecting them, changes the verdict).
     */
    static History coldKeys(History h, Random rnd, int keys) {
        int n = h.size();
        Map<Integer, List<String>> extra = new HashMap<>(); // transaction -> ops to append ("w key value" / "r key value")
        List<List<String>> written = new ArrayList<>();
        for (int j = 0; j < keys; j++) written.add(new ArrayList<>());
        for (int t = 0; t < n; t++) {
            if (isFence(h, t)) continue;
            int third = 3 * t / Math.max(1, n);
            int j = rnd.nextInt(keys);
            String key = "cold" + j;
            if (third == 0 && rnd.nextInt(2) == 0) {
                String v = "c" + t + "." + j;
                written.get(j).add(v);
                extra.computeIfAbsent(t, x -> new ArrayList<>()).add("w\0" + key + "\0" + v);
            } else if (third > 0 && !written.get(j).isEmpty() && rnd.nextInt(third == 1 ? 6 : 4) == 0) {
                List<String> ws = written.get(j);
                extra.computeIfAbsent(t, x -> new ArrayList<>()).add("r\0" + key + "\0" + ws.get(rnd.nextInt(ws.size())));
            }
        }
        return withAppended(h, extra);
    }

    /**
     * {@code h} with rows inserted once, as order-entry workloads insert them: some transactions insert a fresh key
     * (written by no one else); later ones read it, now and then after another transaction updated it, and then
     * sometimes the value from before the update (a stale read, if the reader follows the update). Every inserting
     * transaction writes the latest value of a key for a long time: the shape that keeps frontier writers alive.
     */
    static History inserts(History h, Random rnd) {
        int n = h.size();
        Map<Integer, List<String>> extra = new HashMap<>();
        List<String> keys = new ArrayList<>();
        Map<String, List<String>> values = new HashMap<>(); // key -> its values, oldest first
        for (int t = 0; t < n; t++) {
            if (isFence(h, t)) continue;
            int p = rnd.nextInt(10);
            if (p < 3) {
                String key = "row" + t, v = "r" + t;
                keys.add(key);
                values.put(key, new ArrayList<>(List.of(v)));
                extra.computeIfAbsent(t, x -> new ArrayList<>()).add("w\0" + key + "\0" + v);
            } else if (p < 7 && !keys.isEmpty()) {
                String key = keys.get(rnd.nextInt(keys.size()));
                List<String> vs = values.get(key);
                // mostly the latest value; sometimes an earlier one
                String v = vs.size() > 1 && rnd.nextInt(4) == 0 ? vs.get(rnd.nextInt(vs.size() - 1)) : vs.get(vs.size() - 1);
                extra.computeIfAbsent(t, x -> new ArrayList<>()).add("r\0" + key + "\0" + v);
            } else if (p == 7 && !keys.isEmpty()) {
                String key = keys.get(rnd.nextInt(keys.size())), v = "u" + t;
                values.get(key).add(v);
                extra.computeIfAbsent(t, x -> new ArrayList<>()).add("w\0" + key + "\0" + v);
            }
        }
        return withAppended(h, extra);
    }

    /** {@code h} with operations appended to some transactions: {@code extra} maps a transaction to "w\0key\0value" or "r\0key\0value". */
    private static History withAppended(History h, Map<Integer, List<String>> extra) {
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            b.beginCopyAsText(h, t);
            for (String e : extra.getOrDefault(t, List.of())) {
                String[] f = e.split("\0");
                if (f[0].equals("w")) b.write(b.key(f[1]), b.value(f[2])); else b.read(b.key(f[1]), b.value(f[2]));
            }
            b.end();
        }
        return b.build();
    }

    private static boolean isFence(History h, int t) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) if (SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(h.key(op))))) return true;
        return false;
    }

    private static int txnOf(History h, int op) {
        int lo = 0, hi = h.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (h.opStart(mid) <= op) lo = mid; else hi = mid - 1;
        }
        return lo;
    }
}
