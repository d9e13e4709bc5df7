package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.schemas.protocol.WireNames;
import org.cobraverify.gc.analysis.Barrier;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.IntVec;
import org.cobraverify.schemas.FrontierWrite;

/**
 * What a verifier in rounds remembers of the transactions garbage collection deleted, apart from their writes
 * ({@link CollectedWrites}): the summary each round's check turns into one {@link Barrier} vertex. It holds the
 * retained committed old transactions that precede the past ({@code before}), the entry fences it precedes
 * ({@code after}), the newest epoch it closed, the latest start and end times of the old transactions in the
 * checked history (strict mode), the facts carried between retained transactions ({@link Carried}), and the
 * frontier writes the last collection found (for checkpoints and for people).
 *
 * <p>Invariant: before any collection, {@link #exists} is false and every field is empty; after one, every
 * transaction the past stands for (every one collected, and the old ones of {@code before}: of epoch {@link #epoch} or
 * earlier, less those that reach no entry fence, which stay as if they were not old) precedes every {@code after} fence in
 * every serial order that explains the history (GC checked it in the facts before it deleted anything). Ids in {@code before}, {@code after} and the carried facts name retained transactions or
 * none at all (a round's history ignores ids it does not hold). docs/DESIGN.md §7.3–§7.4.
 */
public final class CollectedPast {
    /** A fact carried from an earlier round: {@code src -kind(key)-> dst}, between transactions still retained. */
    public record Carried(String src, String dst, int kind, String key) {}

    /**
     * Facts of one round only, by index in its history (never kept: indexes are the round's): {@code src[i]} precedes
     * {@code dst[i]} as {@code kind[i]} says, for key id {@code key[i]} of the round's builder (-1: none).
     */
    public record RoundFacts(int[] src, int[] dst, int[] kind, int[] key) {
        public static final RoundFacts NONE = new RoundFacts(new int[0], new int[0], new int[0], new int[0]);

        public RoundFacts {
            if (dst.length != src.length || kind.length != src.length || key.length != src.length)
                throw new IllegalArgumentException("one destination, kind and key per fact");
        }
    }

    private Set<String> before = new HashSet<>(), after = new HashSet<>();
    /**
     * Strict mode (docs/DESIGN.md §7.3): retained transactions that precede the past's real-time point (each reaches, in
     * the facts, a transaction that ended by {@link #maxEnd}), beside those of {@link #before} when the past itself does
     * ({@link #pastBeforeRt}).
     */
    private Set<String> rtBefore = new HashSet<>();
    private boolean pastBeforeRt = true;
    private long maxEnd = History.NO_TIME, maxStart = History.NO_TIME, epoch = -1;
    private boolean exists;
    private List<Carried> carried = new ArrayList<>();
    private List<FrontierWrite> frontier = new ArrayList<>();

    /** Whether anything has been collected (so that rounds check against a barrier). */
    public boolean exists() { return exists; }

    /** The newest epoch collected, or -1. */
    public long epoch() { return epoch; }

    /** The entry fences the past precedes. */
    public Set<String> after() { return after; }

    /** The retained committed old transactions that precede the past. */
    public Set<String> before() { return before; }

    public List<Carried> carried() { return carried; }

    /** Strict mode: the retained transactions that precede the past's real-time point (besides {@link #before}, when {@link #pastBeforeRt}). */
    public Set<String> rtBefore() { return rtBefore; }

    /** Strict mode: whether every transaction the past stands for precedes its real-time point (so the past does). */
    public boolean pastBeforeRt() { return pastBeforeRt; }

    public long maxEnd() { return maxEnd; }

    public long maxStart() { return maxStart; }

    /** The frontier the last collection found (key, writer, value). */
    public List<FrontierWrite> frontier() { return frontier; }

    /**
     * The barrier for a round's history: ids mapped through {@code index} (those it lacks are dropped), carried
     * keys interned in {@code hb}. Requires {@link #exists}.
     */
    public Barrier toBarrier(HistoryBuilder hb, Map<String, Integer> index) { return toBarrier(hb, index, new int[0], RoundFacts.NONE); }

