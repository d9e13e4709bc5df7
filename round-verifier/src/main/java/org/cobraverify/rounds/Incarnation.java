package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.gc.CollectedWrites;

/**
 * The collected-write store as one incarnation of a verifier may see it (docs/DESIGN.md §8.3): a verifier that restarted
 * from a checkpoint decides again the rounds after it, so what an earlier incarnation collected after that checkpoint is
 * not yet its own and is ignored until its own collection redoes it; writes set aside since the last collection
 * ({@link HeldTransactions#setAsideWrite}) are answered first, as the store will hold them. Also which checkpoints a
 * restart may resume from, so that the store keeps what they need.
 *
 * <p>Invariant: {@code olderCheckpoint <= newerCheckpoint} (both -1 before the first); an entry of this incarnation is
 * always visible.
 */
final class Incarnation {
    private final CollectedWrites collected;
    private final HeldTransactions held;
    /** How many times the verifier restarted: collected writes carry it. */
    private long number;
    /** After a restart from a checkpoint: the checkpoint's round. Collected writes of an earlier incarnation after it are ignored. */
    private long visibleThrough = Long.MAX_VALUE;
    /** The rounds of the last two checkpoints taken or resumed from (older, newer; -1: none): a restart resumes from one of them. */
    private long olderCheckpoint = -1, newerCheckpoint = -1;

    Incarnation(CollectedWrites collected, HeldTransactions held) {
        this.collected = collected;
        this.held = held;
    }

    long number() { return number; }

    /** The incarnation that collected writes are stamped with; {@code fresh}: nothing was resumed, so nothing earlier is its own. */
    void start(long n, boolean fresh) {
        number = n;
        if (n > 0 && fresh) visibleThrough = -1;
    }

    /** Resumes incarnation {@code n} from the checkpoint of round {@code round}. */
    void resume(long n, long round) {
        number = n;
        visibleThrough = round;
        newerCheckpoint = round;
    }

    /** The round of the checkpoint resumed from ({@link Long#MAX_VALUE}: none). */
    long visibleThrough() { return visibleThrough; }

    /** A checkpoint of round {@code round} was taken. */
    void checkpointTaken(long round) {
        olderCheckpoint = newerCheckpoint;
        newerCheckpoint = round;
        assert olderCheckpoint <= newerCheckpoint;
    }

    /** The round of the oldest checkpoint a restart may resume from; without one, {@code roundNo} (no restart can need older entries). */
    long keepFrom(long roundNo) { return newerCheckpoint < 0 ? roundNo : olderCheckpoint < 0 ? newerCheckpoint : olderCheckpoint; }

    /**
     * A collected write, unless an earlier incarnation collected it after the checkpoint this one resumed
     * from (that round is being decided again; its collection will be redone if it still holds).
     */
    CollectedWrites.Entry entry(String key, String value) {
        CollectedWrites.Entry aside = held.setAsideWrite(key, value);
        if (aside != null) return aside;
        return visibleEntry(collected.get(key, value));
    }

    /** {@link #entry} of each pair ({@code keys[i]}, {@code values[i]}), the store's lookups batched. */
    CollectedWrites.Entry[] entries(List<String> keys, List<String> values) {
        CollectedWrites.Entry[] out = new CollectedWrites.Entry[keys.size()];
        List<String> k = new ArrayList<>(), v = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            out[i] = held.setAsideWrite(keys.get(i), values.get(i));
            if (out[i] == null) { k.add(keys.get(i)); v.add(values.get(i)); at.add(i); }
        }
        CollectedWrites.Entry[] stored = k.isEmpty() ? new CollectedWrites.Entry[0] : collected.getAll(k, v);
        for (int j = 0; j < stored.length; j++) out[at.get(j)] = visibleEntry(stored[j]);
        return out;
    }

    /** A stored collected write as this incarnation may see it (null when {@link #entry} would ignore it). */
    private CollectedWrites.Entry visibleEntry(CollectedWrites.Entry e) {
        return e != null && e.incarnation() != number && e.round() > visibleThrough ? null : e;
    }

    /** Whether this incarnation may see a frontier log entry (not one an earlier incarnation wrote after the checkpoint it resumed from). */
    boolean visible(CollectedWrites.FrontierEntry e) { return e.incarnation() == number || e.round() <= visibleThrough; }
}
