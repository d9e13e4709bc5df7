package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.CollectionPlanner;
import org.cobraverify.gc.FrontierLog;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;

/**
 * A round's view of the frontier records (docs/DESIGN.md §7.9): for each key the round's history reads (with no held
 * writer) whose latest write was collected as data, one synthetic committed transaction that writes that value, alone
 * in its session, in the barrier's {@code before} set (its writer was old, so it precedes the past), with an edge to
 * each writer of the key that is known to follow it ({@link #edges}). Reads of the value read from it; a read of the
 * key's initial value meets it as it would have met the writer.
 *
 * <p>Invariant: a key has a synthetic writer iff the latest entry of its log that this verifier may see names a value,
 * whose writer is not held and which no held transaction wrote (a held one would be the writer itself: never two
 * writers of one value). Built fresh each round; never retained, never checkpointed (the log is on disk).
 */
final class PastFrontier {
    static final PastFrontier NONE = new PastFrontier(Map.of(), Map.of(), null);

    /** The latest visible entry of each touched key's log that has one. */
    private final Map<String, CollectedWrites.FrontierEntry> latest;
    /** The keys with a synthetic writer, and its value. */
    private final Map<String, CollectedWrites.FrontierEntry> current;
    private final String unknowable;
    private final List<String> keys = new ArrayList<>();
    private int[] writers = new int[0];

    private PastFrontier(Map<String, CollectedWrites.FrontierEntry> latest, Map<String, CollectedWrites.FrontierEntry> current, String unknowable) {
        this.latest = latest;
        this.current = current;
        this.unknowable = unknowable;
    }

    /**
     * Looks up the log of every key {@code order}'s transactions read with no held writer, or read the initial value
     * of (one lookup per distinct key): only a read needs the synthetic writer (writers of the key are ordered after it
     * by {@link #edges}). {@code whole}: transactions whose every read of a value has a held writer (the verifier's
     * invariant for retained transactions not partly read): only their reads of initial values are looked at.
     */
    static PastFrontier of(List<Transaction> order, CollectedWrites store, HeldTransactions held, Predicate<CollectedWrites.FrontierEntry> visible,
                           Predicate<Transaction> whole) {
        Map<String, CollectedWrites.FrontierEntry> latest = new HashMap<>(), current = new HashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        String unknowable = null;
        for (Transaction t : order) {
            boolean resolves = whole.test(t); // every read of a value has its writer held: only reads of the initial value matter
            for (TxnOp o : t.getOps()) {
                if (o.getWrite()) continue;
                if (o.getValue() != null && (resolves || held.writers.contains(o.getKey(), o.getValue()))) continue;
                String key = o.getKey();
                if (!seen.add(key)) continue;
                CollectedWrites.FrontierEntry e = FrontierLog.latest(store.frontierLog(key), visible);
                if (e == null) continue;
                if (e == FrontierLog.UNKNOWABLE) {
                    if (unknowable == null) unknowable = "the latest write of " + key + " was collected, but its frontier log holds no entry this"
                            + " incarnation may see (a restart from a checkpoint older than the entries kept): reads of it cannot be judged";
                    continue;
                }
                latest.put(key, e);
                if (e.value() != null && !held.byId.containsKey(e.writer()) && !held.writers.contains(key, e.value())
                    && !held.byId.containsKey(id(e.writer(), key))) current.put(key, e);
            }
        }
        return new PastFrontier(latest, current, unknowable);
    }

