package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.InMemoryCollectedWrites;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.synth.SimulatedStore;

/**
 * Verification in rounds against one-shot checking, through the service's own path: one generated history per
 * seed, delivered to a {@link RoundVerifier} as the pipeline may deliver it, every round's verdict compared with
 * a one-shot check of what that round could check. Pure (no I/O); used by a test at CI size and by
 * {@code cobra bench --differential} at campaign size.
 *
 * <p><b>Histories.</b> A {@link SimulatedStore} run (serializable, snapshot isolation, read committed or stale
 * reads) with fences, aborted transactions and transactions of unknown outcome (fences included), then, in some
 * histories, reads re-pointed to other writes of their key: long-past values, writes of aborted transactions
 * (dirty reads), intermediate writes, read by committed, aborted and unknown readers alike; and in some, keys that
 * go cold ({@link #coldKeys}: blind writes early, reads of them late), and rows inserted once and read later
 * ({@link #inserts}).
 *
 * <p><b>Delivery</b>, as the topology allows: rounds of whole epochs in epoch order (a transaction after its
 * session's last fence takes that fence's epoch and comes when its session ends); then, per session, a suffix
 * of its transactions may come up to four rounds late, so readers arrive before their writers and fences after
 * the transactions that follow them. A late session either holds the epochs its transactions follow open (as a
 * live session holds {@code epoch_agree}) or is retired while it is late and revived when it comes back (as a
 * session silent past the topology's timeout is); a session whose every transaction has come is closed. Rounds
 * are decided in batches of one to four, as a verifier that is behind decides them.
 *
 * <p><b>Solutions.</b> Settlement keeps the side of an open constraint that the round's solution took, so it must be
 * sound whichever solution the solver found: odd seeds run the solver with reversed first phases
 * ({@link AcyclicitySolver#contrary}), which tends to find another.
 *
 * <p><b>The oracle.</b> After each round: the transactions delivered so far whose reads all resolve to delivered
 * transactions that resolve (the largest such set: what the verifier can admit), checked one-shot with the same
 * options. The rounds' verdict must equal it, or be unknown. (A read-from-closed part of a history that is not
 * serializable makes every larger one unserializable, so a batch's verdicts may be compared round by round.)
 */
public final class RoundsDifferential {
    private RoundsDifferential() {}

    /**
     * One history's result: rounds decided, and how many of them were unknown where the oracle had an answer, or
     * agreed on accept or reject; {@code problem}: the first disagreement (null: none), with what is needed to
     * reproduce it.
     */
    public record Result(long seed, int transactions, int rounds, int unknown, int accepted, int rejected, boolean collected, long isolatedKeys,
                         long chainedKeys, String problem, Map<String, Integer> unknownReasons, long unchecked, Set<String> shapes) {}

    /** Totals over many histories' results: verdicts by outcome, unknown ones by kind, disagreements. */
    public static final class Totals {
        public long histories, transactions, unknown, accepted, rejected, collected, isolatedKeys, isolatedIn, chainedKeys, chainedIn, unchecked, uncheckedIn;
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
            for (String x : r.shapes()) shapes.merge(x, 1, Integer::sum);
            if (r.problem() != null) problems.add(r.problem());
        }

        public long verdicts() { return unknown + accepted + rejected; }

