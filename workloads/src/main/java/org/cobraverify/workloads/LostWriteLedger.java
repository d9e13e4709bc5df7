package org.cobraverify.workloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link FaultyStore}'s lost writes did, as the store saw it: each write it dropped from a committed transaction, and
 * each lost update one of them made. A lost update is made when a later transaction commits a write of the key after
 * reading the very version the lost write's transaction had read there: both read one version and both overwrote it, so
 * every level from snapshot isolation up must reject the pair. The ground truth a demo holds its verdicts to.
 *
 * <p>Bound: a lost write is forgotten once its key is written again (no later lost update can name it) or once
 * {@link #MAX_OPEN} are open (the oldest first, counted in {@link #forgotten}); the lists of what happened keep at most
 * {@link #MAX_KEPT} entries each, counting the rest.
 */
public final class LostWriteLedger {
    /** Lost writes whose key was not written since, at most. */
    public static final int MAX_OPEN = 100_000;
    /** Entries kept per list, at most. */
    public static final int MAX_KEPT = 100_000;

    /** A write the store dropped: {@code base} is the version its transaction read of the key first (null: none, or the initial state). */
    public record LostWrite(String key, String value, String base, boolean read) {}

    /** A lost update: {@code lost}, and the later committed write {@code value} of the same key over the same base version. */
    public record LostUpdate(LostWrite lost, String value) {}

    private final Map<String, List<LostWrite>> openByKey = new HashMap<>();
    private final java.util.ArrayDeque<LostWrite> openOrder = new java.util.ArrayDeque<>();
    private final List<LostWrite> lost = new ArrayList<>();
    private final List<LostUpdate> updates = new ArrayList<>();
    private long lostCount, updateCount, forgotten;
    private int open;

    /**
     * A transaction committed: {@code dropped}, its writes the store lost, and {@code applied}, the ones it kept, each as
     * (key, value, the version the transaction read of the key before writing it, whether it read it).
     */
    synchronized void committed(List<LostWrite> dropped, List<LostWrite> applied) {
        for (LostWrite w : applied) {
            List<LostWrite> closed = openByKey.remove(w.key());
            if (closed == null) continue;
            open -= closed.size();
            for (LostWrite l : closed)
                if (w.read() && l.read() && java.util.Objects.equals(l.base(), w.base())) {
                    updateCount++;
                    if (updates.size() < MAX_KEPT) updates.add(new LostUpdate(l, w.value()));
                }
        }
        for (LostWrite w : dropped) {
            lostCount++;
            if (lost.size() < MAX_KEPT) lost.add(w);
            openByKey.computeIfAbsent(w.key(), k -> new ArrayList<>(1)).add(w);
            openOrder.add(w);
            open++;
        }
        // the oldest still open go first (the queue also holds ones closed since: skipped)
        while (open > MAX_OPEN) {
            LostWrite old = openOrder.poll();
            List<LostWrite> l = openByKey.get(old.key());
            if (l == null || !l.remove(old)) continue;
            if (l.isEmpty()) openByKey.remove(old.key());
            open--;
            forgotten++;
        }
        if (openOrder.size() > 2 * MAX_OPEN) openOrder.removeIf(w -> { List<LostWrite> l = openByKey.get(w.key()); return l == null || !l.contains(w); });
    }

    /** Writes lost from committed transactions (the first {@link #MAX_KEPT}). */
    public synchronized List<LostWrite> lost() { return List.copyOf(lost); }

    public synchronized long lostCount() { return lostCount; }

    /** Lost updates made (the first {@link #MAX_KEPT}). */
    public synchronized List<LostUpdate> updates() { return List.copyOf(updates); }

    public synchronized long updateCount() { return updateCount; }

    /** Lost writes forgotten while their key was still open ({@link #MAX_OPEN}): a lost update they made would not be counted. */
    public synchronized long forgotten() { return forgotten; }
}