    /**
     * The edges from each synthetic writer to the writers of its key in the round's history ({@code order}), as facts
     * carried into the round: every such writer follows the collected one. One present when it was collected was reached
     * from an entry fence of that collection's past (FrontierAsData, condition 3); one that arrived later followed the
     * past it arrived after (A3). Not to a writer whose A3 is still to be checked: one {@code admitted} this round, or one
     * outside the checked history until now ({@code unincluded}; the barrier orders them, if they follow it); and none at all
     * when a proof was lost (a transaction that did not follow the past may be among them: the edge would be a guess).
     */
    List<CollectedPast.Carried> edges(List<Transaction> order, List<Transaction> admitted, java.util.Set<String> unincluded, boolean proofLost) {
        if (writers.length == 0 || proofLost) return List.of();
        java.util.Set<String> unchecked = new java.util.HashSet<>(unincluded);
        for (Transaction t : admitted) unchecked.add(t.getId());
        Map<String, String> synthetic = new HashMap<>();
        for (String key : keys) synthetic.put(key, id(current.get(key).writer(), key));
        List<CollectedPast.Carried> out = new ArrayList<>();
        for (Transaction t : order) {
            if (unchecked.contains(t.getId())) continue;
            for (TxnOp o : t.getOps()) {
                if (!o.getWrite()) continue;
                String p = synthetic.get(o.getKey());
                if (p != null) out.add(new CollectedPast.Carried(p, t.getId(), org.cobraverify.checker.KnownGraph.PATH, o.getKey()));
            }
        }
        return out;
    }

    /** Why some touched key's frontier cannot be known, or null. */
    String unknowable() { return unknowable; }

    /** Whether {@code value} is the frontier record of {@code key}, written by a synthetic writer this round. */
    boolean isCurrent(String key, String value) {
        if (current.isEmpty() || value == null) return false;
        CollectedWrites.FrontierEntry e = current.get(key);
        return e != null && e.value().equals(value);
    }

    /** The synthetic writers' id: the collected writer's, marked (a certificate shows it). */
    static String id(String writer, String key) { return writer + " [collected; its write of " + key + "]"; }

    /** Appends the synthetic writers to {@code b} (after the round's transactions) and to {@code index}. */
    void addWriters(HistoryBuilder b, Map<String, Integer> index) {
        if (current.isEmpty()) return;
        List<Integer> at = new ArrayList<>();
        for (Map.Entry<String, CollectedWrites.FrontierEntry> e : current.entrySet()) {
            String id = id(e.getValue().writer(), e.getKey());
            index.put(id, b.size());
            at.add(b.size());
            keys.add(e.getKey());
            b.begin(id, b.session("\0frontier\0" + e.getKey()), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            b.write(b.key(e.getKey()), b.value(e.getValue().value()));
            b.end();
        }
        writers = at.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The synthetic writers' indexes in the round's history. */
    int[] writers() { return writers; }

    /** {@code planOld} extended to the synthetic writers, which are old. */
    boolean[] old(boolean[] planOld, int size) {
        boolean[] out = java.util.Arrays.copyOf(planOld, size);
        for (int w : writers) out[w] = true;
        return out;
    }

    /** The plan's pins extended to the synthetic writers: pinned when a transaction that may still join reads their value. */
    boolean[] pinned(CollectionPlanner.Plan plan, History h) {
        boolean[] out = java.util.Arrays.copyOf(plan.pinned(), h.size());
        for (int i = 0; i < writers.length; i++) {
            String key = keys.get(i);
            out[writers[i]] = plan.pastRead(key, current.get(key).value());
        }
        return out;
    }

    /**
     * This round's reads of collected writes to judge after the check: a read of a frontier record that is current was
     * checked in the graph (dropped); one whose record a later write superseded is a stale read like any other, superseded
     * by the writer the log names last.
     */
    List<StaleReads.StaleRead> judgeable(List<StaleReads.StaleRead> reads) {
        if (reads.isEmpty()) return reads;
        List<StaleReads.StaleRead> out = new ArrayList<>(reads.size());
        for (StaleReads.StaleRead s : reads) {
            CollectedWrites.Entry e = s.entry();
            if (e.fate() != CollectedWrites.Fate.FRONTIER) { out.add(s); continue; }
            if (isCurrent(s.op().getKey(), s.op().getValue())) continue;
            CollectedWrites.FrontierEntry last = latest.get(s.op().getKey());
            if (last == null || last.writer() == null || s.op().getValue().equals(last.value())) { out.add(s); continue; } // cannot be judged
            out.add(new StaleReads.StaleRead(s.reader(), s.op(),
                    new CollectedWrites.Entry(e.writer(), last.writer(), CollectedWrites.Fate.SUPERSEDED, e.round(), e.incarnation())));
        }
        return out;
    }
}
