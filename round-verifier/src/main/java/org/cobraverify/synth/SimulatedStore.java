package org.cobraverify.synth;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * A multi-version key-value store simulated in memory, run by concurrent sessions under a chosen
 * isolation level, that records the history it produced. It is the ground truth for property tests:
 * {@link Isolation#SERIAL} histories are serializable by construction; the others may or may not be.
 *
 * <p>Each session runs random transactions of reads and writes; a scheduler interleaves their steps at
 * random. Written values are unique. Some transactions abort (their writes are never installed), and
 * some outcomes are recorded as unknown. With late commits, some transactions of unknown outcome take effect later than
 * their client gave up on them: the session goes on at once, and the transaction runs, atomically, some steps later (a
 * commit a proxy retried, or one that reached the database after the connection broke: docs/DESIGN.md §1.2).
 */
public final class SimulatedStore {
    public enum Isolation {
        /** Each transaction runs alone, atomically: serializable. */
        SERIAL,
        /** Snapshot isolation: reads from a snapshot taken at begin; first committer wins. */
        SNAPSHOT,
        /** Read committed: each read sees the latest committed version; writes never conflict. */
        READ_COMMITTED,
        /** Each read returns some committed version of the key, possibly stale. */
        STALE_READS
    }

    /** Shape of the random workload. */
    public record Workload(int sessions, int txnsPerSession, int keys, int maxOps, double readFraction,
                           double abortRate, double unknownRate) {}

    private SimulatedStore() {}

    private static final class Version {
        final long value;
        final long commitTs;
        final long[] list; // list-append: the whole list in this version
        Version(long value, long commitTs, long[] list) { this.value = value; this.commitTs = commitTs; this.list = list; }
    }

    private static final class Txn {
        final int session;
        final List<long[]> ops = new ArrayList<>(); // {isWrite, key, value (-1 = null)} or, for list reads, {2, key, e1, e2, ...}
        final Map<Integer, Long> writes = new HashMap<>();
        final Map<Integer, long[]> ownLists = new HashMap<>(); // list-append: the key's list as this transaction sees it after its appends
        int[] program; // key per op; negative = write to -(k+1)
        int next;
        boolean fence;
        long snapshot, began;
        Txn(int session) { this.session = session; }
    }

    public static History run(Isolation iso, Workload w, Random rnd) { return run(iso, w, rnd, false); }

    /** The committed version a read sees under the isolation level (null: the initial state). */
    private static Version visible(List<Version> vs, Isolation iso, Txn t, Random rnd) {
        switch (iso) {
            case SNAPSHOT -> {
                for (int i = vs.size() - 1; i >= 0; i--) if (vs.get(i).commitTs <= t.snapshot) return vs.get(i);
                return null;
            }
            case STALE_READS -> {
                int i = rnd.nextInt(vs.size() + 1) - 1;
                return i < 0 ? null : vs.get(i);
            }
            default -> {
                return vs.isEmpty() ? null : vs.get(vs.size() - 1);
            }
        }
    }

    /** The list a read sees (before the transaction's own appends). */
    private static long[] listAt(List<Version> vs, Isolation iso, Txn t, Random rnd) {
        Version v = visible(vs, iso, t, rnd);
        return v == null ? new long[0] : v.list;
    }

    /**
     * As {@link #run(Isolation, Workload, Random)}; with {@code lists}, keys hold lists: writes append a
     * unique element and reads return the whole list (Elle's list-append model).
     */
    public static History run(Isolation iso, Workload w, Random rnd, boolean lists) { return run(iso, w, rnd, lists, 0); }

    /** The fence key of {@link #run(Isolation, Workload, Random, boolean, int)}'s fences. */
    public static final String FENCE_KEY = "EPOCH";

    /**
     * As {@link #run(Isolation, Workload, Random, boolean)}; with {@code fenceEvery > 0}, every session
     * starts with a fence (a read-modify-write of {@link #FENCE_KEY} that reads the latest committed value,
     * as a locking read would) and runs another after every {@code fenceEvery} commits, retrying aborted
     * ones. Concurrent fences under the weaker levels may still lose an update, as on a real store.
     */
    public static History run(Isolation iso, Workload w, Random rnd, boolean lists, int fenceEvery) { return run(iso, w, rnd, lists, fenceEvery, null); }

    /** A transaction recorded in the history, in the order of the history (its ops filled when it ran). */
    private static final class Recorded {
        final int session;
        byte status;
        final long began;
        long end;
        List<long[]> ops;
        Recorded(int session, byte status, long began, long end, List<long[]> ops) {
            this.session = session; this.status = status; this.began = began; this.end = end; this.ops = ops;
        }
    }

    /** A transaction whose client gave up (unknown outcome) and that runs at step {@code due}. */
    private record Late(Txn txn, Recorded record, long due, boolean commits) {}

    /**
     * As {@link #run(Isolation, Workload, Random, boolean, int)}; with {@code late} not null, some transactions of unknown
     * outcome (not fences; register keys only) commit late, their choices drawn from {@code late}: a tenth of the non-fence
     * transactions are recorded at their place in their session with an unknown outcome, while they run, atomically and with
     * the latest committed versions, 1 to 40 steps later (or abort then, at the abort rate). Without {@code late}, the
     * history is the one the other overloads give.
     */
    public static History run(Isolation iso, Workload w, Random rnd, boolean lists, int fenceEvery, Random late) {
        return run(iso, w, rnd, lists, fenceEvery, late, null);
    }

    /**
     * Blind writes of hot keys by sessions that fence at different paces: {@code hotKeys} keys besides the workload's, which an
     * operation targets with probability {@code hotShare} (a write, blind, with probability {@code hotWrites}), and sessions
     * {@code 0 .. slowSessions - 1} fence every {@code slowFenceEvery} transactions instead: their transactions read what
     * sessions of later epochs wrote, and write keys those write too. Every choice it adds draws from {@code rnd}, a stream
     * of its own, so the run's other choices are the same as without it.
     */
    public record Skew(int hotKeys, double hotShare, double hotWrites, int slowSessions, int slowFenceEvery, Random rnd) {}

    /** As {@link #run(Isolation, Workload, Random, boolean, int, Random)}, with {@code skew}'s hot keys and slow sessions (null: none). */
    public static History run(Isolation iso, Workload w, Random rnd, boolean lists, int fenceEvery, Random late, Skew skew) {
        if (lists && fenceEvery > 0) throw new IllegalArgumentException("fences need register keys, not lists");
        if (lists && late != null) throw new IllegalArgumentException("late commits need register keys, not lists");
        List<Recorded> log = new ArrayList<>();
        List<Late> limbo = new ArrayList<>();
        List<List<Version>> versions = new ArrayList<>();
        for (int k = 0; k <= w.keys(); k++) versions.add(new ArrayList<>()); // the last: the fence key
        if (skew != null) for (int k = 0; k < skew.hotKeys(); k++) versions.add(new ArrayList<>()); // then the hot keys
        final int fenceKey = w.keys();
        boolean[] needFence = new boolean[w.sessions()];
        int[] sinceFence = new int[w.sessions()];
        Arrays.fill(needFence, fenceEvery > 0);
        long clock = 0;
        long nextValue = 1;
        int[] remaining = new int[w.sessions()];
        Arrays.fill(remaining, w.txnsPerSession());
        Txn[] active = new Txn[w.sessions()];
        int live = w.sessions() * w.txnsPerSession();
        long step = 0; // the scheduler's clock: a transaction's start and end times are the steps of its begin and its commit
        while (live > 0) {
            step++;
            for (int i = 0; i < limbo.size(); i++) {
                Late l = limbo.get(i);
                if (l.due() > step) continue;
                limbo.remove(i--);
                live--;
                for (int p : l.txn().program) {
                    if (p < 0) {
                        long v = nextValue++;
                        l.txn().writes.put(-p - 1, v);
                        l.txn().ops.add(new long[] {1, -p - 1, v});
                    } else {
                        Long own = l.txn().writes.get(p);
                        List<Version> vs = versions.get(p);
                        l.txn().ops.add(new long[] {0, p, own != null ? own : vs.isEmpty() ? -1 : vs.get(vs.size() - 1).value});
                    }
                }
                if (l.commits()) {
                    clock++;
                    for (Map.Entry<Integer, Long> e : l.txn().writes.entrySet()) versions.get(e.getKey()).add(new Version(e.getValue(), clock, null));
                }
                l.record().ops = l.txn().ops;
            }
            int s = rnd.nextInt(w.sessions());
            if (active[s] == null) {
                if (remaining[s] == 0) continue;
                Txn t = new Txn(s);
                if (needFence[s]) {
                    t.fence = true;
                    t.program = new int[] {fenceKey, -(fenceKey + 1)};
                } else {
                    remaining[s]--;
                    int ops = 1 + rnd.nextInt(w.maxOps());
                    t.program = new int[ops];
                    for (int i = 0; i < ops; i++) {
                        int k = rnd.nextInt(w.keys());
                        t.program[i] = rnd.nextDouble() < w.readFraction() ? k : -(k + 1);
                        if (skew != null && skew.hotKeys() > 0 && skew.rnd().nextDouble() < skew.hotShare()) {
                            int hot = fenceKey + 1 + skew.rnd().nextInt(skew.hotKeys());
                            t.program[i] = skew.rnd().nextDouble() < skew.hotWrites() ? -(hot + 1) : hot;
                        }
                    }
                }
                t.snapshot = clock;
                t.began = step;
                if (late != null && !t.fence && late.nextInt(10) == 0) {
                    // its client gives up at once and the session goes on; the transaction runs later
                    Recorded r = new Recorded(s, History.UNKNOWN, step, step, List.of());
                    log.add(r);
                    limbo.add(new Late(t, r, step + 1 + late.nextInt(40), late.nextDouble() >= w.abortRate()));
                    continue;
                }
                active[s] = t;
                if (iso != Isolation.SERIAL) continue;
            }
            Txn t = active[s];
            // SERIAL runs the whole transaction in this step; the others one operation per step
            do {
                if (t.next < t.program.length) {
                    int p = t.program[t.next++];
                    if (p < 0) {
                        int k = -p - 1;
                        long v = nextValue++;
                        if (lists) {
                            long[] base = t.ownLists.containsKey(k) ? t.ownLists.get(k) : listAt(versions.get(k), iso, t, rnd);
                            long[] l = Arrays.copyOf(base, base.length + 1);
                            l[base.length] = v;
                            t.ownLists.put(k, l);
                        }
                        t.writes.put(k, v);
                        t.ops.add(new long[] {1, k, v});
                    } else if (lists) {
                        long[] l = t.ownLists.containsKey(p) ? t.ownLists.get(p) : listAt(versions.get(p), iso, t, rnd);
                        if (!t.ownLists.containsKey(p)) t.ownLists.put(p, l); // repeatable within the transaction
                        long[] op = new long[2 + l.length];
                        op[0] = 2;
                        op[1] = p;
                        System.arraycopy(l, 0, op, 2, l.length);
                        t.ops.add(op);
                    } else {
                        Long own = t.writes.get(p);
                        long v;
                        if (own != null) v = own;
                        else if (t.fence) {
                            List<Version> vs = versions.get(p);
                            v = vs.isEmpty() ? -1 : vs.get(vs.size() - 1).value;
                        } else {
                            Version chosen = visible(versions.get(p), iso, t, rnd);
                            v = chosen == null ? -1 : chosen.value;
                        }
                        t.ops.add(new long[] {0, p, v});
                    }
                    continue;
                }
                // commit or abort
                boolean abort = rnd.nextDouble() < w.abortRate();
                if (!abort && iso == Isolation.SNAPSHOT) {
                    for (int k : t.writes.keySet()) {
                        List<Version> vs = versions.get(k);
                        if (!vs.isEmpty() && vs.get(vs.size() - 1).commitTs > t.snapshot) { abort = true; break; }
                    }
                }
                if (!abort) {
                    clock++;
                    for (Map.Entry<Integer, Long> e : t.writes.entrySet()) {
                        long[] list = null;
                        if (lists) {
                            // appends go onto the latest committed list (what a real store would do), not the snapshot
                            List<Version> vs = versions.get(e.getKey());
                            long[] latest = vs.isEmpty() ? new long[0] : vs.get(vs.size() - 1).list;
                            List<Long> mine = new ArrayList<>();
                            for (long[] op : t.ops) if (op[0] == 1 && op[1] == e.getKey()) mine.add(op[2]);
                            list = Arrays.copyOf(latest, latest.length + mine.size());
                            for (int i = 0; i < mine.size(); i++) list[latest.length + i] = mine.get(i);
                        }
                        versions.get(e.getKey()).add(new Version(e.getValue(), clock, list));
                    }
                }
                byte status = abort ? History.ABORTED : History.COMMITTED;
                if (rnd.nextDouble() < w.unknownRate()) status = History.UNKNOWN;
                if (t.fence) { if (!abort) needFence[s] = false; }
                else if (!abort && fenceEvery > 0 && ++sinceFence[s] >= (skew != null && s < skew.slowSessions() ? skew.slowFenceEvery() : fenceEvery)) {
                    sinceFence[s] = 0;
                    needFence[s] = true;
                }
                log.add(new Recorded(s, status, t.began, step, t.ops));
                active[s] = null;
                if (!t.fence) live--;
                break;
            } while (iso == Isolation.SERIAL);
        }
        HistoryBuilder b = new HistoryBuilder();
        for (Recorded r : log) {
            b.begin(null, b.session((long) r.session), r.status, r.began, r.end, -1);
            for (long[] op : r.ops) {
                int key = op[1] == fenceKey ? b.key(FENCE_KEY) : b.key(op[1]);
                if (op[0] == 1) {
                    if (lists) b.append(key, b.value(op[2])); else b.write(key, b.value(op[2]));
                } else if (op[0] == 2) {
                    int[] l = new int[op.length - 2];
                    for (int i = 0; i < l.length; i++) l[i] = b.value(op[2 + i]);
                    b.readList(key, l);
                } else b.read(key, op[2] < 0 ? History.NIL : b.value(op[2]));
            }
            b.end();
        }
        return b.build();
    }
}