    /**
     * As above, with {@code alsoBefore} (indexes: the synthetic writers of frontier records, docs/DESIGN.md §7.9) before
     * the past too, and {@code also}, facts of this round only (their edges to the writers of their keys), after the carried ones.
     */
    public Barrier toBarrier(HistoryBuilder hb, Map<String, Integer> index, int[] alsoBefore, RoundFacts also) {
        List<Integer> b = new ArrayList<>(), a = new ArrayList<>(), rt = new ArrayList<>();
        for (int i : alsoBefore) b.add(i);
        int facts = carried.size() + also.src().length;
        IntVec cs = new IntVec(facts), cd = new IntVec(facts), ck = new IntVec(facts), ckey = new IntVec(facts);
        for (Carried e : carried) {
            Integer u = index.get(e.src()), v = index.get(e.dst());
            if (u == null || v == null) continue;
            cs.add(u); cd.add(v); ck.add(e.kind()); ckey.add(e.key() == null ? -1 : hb.key(e.key()));
        }
        for (int i = 0; i < also.src().length; i++) { cs.add(also.src()[i]); cd.add(also.dst()[i]); ck.add(also.kind()[i]); ckey.add(also.key()[i]); }
        for (String id : before) { Integer i = index.get(id); if (i != null) b.add(i); }
        for (String id : after) { Integer i = index.get(id); if (i != null) a.add(i); }
        for (String id : rtBefore) { Integer i = index.get(id); if (i != null) rt.add(i); }
        String desc = "every transaction garbage collection closed (of epoch " + epoch + " or earlier, collected or not) precedes the latest"
                + " fence of each live session when they were collected (" + String.join(", ", after) + "): the fences chain through their read-modify-writes";
        return new Barrier(b.stream().mapToInt(Integer::intValue).toArray(), a.stream().mapToInt(Integer::intValue).toArray(),
                rt.stream().mapToInt(Integer::intValue).toArray(), pastBeforeRt, maxEnd, maxStart, desc, cs.toArray(), cd.toArray(), ck.toArray(), ckey.toArray());
    }

    /**
     * Widens the real-time summary by an old transaction of the checked history. Only those: an aborted or unread
     * unknown transaction is in no serial order, so its times order nothing (counting them rejected serializable
     * histories: a fence that ended before such a transaction started was put both before and after the past).
     */
    void widen(long start, long end) {
        if (end != 0) maxEnd = maxEnd == History.NO_TIME ? end : Math.max(maxEnd, end);
        if (start != 0) maxStart = maxStart == History.NO_TIME ? start : Math.max(maxStart, start);
    }

    /**
     * Moves the past after a collection: {@code before}, the committed old transactions that stay; {@code entries},
     * the new entry fences; {@code closedEpoch}, the newest epoch closed; the facts GC carries and the frontier it found.
     */
    void advance(Set<String> before, Set<String> entries, long closedEpoch, History h, GarbageCollection gc) {
        this.before = before;
        this.after = entries;
        this.epoch = closedEpoch;
        this.exists = true;
        // strict mode: who precedes the real-time point (those of before need no edge of their own when the past does)
        Set<String> rt = new HashSet<>();
        if (gc.rtBefore != null)
            for (int t = 0; t < gc.rtBefore.length; t++) if (gc.rtBefore[t] && !(gc.pastBeforeRt && before.contains(h.name(t)))) rt.add(h.name(t));
        this.rtBefore = rt;
        this.pastBeforeRt = gc.pastBeforeRt;
        if (gc.rtBefore != null && gc.rtMaxEnd != History.NO_TIME && gc.rtMaxEnd != maxEnd)
            throw new IllegalStateException("internal: garbage collection's real-time point (" + gc.rtMaxEnd + ") is not the past's (" + maxEnd + ")");
        List<Carried> next = new ArrayList<>(gc.carrySrc.length);
        for (int i = 0; i < gc.carrySrc.length; i++)
            next.add(new Carried(h.name(gc.carrySrc[i]), h.name(gc.carryDst[i]), gc.carryKind[i],
                    gc.carryKey[i] < 0 ? null : WireNames.of(h.keyName(gc.carryKey[i]))));
        carried = next;
        // GC lists them in operation order (so in transaction order): a cursor finds each one's transaction, no pass over
        // the round's operations
        List<FrontierWrite> f = new ArrayList<>(gc.frontierOps.length);
        int t = 0;
        for (int op : gc.frontierOps) {
            while (h.opEnd(t) <= op) t++;
            f.add(new FrontierWrite(WireNames.of(h.keyName(h.key(op))), h.name(t), WireNames.of(h.valueName(h.value(op)))));
        }
        frontier = f;
    }

    /** Contracting one set-aside transaction adds at most this many facts; past it, {@link #contract} gives up. */
    public static final int MAX_CONTRACTED_FACTS = 100_000;

