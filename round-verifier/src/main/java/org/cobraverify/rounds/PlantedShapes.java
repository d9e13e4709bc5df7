package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.synth.SimulatedStore;

/**
 * The later shapes of {@link RoundsDifferential}'s histories ({@link RoundsDifferential.Shapes#untimed},
 * {@link RoundsDifferential.Shapes#unfenced}, {@link RoundsDifferential.Shapes#violations}): transactions without times,
 * sessions that never fence, and violations planted on keys that are read again later. Each takes a generated history and
 * the random stream to draw from, and returns a new history.
 */
final class PlantedShapes {
    private PlantedShapes() {}

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
            b.begin(h.name(t), b.session(String.valueOf(h.sessionName(h.session(t)))), h.status(t), start, end, -1); // (names as text, as beginCopyAsText)
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
            b.beginCopyAsText(h, t);
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
            b.beginCopyAsText(h, t);
            for (String e : extraReads.getOrDefault(t, List.of())) {
                String[] f = e.split("\0");
                b.read(b.key(f[1]), f[2].equals("\u0001") ? History.NIL : b.value(f[2]));
            }
            b.end();
            for (String[] x : after.getOrDefault(t, List.of())) {
                b.begin(x[0], b.session(String.valueOf(h.sessionName(h.session(t)))), History.COMMITTED, h.end(t) == History.NO_TIME ? History.NO_TIME : h.end(t) + 1,
                        h.end(t) == History.NO_TIME ? History.NO_TIME : h.end(t) + 2, -1);
                for (String e : Arrays.asList(x).subList(1, x.length)) {
                    String[] f = e.split("\0");
                    int k = b.key(f[1]);
                    if (f[0].equals("w")) b.write(k, b.value(f[2])); else b.read(k, f[2].equals("\u0001") ? History.NIL : b.value(f[2]));
                }
                b.end();
            }
        }
        return b.build();
    }

    /**
     * {@code h} with its keys (the fence key excepted), values and sessions renamed, one to one and at random, to integers and
     * strings whose texts collide: the first two names of each become {@code 0} and {@code "0"}, the next two {@code 1} and
     * {@code "1"}, and so on. The history is the same history (the names are different names, docs/history-format.md); a
     * verifier that merges {@code 1} with {@code "1"} anywhere a history travels misreads it.
     */
    static History mixedNames(History h, Random rnd) {
        Object[] keys = typedTwins(h.keyCount(), rnd), values = typedTwins(valueCount(h), rnd), sessions = typedTwins(h.sessionCount(), rnd);
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            b.begin(h.name(t), b.session(sessions[h.session(t)]), h.status(t), h.start(t), h.end(t), -1);
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                Object kn = h.keyName(h.key(op));
                int k = SimulatedStore.FENCE_KEY.equals(String.valueOf(kn)) ? b.key(SimulatedStore.FENCE_KEY) : b.key(keys[h.key(op)]);
                int v = h.value(op) == History.NIL ? History.NIL : b.value(values[h.value(op)]);
                if (h.kind(op) == History.WRITE) b.write(k, v); else b.read(k, v);
            }
            b.end();
        }
        return b.build();
    }

    /** How many value ids {@code h} uses (one more than the largest). */
    private static int valueCount(History h) {
        int n = 0;
        for (int op = 0; op < h.opCount(); op++) n = Math.max(n, h.value(op) + 1);
        return n;
    }

    /** {@code n} distinct names, in random order: {@code 0}, {@code "0"}, {@code 1}, {@code "1"}, ... */
    private static Object[] typedTwins(int n, Random rnd) {
        List<Object> names = new ArrayList<>();
        for (int i = 0; i < n; i++) names.add(i % 2 == 0 ? (Object) (long) (i / 2) : String.valueOf(i / 2));
        java.util.Collections.shuffle(names, rnd);
        return names.toArray();
    }

    /** Copies {@code t}'s operations from {@code h} into the transaction {@code b} is building. */
    private static void copyOps(History h, int t, HistoryBuilder b) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            int k = b.key(String.valueOf(h.keyName(h.key(op)))), v = h.value(op);
            int bv = v == History.NIL ? History.NIL : b.value(String.valueOf(h.valueName(v)));
            if (h.kind(op) == History.WRITE) b.write(k, bv); else b.read(k, bv);
        }
    }
}