        /** The share of verdicts that were unknown. */
        public double unknownShare() { return (double) unknown / Math.max(1, verdicts()); }
    }

    /** An unknown verdict's kind, for counting: its reason without the names and numbers of this history. */
    static String kindOf(String reason) {
        String r = reason.replaceAll("[0-9]+", "N");
        int cut = r.indexOf(" (oldest");
        if (cut < 0) cut = r.indexOf(": ");
        return r.substring(0, Math.min(r.length(), Math.min(cut < 0 ? 90 : cut, 90)));
    }

    /** The history, delivery and verdicts of {@code seed}. */
    public static Result run(long seed) { return run(seed, GarbageCollection.Rules.SOUND, Shapes.ALL); }

    /**
     * What the generator adds to the simulated histories beyond its first version: re-pointed reads of old writes
     * nobody read, keys that go cold ({@link #coldKeys}), rows inserted once ({@link #inserts}), and the contrary solver on
     * odd seeds. Their random choices
     * come from a stream of their own, so with {@link #FIRST} a seed gives the history and delivery it gave before
     * they existed (seeds found then still reproduce).
     */
    public record Shapes(boolean unreadRepoints, boolean coldKeys, boolean contrarySolver, boolean inserts, boolean untimed, boolean unfenced,
                         boolean violations) {
        public static final Shapes ALL = new Shapes(true, true, true, true, true, true, true);
        public static final Shapes FIRST = new Shapes(false, false, false, false, false, false, false);
        /**
         * The generator of 2026-12-05 (the first four shapes): seeds found then name the same histories with it. The later
         * shapes ({@link #untimedTimes}, {@link #unfencedSessions}, {@link #plantedViolations}) draw from a stream of their own.
         */
        public static final Shapes DECEMBER = new Shapes(true, true, true, true, false, false, false);
    }

    /** As {@link #run(long)}, with garbage collection by {@code rules} (the careless ones: to show the comparison has teeth). */
    public static Result run(long seed, GarbageCollection.Rules rules) { return run(seed, rules, Shapes.ALL); }

    /** As {@link #run(long)}, with garbage collection by {@code rules} and the generator's {@code shapes}. */
    public static Result run(long seed, GarbageCollection.Rules rules, Shapes shapes) {
        Random rnd = new Random(seed), extra = new Random(~seed * 0x9E3779B97F4A7C15L);
        SimulatedStore.Isolation iso = pick(rnd);
        boolean weak = iso == SimulatedStore.Isolation.READ_COMMITTED || iso == SimulatedStore.Isolation.STALE_READS;
        SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(4), 8 + rnd.nextInt(30), weak ? 6 + rnd.nextInt(10) : 2 + rnd.nextInt(8),
                2 + rnd.nextInt(3), 0.25 + 0.5 * rnd.nextDouble(), 0.2 * rnd.nextDouble(), 0.1 * rnd.nextDouble());
        History h = SimulatedStore.run(iso, w, rnd, false, 1 + rnd.nextInt(4));
        if (rnd.nextBoolean()) h = repointReads(h, rnd, 1 + rnd.nextInt(3), shapes.unreadRepoints() ? extra : null);
        if (shapes.coldKeys() && extra.nextBoolean()) h = coldKeys(h, extra, 1 + extra.nextInt(4));
        Random third = new Random(seed * 0xD1B54A32D192ED03L + 11);
        if (shapes.inserts() && third.nextInt(3) == 0) h = inserts(h, third);
        CheckOptions opts = rnd.nextInt(5) == 0 ? CheckOptions.defaults().withStrict(2) : CheckOptions.defaults();
        // the later shapes: violations on keys read again later, sessions that never fence, transactions without times
        Random fourth = new Random(seed * 0x2545F4914F6CDD1DL + 17);
        Set<String> shaped = new java.util.TreeSet<>();
        if (shapes.violations() && fourth.nextInt(4) == 0) { h = plantedViolations(h, fourth, 1 + fourth.nextInt(4)); shaped.add("violations"); }
        if (shapes.unfenced() && fourth.nextInt(4) == 0) { h = unfencedSessions(h, fourth, 1 + fourth.nextInt(3)); shaped.add("unfenced"); }
        if (shapes.untimed() && fourth.nextInt(4) == 0) {
            if (!opts.strict()) opts = CheckOptions.defaults().withStrict(2);
            h = untimedTimes(h, fourth);
            shaped.add("untimed");
        }
        if (opts.strict()) shaped.add("strict");
        // odd seeds: the solver with reversed first phases, so that settlement keeps other solutions than the usual ones
        // (it must be sound whichever one the solver found; the seed decides, so the random stream is the same)
        if (shapes.contrarySolver() && (seed & 1) == 1) opts = opts.withSolver(AcyclicitySolver.contrary());
        int roundSize = 1 + rnd.nextInt(10);
        // the service's default wait; in an eighth of the histories a short one, so that waits run out and sessions retire
        int pendingLimit = rnd.nextInt(8) == 0 ? 2 + rnd.nextInt(6) : IncrementalVerifier.Settings.defaults().pendingRoundsLimit();
        return drive(seed, h, opts, roundSize, pendingLimit, rules, rnd, iso + (opts.strict() ? " strict" : "") + ", solver " + opts.solver().name() + ", round size " + roundSize
                + ", waiting limit " + pendingLimit + (shaped.isEmpty() ? "" : ", shapes " + shaped), shaped);
    }

    /**
     * {@code h} with times taken away, as foreign histories have them (strict mode): from a share of the transactions both
     * times, from some only the end, from a few only the start. (A transaction of unknown outcome has no end for real time
     * anyway, docs/DESIGN.md §1.2.)
     */
    static History untimedTimes(History h, Random rnd) {
        double none = 0.05 + 0.35 * rnd.nextDouble(), startOnly = 0.2 * rnd.nextDouble(), endOnly = 0.1 * rnd.nextDouble();
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            double x = rnd.nextDouble();
            long start = h.start(t), end = h.end(t);
            if (x < none) { start = History.NO_TIME; end = History.NO_TIME; }
            else if (x < none + startOnly) end = History.NO_TIME;
            else if (x < none + startOnly + endOnly) start = History.NO_TIME;
            b.begin(h.name(t), b.session(String.valueOf(h.sessionName(h.session(t)))), h.status(t), start, end, -1);
            copyOps(h, t, b);
            b.end();
        }
        return b.build();
    }

    /**
     * {@code h} with {@code sessions} more sessions that never fence (a client that is not ours, or one that died before its
     * opening fence), of one to four transactions each at random places: reads of the latest committed value of a key at that
     * place, now and then of its initial value, writes of fresh values to existing and to new keys; most commit, some abort
     * or end unknown. The verifier leaves them unchecked (docs/DESIGN.md §7.6); the oracle checks the rest.
     */
    static History unfencedSessions(History h, Random rnd, int sessions) {
        int n = h.size();
        Map<Integer, List<String[]>> at = new HashMap<>(); // before transaction i: {session, status, ops...}
        List<Integer> keys = new ArrayList<>();
        for (int k = 0; k < h.keyCount(); k++) if (!SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(k)))) keys.add(k);
        if (keys.isEmpty()) return h;
        int id = 0;
        for (int s = 0; s < sessions; s++) {
            int count = 1 + rnd.nextInt(4), from = rnd.nextInt(Math.max(1, n));
            for (int j = 0; j < count; j++) {
                int pos = Math.min(n, from + rnd.nextInt(Math.max(1, n / 3 + 1)));
                from = pos;
                List<String> ops = new ArrayList<>();
                ops.add("nf" + s);
                ops.add("nf" + s + "." + j);
                int st = rnd.nextInt(10);
                ops.add(st < 8 ? "c" : st < 9 ? "a" : "u");
                int m = 1 + rnd.nextInt(3);
                for (int o = 0; o < m; o++) {
                    int k = keys.get(rnd.nextInt(keys.size()));
                    String key = String.valueOf(h.keyName(k));
                    if (rnd.nextBoolean()) ops.add("w\0" + (rnd.nextInt(4) == 0 ? "nfkey" + s : key) + "\0nf" + s + "." + (id++));
                    else {
                        String v = rnd.nextInt(5) == 0 ? null : latestValue(h, k, pos);
                        ops.add("r\0" + key + "\0" + (v == null ? "\u0001" : v));
                    }
                }
                at.computeIfAbsent(pos, x -> new ArrayList<>()).add(ops.toArray(new String[0]));
            }
        }
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t <= n; t++) {
            for (String[] x : at.getOrDefault(t, List.of())) {
                byte status = x[2].equals("c") ? History.COMMITTED : x[2].equals("a") ? History.ABORTED : History.UNKNOWN;
                long time = t < n && h.start(t) != History.NO_TIME ? h.start(t) : History.NO_TIME;
                b.begin(x[1], b.session(x[0]), status, time, time == History.NO_TIME ? History.NO_TIME : time + 1, -1);
                for (int o = 3; o < x.length; o++) {
                    String[] f = x[o].split("\0");
                    int k = b.key(f[1]);
                    if (f[0].equals("w")) b.write(k, b.value(f[2])); else b.read(k, f[2].equals("\u0001") ? History.NIL : b.value(f[2]));
                }
                b.end();
            }
            if (t == n) break;
            b.beginCopyOf(h, t);
            b.end();
        }
        return b.build();
    }

    /** The value of {@code key}'s last write by a committed transaction before transaction {@code pos} of {@code h}, or null. */
    private static String latestValue(History h, int key, int pos) {
        for (int t = Math.min(pos, h.size()) - 1; t >= 0; t--) {
            if (h.status(t) != History.COMMITTED) continue;
            for (int op = h.opEnd(t) - 1; op >= h.opStart(t); op--)
                if (h.kind(op) == History.WRITE && h.key(op) == key) return String.valueOf(h.valueName(h.value(op)));
        }
        return null;
    }

    /**
     * {@code h} with {@code count} violations planted in fenced sessions at random places, each on a key the history uses:
     * a lost update (two transactions read the key's latest committed value and both write it) or a write skew on two keys;
     * and, later, transactions that read those keys again: the planted writes (reads of set-aside writes, unchecked), the
     * value from before them, or whatever the history wrote since (written after the violation: checked as usual). What the
     * life after a violation must get right (docs/DESIGN.md §7.10): each reported once, the keys tested again once written
     * since, no false claim of clean.
     */
    static History plantedViolations(History h, Random rnd, int count) {
        int n = h.size();
        List<Integer> keys = new ArrayList<>();
        for (int k = 0; k < h.keyCount(); k++) if (!SimulatedStore.FENCE_KEY.equals(String.valueOf(h.keyName(k)))) keys.add(k);
        if (keys.isEmpty() || n < 4) return h;
        Map<Integer, List<String[]>> after = new HashMap<>(); // after transaction i: {session, ops...}
        Map<Integer, List<String>> extraReads = new HashMap<>(); // appended to transaction i: "r\0key\0value"
        for (int c = 0; c < count; c++) {
            int t1 = rnd.nextInt(n), t2 = rnd.nextInt(n);
            if (h.session(t1) == h.session(t2) || h.status(t1) != History.COMMITTED || h.status(t2) != History.COMMITTED) continue;
            int pos = Math.max(t1, t2);
            int k1 = keys.get(rnd.nextInt(keys.size())), k2 = keys.get(rnd.nextInt(keys.size()));
            String key1 = String.valueOf(h.keyName(k1)), key2 = String.valueOf(h.keyName(k2));
            String v1 = latestValue(h, k1, pos + 1), v2 = latestValue(h, k2, pos + 1);
            String a = "pv" + c + "a", b2 = "pv" + c + "b";
            boolean skew = k1 != k2 && rnd.nextBoolean();
            String r1 = "r\0" + key1 + "\0" + (v1 == null ? "\u0001" : v1), r2 = "r\0" + key2 + "\0" + (v2 == null ? "\u0001" : v2);
            String[] x = skew ? new String[] {a, r1, r2, "w\0" + key1 + "\0" + a} : new String[] {a, r1, "w\0" + key1 + "\0" + a};
            String[] y = skew ? new String[] {b2, r1, r2, "w\0" + key2 + "\0" + b2} : new String[] {b2, r1, "w\0" + key1 + "\0" + b2};
            after.computeIfAbsent(t1, z -> new ArrayList<>()).add(x);
            after.computeIfAbsent(t2, z -> new ArrayList<>()).add(y);
            // later reads of the keys: the planted writes, the value before them, or (most often) the history's own since
            for (int r = 0; r < 1 + rnd.nextInt(4); r++) {
                int later = pos + 1 + rnd.nextInt(Math.max(1, n - pos - 1));
                if (later >= n) continue;
                int which = rnd.nextInt(6);
                String key = which % 2 == 0 ? key1 : key2, value;
                if (which == 0) value = a;
                else if (which == 1 && !skew) value = b2;
                else if (which == 2) value = key.equals(key1) ? (v1 == null ? "\u0001" : v1) : (v2 == null ? "\u0001" : v2);
                else {
                    String v = latestValue(h, key.equals(key1) ? k1 : k2, later);
                    value = v == null ? "\u0001" : v;
                }
                if (which == 1 && skew) value = b2;
                if (which == 1 && skew) key = key2;
                extraReads.computeIfAbsent(later, z -> new ArrayList<>()).add("r\0" + key + "\0" + value);
            }
        }
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < n; t++) {
            b.beginCopyOf(h, t);
            for (String e : extraReads.getOrDefault(t, List.of())) {
                String[] f = e.split("\0");
                b.read(b.key(f[1]), f[2].equals("\u0001") ? History.NIL : b.value(f[2]));
            }
            b.end();
            for (String[] x : after.getOrDefault(t, List.of())) {
                b.begin(x[0], b.session(String.valueOf(h.sessionName(h.session(t)))), History.COMMITTED, h.end(t) == History.NO_TIME ? History.NO_TIME : h.end(t) + 1,
                        h.end(t) == History.NO_TIME ? History.NO_TIME : h.end(t) + 2, -1);
                for (String e : java.util.Arrays.asList(x).subList(1, x.length)) {
                    String[] f = e.split("\0");
                    int k = b.key(f[1]);
                    if (f[0].equals("w")) b.write(k, b.value(f[2])); else b.read(k, f[2].equals("\u0001") ? History.NIL : b.value(f[2]));
                }
                b.end();
            }
        }
        return b.build();
    }

    /** Copies {@code t}'s operations from {@code h} into the transaction {@code b} is building. */
    private static void copyOps(History h, int t, HistoryBuilder b) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int k = b.key(String.valueOf(h.keyName(h.key(op)))), v = h.value(op);
            int bv = v == History.NIL ? History.NIL : b.value(String.valueOf(h.valueName(v)));
            if (h.kind(op) == History.WRITE) b.write(k, bv); else b.read(k, bv);
        }
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
            b.beginCopyOf(h, t, op -> newValue.getOrDefault(op, h.value(op)));
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
            b.beginCopyOf(h, t);
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

    /** Delivers {@code h} in rounds (see the class comment) and compares every verdict with the oracle. */
    static Result drive(long seed, History h, CheckOptions opts, int roundSize, int pendingLimit, GarbageCollection.Rules rules, Random rnd,
                        String what) {
        return drive(seed, h, opts, roundSize, pendingLimit, rules, rnd, what, Set.of());
    }

    private static Result drive(long seed, History h, CheckOptions opts, int roundSize, int pendingLimit, GarbageCollection.Rules rules, Random rnd,
                                String what, Set<String> shapes) {
        int n = h.size();
        if (TRACE) for (int t = 0; t < n; t++) System.err.println(h.label(t) + " " + h.sessionName(h.session(t)) + " " + h.status(t) + " " + h.describeOps(t));
        EpochAssigner ep = new EpochAssigner(h, SimulatedStore.FENCE_KEY);
        long[] stamped = new long[n], followed = new long[n];
        long[] sessionIndex = new long[n];
        int[] counter = new int[h.sessionCount()];
        for (int t = 0; t < n; t++) {
            sessionIndex[t] = ++counter[h.session(t)];
            stamped[t] = ep.epoch(t) == EpochAssigner.OPEN ? ep.previousFence(t) : ep.epoch(t);
            followed[t] = ep.followedFence(t);
        }
        // planned rounds: whole epochs in epoch order, open transactions (after their session's last fence) last; an unfenced
        // one (its session never fences) as the topology releases it, at once: with the epoch of what came before it
        long[] sortKey = new long[n];
        long lastSeen = 0;
        for (int t = 0; t < n; t++) {
            if (ep.unfenced(t)) sortKey[t] = lastSeen;
            else sortKey[t] = ep.epoch(t) == EpochAssigner.OPEN ? Long.MAX_VALUE : ep.epoch(t);
            if (!ep.unfenced(t) && ep.epoch(t) != EpochAssigner.OPEN) lastSeen = Math.max(lastSeen, ep.epoch(t));
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> sortKey[a] != sortKey[b] ? Long.compare(sortKey[a], sortKey[b]) : Integer.compare(a, b));
        int[] planned = new int[n];
        int round = 0, since = 0;
        for (int i = 0; i < n; i++) {
            planned[order[i]] = round;
            since++;
            boolean boundary = i == n - 1 || ep.fenceCount() == 0 || sortKey[order[i]] != sortKey[order[i + 1]];
            if (since >= roundSize && boundary) { round++; since = 0; }
        }
        // late suffixes of sessions (each session's order is kept)
        int[] arrives = planned.clone();
        boolean[] retiredWhileLate = new boolean[h.sessionCount()];
        int[] lateFrom = new int[h.sessionCount()];
        Arrays.fill(lateFrom, Integer.MAX_VALUE);
        for (int s = 0; s < h.sessionCount(); s++) {
            if (rnd.nextInt(3) != 0) continue;
            int delay = 1 + rnd.nextInt(4), cut = 1 + rnd.nextInt(Math.max(1, counter[s]));
            retiredWhileLate[s] = rnd.nextBoolean();
            int latest = -1;
            for (int t = 0; t < n; t++) {
                if (h.session(t) != s) continue;
                if (sessionIndex[t] >= cut) {
                    arrives[t] = Math.max(planned[t] + delay, latest);
                    lateFrom[s] = Math.min(lateFrom[s], planned[t]);
                }
                latest = Math.max(latest, arrives[t]);
            }
        }
        int lastRound = 0;
        for (int a : arrives) lastRound = Math.max(lastRound, a);
        lastRound += 2; // two more rounds with nothing new: collection catches up
        List<List<Integer>> byRound = new ArrayList<>();
        for (int r = 0; r <= lastRound; r++) byRound.add(new ArrayList<>());
        for (int i = 0; i < n; i++) byRound.get(arrives[order[i]]).add(order[i]);
        int[] lastArrival = new int[h.sessionCount()];
        Arrays.fill(lastArrival, -1);
        for (int t = 0; t < n; t++) lastArrival[h.session(t)] = Math.max(lastArrival[h.session(t)], arrives[t]);

        IncrementalVerifier.Settings settings = IncrementalVerifier.Settings.defaults().withCheck(opts).withPendingRoundsLimit(pendingLimit).withGcRules(rules);
        boolean[] delivered = new boolean[n];
        Set<Integer> retired = new HashSet<>(), closed = new HashSet<>();
        int unknown = 0, accepted = 0, rejected = 0;
        Map<String, Integer> reasons = new HashMap<>();
        boolean collectedAny = false;
        long isolated = 0, chained = 0;
        List<RoundVerifier.Closed> batch = new ArrayList<>();
        List<Verdict.Outcome> oracle = new ArrayList<>();
        List<Integer> deliveredCount = new ArrayList<>();
        List<boolean[]> deliveredThen = new ArrayList<>();
        boolean[] deliveredBefore = null; // as the last round of the previous batch ended
        // after a violation: the transactions its certificates name (a superset of those set aside), by id
        Map<String, Integer> byName = new HashMap<>();
        for (int t = 0; t < n; t++) { byName.put(h.name(t), t); byName.putIfAbsent("T" + h.name(t), t); }
        Set<Integer> named = new HashSet<>();
        Set<Integer> unchecked = new HashSet<>(); // left unchecked by the rounds (docs/DESIGN.md §7.6)
        int batchSize = 1 + rnd.nextInt(4);
        try (RoundVerifier v = new RoundVerifier(settings, new InMemoryCollectedWrites())) {
            for (int r = 0; r <= lastRound; r++) {
                for (int t : byRound.get(r)) { delivered[t] = true; v.add(toTransaction(h, t, ep, stamped[t], sessionIndex[t])); }
                // sessions retired while late (the topology's timeout) or done; revived when they send again
                List<String> retiredNow = new ArrayList<>(), revivedNow = new ArrayList<>(), closedNow = new ArrayList<>();
                for (int s = 0; s < h.sessionCount(); s++) {
                    String name = String.valueOf(h.sessionName(s));
                    boolean done = lastArrival[s] <= r, late = retiredWhileLate[s] && r >= lateFrom[s] && !done && !arrivesIn(byRound.get(r), h, s);
                    if ((done || late) && retired.add(s)) retiredNow.add(name);
                    else if (!done && !late && retired.remove(s)) revivedNow.add(name);
                    if (done && closed.add(s)) closedNow.add(name);
                }
                // what is still to come, from sessions not retired, holds the epochs it follows open
                long minFollowed = Long.MAX_VALUE;
                for (int t = 0; t < n; t++) if (!delivered[t] && !retired.contains(h.session(t))) minFollowed = Math.min(minFollowed, followed[t]);
                long oldEpochMax = ep.fenceCount() == 0 ? -1 : minFollowed == Long.MAX_VALUE ? Long.MAX_VALUE - 3 : EpochRules.lastClosedEpochBefore(minFollowed);
                RoundEnd end = RoundEnd.newBuilder().setRound(r).setTxns(byRound.get(r).size()).setFirstEpoch(-1).setLastEpoch(-1)
                        .setEpochAgree(oldEpochMax < 0 ? 0 : oldEpochMax + 2).setRetiredNow(new ArrayList<>(retiredNow)).setRevivedNow(new ArrayList<>(revivedNow))
                        .setClosedNow(new ArrayList<>(closedNow)).setCutAt(0).build();
                if (oldEpochMax < 0) end.setEpochAgree(-1_000_000); // nothing closed
                if (TRACE) {
                    StringBuilder sb = new StringBuilder("round " + r + " delivers");
                    for (int t : byRound.get(r)) sb.append(' ').append(h.name(t));
                    System.err.println(sb + "; epoch_agree " + end.getEpochAgree() + "; retired " + retiredNow + ", revived " + revivedNow + ", closed " + closedNow);
                }
                batch.add(v.closeRound(end));
                oracle.add(oneShot(h, delivered, opts));
                deliveredCount.add(count(delivered));
                deliveredThen.add(delivered.clone());
                if (batch.size() < batchSize && r < lastRound) continue;
                List<org.cobraverify.schemas.Verdict> got = v.decide(batch);
                // the transactions the rounds left unchecked (docs/DESIGN.md §7.6): the verdicts speak of the rest, and so does the
                // oracle from then on. A batch decided with one check names them all in its last verdict, for every round of it;
                // one decided again round by round names each round's in its own (one it leaves unchecked later may still be
                // waiting in an earlier round: not resolved there, and not left out either)
                List<Set<Integer>> uncheckedBy = new ArrayList<>();
                for (org.cobraverify.schemas.Verdict g : got) {
                    if (g.getUncheckedNow() != g.getUnchecked().size())
                        return new Result(seed, n, r + 1, unknown, accepted, rejected, collectedAny, v.isolatedKeysCount(), v.chainedKeysCount(), "seed " + seed + " (" + what + "): round " + g.getRound() + " names " + g.getUnchecked().size() + " of its "
                                + g.getUncheckedNow() + " unchecked transactions: the comparison needs them all (a smaller round size)", reasons, unchecked.size(), shapes);
                    for (org.cobraverify.schemas.UncheckedTxn u : g.getUnchecked()) {
                        Integer t = byName.get(u.getId().toString());
                        if (t == null) return new Result(seed, n, r + 1, unknown, accepted, rejected, collectedAny, v.isolatedKeysCount(), v.chainedKeysCount(), "seed " + seed + " (" + what + "): round " + g.getRound() + " names " + u.getId() + " unchecked, which the history lacks", reasons, unchecked.size(), shapes);
                        unchecked.add(t);
                    }
                    uncheckedBy.add(new HashSet<>(unchecked));
                }
                Set<Integer> uncheckedAll = unchecked;
                for (int i = 0; i < got.size(); i++) {
                    org.cobraverify.schemas.Verdict g = got.get(i);
                    boolean oneCheck = g.getReason().contains("(checked with round ") || g.getReason().startsWith("decided with round ");
                    unchecked = oneCheck ? uncheckedAll : uncheckedBy.get(i);
                    boolean[] before = i > 0 ? deliveredThen.get(i - 1) : deliveredBefore;
                    if (TRACE) System.err.println("round " + g.getRound() + " " + g.getOutcome() + " own " + g.getOwnOutcome() + " new " + g.getNewViolations()
                            + " (one-shot: " + oracle.get(i) + "): " + g.getReason());
                    Verdict.Outcome want = unchecked.isEmpty() ? oracle.get(i) : oneShotWithout(h, deliveredThen.get(i), unchecked, opts).outcome();
                    long rn = g.getRound();
                    if (g.getOutcome() == Outcome.UNKNOWN) { unknown++; reasons.merge(kindOf(g.getReason()), 1, Integer::sum); continue; }
                    Verdict.Outcome as = g.getOutcome() == Outcome.ACCEPT ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT;
                    // a violation found while transactions later left unchecked were still in the round's graph is one of the whole
                    // history (its certificate's facts are), though not of the rest: a reject is right if the whole history has one
                    if (as != want && as == Verdict.Outcome.REJECT && !unchecked.isEmpty() && oracle.get(i) == Verdict.Outcome.REJECT) want = as;
                    if (as != want) {
                        Verdict w = oneShotWithout(h, deliveredThen.get(i), unchecked, opts);
                        return new Result(seed, n, r + 1, unknown, accepted, rejected, collectedAny, v.isolatedKeysCount(), v.chainedKeysCount(), "seed " + seed + " (" + what + "): round " + rn
                                + " says " + as + " (" + g.getReason() + "), one-shot on the " + deliveredCount.get(i) + " transactions delivered by then"
                                + (unchecked.isEmpty() ? "" : " (less the " + unchecked.size() + " left unchecked)") + " says "
                                + want + (w.certificate() == null ? "" : ": " + w.certificate().summary()), reasons, unchecked.size(), shapes);
                    }
                    if (as == Verdict.Outcome.ACCEPT) accepted++; else rejected++;
                    // life after a violation (docs/DESIGN.md §7.10): each new violation names a transaction no earlier one named
                    // (never the same one twice), and a round whose own transactions are said to be clean is: the one-shot
                    // check of what was delivered, less every transaction a certificate named and the reads of their writes,
                    // accepts (it is a sub-history of what the verifier checked, so a reject there is a false accept here)
                    List<org.cobraverify.schemas.Certificate> certs = new ArrayList<>();
                    if (g.getCertificate() != null && g.getNewViolations() > 0) certs.add(g.getCertificate());
                    certs.addAll(g.getMoreCertificates());
                    for (org.cobraverify.schemas.Certificate c : certs) {
                        Set<Integer> ids = new HashSet<>();
                        for (String x : setAside(c)) {
                            Integer t = byName.get(x);
                            if (t != null) ids.add(t);
                        }
                        if (!ids.isEmpty() && named.containsAll(ids))
                            return new Result(seed, n, r + 1, unknown, accepted, rejected, collectedAny, v.isolatedKeysCount(), v.chainedKeysCount(), "seed " + seed + " (" + what + "): round " + rn
                                    + " reports again a violation whose transactions were all named before: " + c.getSummary(), reasons, unchecked.size(), shapes);
                        named.addAll(ids);
                    }
                    Set<Integer> out = named;
                    if (!unchecked.isEmpty()) { out = new HashSet<>(named); out.addAll(unchecked); }
                    Verdict rest = g.getViolations() > 0 && g.getOwnOutcome() == Outcome.ACCEPT ? oneShotWithout(h, deliveredThen.get(i), out, opts) : null;
                    // a cycle already there before this round's deliveries is not this round's (garbage collection keeps
                    // one cycle of a violation visible, not all: those it hid are entangled with a violation reported)
                    if (rest != null && rest.outcome() == Verdict.Outcome.REJECT && (before == null || oneShotWithout(h, before, out, opts).outcome() == Verdict.Outcome.ACCEPT))
                        return new Result(seed, n, r + 1, unknown, accepted, rejected, collectedAny, v.isolatedKeysCount(), v.chainedKeysCount(), "seed " + seed + " (" + what + "): round " + rn
                                + " says its own transactions are clean (" + g.getReason() + "), but one-shot on the " + deliveredCount.get(i)
                                + " transactions delivered by then, less the " + named.size() + " that certificates set aside"
                                + (unchecked.isEmpty() ? "" : " and the " + unchecked.size() + " left unchecked") + ", rejects: " + rest.certificate().summary(), reasons, unchecked.size(), shapes);
                }
                unchecked = uncheckedAll;
                collectedAny |= v.retainedCount() < v.checkedCount();
                isolated = v.isolatedKeysCount();
                chained = v.chainedKeysCount();
                batch.clear();
                oracle.clear();
                deliveredCount.clear();
                deliveredBefore = deliveredThen.get(deliveredThen.size() - 1);
                deliveredThen.clear();
                batchSize = 1 + rnd.nextInt(4);
            }
        }
        return new Result(seed, n, lastRound + 1, unknown, accepted, rejected, collectedAny, isolated, chained, null, reasons, unchecked.size(), shapes);
    }

    private static boolean arrivesIn(List<Integer> round, History h, int s) {
        for (int t : round) if (h.session(t) == s) return true;
        return false;
    }

    private static int count(boolean[] b) {
        int c = 0;
        for (boolean x : b) if (x) c++;
        return c;
    }

    /**
     * The oracle: the largest set of delivered transactions whose reads all resolve within it (remove, to a fixed
     * point, every transaction with a read whose writer is not delivered or removed), checked one-shot.
     */
    static Verdict.Outcome oneShot(History h, boolean[] delivered, CheckOptions opts) { return oneShotWithout(h, delivered, Set.of(), opts).outcome(); }

    /** {@code -Dcobra.differentialTrace=true}: each round's verdict on standard error (to follow one seed). */
    private static final boolean TRACE = Boolean.getBoolean("cobra.differentialTrace");

    /**
     * The one-shot verdict on the delivered transactions less {@code without}, each of whose writes is read by nobody
     * (those reads are dropped, as the verifier drops reads of set-aside writes), closed under read-from: a transaction
     * with a read whose writer was not delivered is left out, and so are its readers.
     */
    static Verdict oneShotWithout(History h, boolean[] delivered, Set<Integer> without, CheckOptions opts) {
        int n = h.size();
        // only those delivered by then (a batch names the transactions it left unchecked in its last verdict, some of which
        // arrived after its earlier rounds)
        if (!without.isEmpty()) {
            Set<Integer> d = new HashSet<>();
            for (int t : without) if (delivered[t]) d.add(t);
            without = d;
        }
        Map<Long, Integer> writer = new HashMap<>();
        for (int t = 0; t < n; t++)
            if (delivered[t] || without.contains(t))
                for (int op = h.opStart(t); op < h.opEnd(t); op++)
                    if (h.kind(op) == History.WRITE) writer.putIfAbsent(((long) h.key(op) << 32) | h.value(op), t);
        boolean[] in = delivered.clone();
        for (int t : without) in[t] = false;
        for (boolean changed = true; changed; ) {
            changed = false;
            for (int t = 0; t < n; t++) {
                if (!in[t]) continue;
                boolean ok = true;
                for (int op = h.opStart(t); op < h.opEnd(t) && ok; op++) {
                    if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                    Integer w = writer.get(((long) h.key(op) << 32) | h.value(op));
                    ok = w != null && (in[w] || without.contains(w));
                }
                if (!ok) { in[t] = false; changed = true; }
            }
        }
        // the kept transactions and those set aside (whose writes mark the reads to drop), then without the latter
        List<Integer> keep = new ArrayList<>();
        for (int t = 0; t < n; t++) if (in[t] || without.contains(t)) keep.add(t);
        History sub = h.restrict(keep.stream().mapToInt(Integer::intValue).toArray());
        if (without.isEmpty()) return Checker.check(sub, opts);
        boolean[] aside = new boolean[keep.size()];
        for (int i = 0; i < keep.size(); i++) aside[i] = without.contains(keep.get(i));
        return Checker.check(org.cobraverify.checker.AllViolations.without(sub, aside), opts);
    }

    /**
     * The transactions a published certificate sets aside, as {@link SetAside#of} chooses them (without knowing which are
     * held: a superset): the reader of a read anomaly, every transaction named otherwise.
     */
    static List<String> setAside(org.cobraverify.schemas.Certificate c) {
        List<String> ids = new ArrayList<>();
        for (org.cobraverify.schemas.CertTxn x : c.getTransactions()) ids.add(x.getId().toString());
        String a = c.getAnomaly().toString();
        for (org.cobraverify.checker.AnomalyKind k : List.of(org.cobraverify.checker.AnomalyKind.G1A, org.cobraverify.checker.AnomalyKind.G1B,
                org.cobraverify.checker.AnomalyKind.UNWRITTEN_READ, org.cobraverify.checker.AnomalyKind.INTERNAL,
                org.cobraverify.checker.AnomalyKind.NON_REPEATABLE_READ))
            if (k.title().equals(a)) return ids.isEmpty() ? ids : List.of(ids.get(ids.size() - 1));
        if (org.cobraverify.checker.AnomalyKind.STALE_READ.title().equals(a)) return ids.isEmpty() ? ids : List.of(ids.get(0));
        for (org.cobraverify.schemas.CycleEdge e : c.getCycle()) { ids.add(e.getFrom().toString()); ids.add(e.getTo().toString()); }
        return ids;
    }

    /** Transaction {@code t} as the topology delivers it, with its stamped epoch. */
    private static Transaction toTransaction(History h, int t, EpochAssigner ep, long epoch, long sessionIndex) {
        List<TxnOp> ops = new ArrayList<>(h.opEnd(t) - h.opStart(t));
        for (int o = h.opStart(t); o < h.opEnd(t); o++) {
            Object val = h.valueName(h.value(o));
            ops.add(new TxnOp(h.kind(o) == History.WRITE, String.valueOf(h.keyName(h.key(o))), val == null ? null : String.valueOf(val)));
        }
        TxnStatus st = h.status(t) == History.COMMITTED ? TxnStatus.COMMITTED : h.status(t) == History.ABORTED ? TxnStatus.ABORTED : TxnStatus.UNKNOWN;
        return Transaction.newBuilder().setId(h.name(t)).setSession(String.valueOf(h.sessionName(h.session(t)))).setStatus(st)
                .setStart(h.start(t) == History.NO_TIME ? 0 : h.start(t)).setEnd(h.end(t) == History.NO_TIME ? 0 : h.end(t))
                .setOps(ops).setSessionIndex(sessionIndex).setFence(ep.isFence(t)).setEpoch(epoch).build();
    }
}