    /**
     * Takes the retained transaction {@code x} out of the collected past's facts without losing a path between the
     * others that ran through it (docs/DESIGN.md §7.10): for every way into {@code x} (a carried fact {@code u → x}, its
     * session predecessor {@code sessionBefore}, the past when {@code x} is an entry fence) and every way out (a carried
     * fact {@code x → v}, its session successors {@code sessionAfter}, the past when {@code x} precedes it), {@code u → v}
     * becomes a carried {@code PATH} fact ({@code u} or {@code v} the past: {@code v} joins the entry side, {@code u} the
     * preceding side). Each is a path of facts of the history, so it invents no cycle the history lacks; without it, a
     * path that garbage collection had kept only through {@code x} would be gone (the chain cover of §7.4 names staying
     * transactions, and {@code x} was one; seed 210441 of the differential). Transactions of the same session are left
     * to session order. Returns false, changing nothing, when it would add more than {@link #MAX_CONTRACTED_FACTS}.
     */
    public boolean contract(String x, String sessionBefore, List<String> sessionAfter) {
        final String past = "";
        List<String> in = new ArrayList<>(), out = new ArrayList<>();
        for (Carried e : carried) {
            if (e.dst().equals(x) && !e.src().equals(x)) in.add(e.src());
            if (e.src().equals(x) && !e.dst().equals(x)) out.add(e.dst());
        }
        if (after.contains(x)) in.add(past);
        if (before.contains(x)) out.add(past);
        boolean rt = rtBefore.contains(x);
        boolean touched = !in.isEmpty() || !out.isEmpty() || rt;
        if (sessionBefore != null) in.add(sessionBefore);
        out.addAll(sessionAfter);
        if (!touched) return true;
        if ((long) in.size() * out.size() > MAX_CONTRACTED_FACTS) return false;
        Set<String> seen = new HashSet<>();
        List<Carried> added = new ArrayList<>();
        Set<String> toBefore = new HashSet<>(), toAfter = new HashSet<>();
        for (String u : in)
            for (String v : out) {
                if (u.equals(v) || (u == sessionBefore && sessionAfter.contains(v))) continue;
                if (u.isEmpty() && v.isEmpty()) continue;
                if (u.isEmpty()) toAfter.add(v);
                else if (v.isEmpty()) toBefore.add(u);
                else if (seen.add(u + "\u0000" + v)) added.add(new Carried(u, v, org.cobraverify.checker.KnownGraph.PATH, null));
            }
        carried.removeIf(e -> e.src().equals(x) || e.dst().equals(x));
        carried.addAll(added);
        before.remove(x);
        after.remove(x);
        before.addAll(toBefore);
        after.addAll(toAfter);
        // what reached the real-time point through x still does: its ways in precede the point (the past, when x is an entry fence)
        if (rt) {
            rtBefore.remove(x);
            for (String u : in) if (u.isEmpty()) pastBeforeRt = true; else rtBefore.add(u);
        }
        return true;
    }

    /** Forgets everything (after a reject, or when the verifier drops its state); the real-time summary and epoch stay. */
    public void clear() {
        before = new HashSet<>();
        after = new HashSet<>();
        rtBefore = new HashSet<>();
        pastBeforeRt = true;
        carried = new ArrayList<>();
        exists = false;
    }

    /** Replaces this past by a copy of {@code o} (a snapshot's or a checkpoint's), sharing nothing mutable with it. */
    public void replaceWith(CollectedPast o) {
        restore(o.exists, o.before, o.after, o.maxEnd, o.maxStart, o.epoch, o.carried, o.frontier);
        restoreRealTime(o.rtBefore, o.pastBeforeRt);
    }

    /** A copy sharing nothing mutable with this one. */
    public CollectedPast copy() {
        CollectedPast c = new CollectedPast();
        c.restore(exists, before, after, maxEnd, maxStart, epoch, carried, frontier);
        c.restoreRealTime(rtBefore, pastBeforeRt);
        return c;
    }

    /** Replaces the whole state (from a snapshot or a checkpoint); the collections are copied. */
    public void restore(boolean exists, Set<String> before, Set<String> after, long maxEnd, long maxStart, long epoch,
                        List<Carried> carried, List<FrontierWrite> frontier) {
        this.exists = exists;
        this.before = new HashSet<>(before);
        this.after = new HashSet<>(after);
        this.maxEnd = maxEnd;
        this.maxStart = maxStart;
        this.epoch = epoch;
        this.carried = new ArrayList<>(carried);
        this.frontier = new ArrayList<>(frontier);
        this.rtBefore = new HashSet<>();
        this.pastBeforeRt = true;
    }

    /** Replaces the strict mode's real-time summary (after {@link #restore}, which resets it to what a checkpoint without one means). */
    public void restoreRealTime(Set<String> rtBefore, boolean pastBeforeRt) {
        this.rtBefore = new HashSet<>(rtBefore);
        this.pastBeforeRt = pastBeforeRt;
    }
}
