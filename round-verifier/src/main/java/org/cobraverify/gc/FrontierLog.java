package org.cobraverify.gc;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A key's frontier log ({@link CollectedWrites#frontierLog}): appending with its bound, reading the latest visible
 * entry, and a byte encoding for stores on disk. Pure functions.
 *
 * <p>Invariant of every log this class returns: unmodifiable (a store caches them: a log of one or two entries is
 * then one list object, not a list and its array), oldest first, each entry appended after the one before it (by the
 * collection that superseded it), at most one of them of the round {@code keepFrom} given to {@link #append} or
 * earlier, and at most one marker, at the head.
 */
public final class FrontierLog {
    private FrontierLog() {}

    /**
     * {@code log} with {@code e} appended, without the entries {@code visible} rejects, and without the entries no restart
     * can need: a verifier resumes from one of its last two checkpoints, so of the entries of round {@code keepFrom} (the
     * older of those) or earlier only the latest is kept. When entries go, a marker takes their place at the head (its
     * round the latest dropped one's), so that a reader who may see none of the entries kept knows that the key had a
     * frontier all the same ({@link #UNKNOWABLE}). Bound: one entry per collection of the key since round {@code keepFrom},
     * plus two.
     */
    public static List<CollectedWrites.FrontierEntry> append(List<CollectedWrites.FrontierEntry> log, CollectedWrites.FrontierEntry e,
                                                          Predicate<CollectedWrites.FrontierEntry> visible, long keepFrom) {
        long dropped = -1;
        List<CollectedWrites.FrontierEntry> out = new ArrayList<>(log.size() + 1);
        for (CollectedWrites.FrontierEntry x : log) {
            if (isMarker(x)) dropped = x.round();
            else if (visible.test(x)) out.add(x);
        }
        out.add(e);
        int floor = -1; // the latest entry of round keepFrom or earlier
        for (int i = 0; i < out.size(); i++) if (out.get(i).round() <= keepFrom) floor = i;
        if (floor <= 0 && dropped < 0) return List.copyOf(out);
        List<CollectedWrites.FrontierEntry> kept = new ArrayList<>(out.size() - Math.max(0, floor) + 1);
        for (int i = 0; i < floor; i++) dropped = Math.max(dropped, out.get(i).round());
        kept.add(new CollectedWrites.FrontierEntry(null, null, dropped, MARKER));
        kept.addAll(out.subList(Math.max(0, floor), out.size()));
        return List.copyOf(kept);
    }

    /**
     * The entries of {@code before} that name a value and are not in {@code after} (what an {@link #append} or an import
     * dropped): a store puts each as its write's {@link #asEntry}, so that a later read of the value finds its writer
     * though the log no longer names it.
     */
    public static List<CollectedWrites.FrontierEntry> droppedWrites(List<CollectedWrites.FrontierEntry> before, List<CollectedWrites.FrontierEntry> after) {
        List<CollectedWrites.FrontierEntry> out = null;
        for (CollectedWrites.FrontierEntry x : before) {
            if (x.value() == null || x.writer() == null || isMarker(x) || after.contains(x)) continue;
            if (out == null) out = new ArrayList<>(2);
            out.add(x);
        }
        return out == null ? List.of() : out;
    }

    /** The entry of {@code log} that names {@code value} as written (by a collected transaction), or null. */
    public static CollectedWrites.FrontierEntry naming(List<CollectedWrites.FrontierEntry> log, String value) {
        for (int i = log.size() - 1; i >= 0; i--) {
            CollectedWrites.FrontierEntry e = log.get(i);
            if (e.writer() != null && e.value() != null && !isMarker(e) && e.value().equals(value)) return e;
        }
        return null;
    }

    /** The collected write a log entry naming a value stands for: its writer's, of fate {@code FRONTIER}, with its round and incarnation. */
    public static CollectedWrites.Entry asEntry(CollectedWrites.FrontierEntry e) {
        return new CollectedWrites.Entry(e.writer(), null, CollectedWrites.Fate.FRONTIER, e.round(), e.incarnation());
    }

    private static final long MARKER = -1;

    private static boolean isMarker(CollectedWrites.FrontierEntry e) { return e.incarnation() == MARKER; }

    /**
     * What a verifier may use of a log: the latest entry {@code visible} accepts; null when the key never had a frontier
     * record; {@link #UNKNOWABLE} when it had one but no entry kept is visible (a restart from a checkpoint older than
     * every entry kept): the key's frontier cannot be known.
     */
    public static CollectedWrites.FrontierEntry latest(List<CollectedWrites.FrontierEntry> log, Predicate<CollectedWrites.FrontierEntry> visible) {
        for (int i = log.size() - 1; i >= 0; i--) {
            CollectedWrites.FrontierEntry e = log.get(i);
            if (isMarker(e)) return UNKNOWABLE;
            if (visible.test(e)) return e;
        }
        return null;
    }

    /**
     * What of {@code log} a verifier publishes for others (a replay, a verifier on another host): the entries of its own
     * timeline ({@code visible}) and the marker, never an abandoned incarnation's entries after the checkpoint it resumed
     * from (another reader could not tell them apart).
     */
    public static List<CollectedWrites.FrontierEntry> publishable(List<CollectedWrites.FrontierEntry> log, Predicate<CollectedWrites.FrontierEntry> visible) {
        List<CollectedWrites.FrontierEntry> out = new java.util.ArrayList<>(log.size());
        for (CollectedWrites.FrontierEntry e : log) if (isMarker(e) || visible.test(e)) out.add(e);
        return out;
    }

    /** {@link #latest}'s answer for a key whose log holds no entry this verifier may see. */
    public static final CollectedWrites.FrontierEntry UNKNOWABLE = new CollectedWrites.FrontierEntry(null, null, -1, -2);

    /**
     * Length-prefixed UTF-8 (values and ids may hold any character), big-endian: the entry count, then per entry its
     * value and writer (each a length, -1 for none, and its bytes), round and incarnation. Written into one array of the
     * exact size (a log is rewritten at every append: a stream and its copies were 10% of a TPC-C run's allocation).
     */
    public static byte[] encode(List<CollectedWrites.FrontierEntry> log) {
        byte[][] strings = new byte[2 * log.size()][];
        int size = 4;
        for (int i = 0; i < log.size(); i++) {
            CollectedWrites.FrontierEntry e = log.get(i);
            strings[2 * i] = e.value() == null ? null : e.value().getBytes(StandardCharsets.UTF_8);
            strings[2 * i + 1] = e.writer() == null ? null : e.writer().getBytes(StandardCharsets.UTF_8);
            size += 4 + (strings[2 * i] == null ? 0 : strings[2 * i].length) + 4 + (strings[2 * i + 1] == null ? 0 : strings[2 * i + 1].length) + 16;
        }
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(size); // big-endian, as DataInputStream reads it
        out.putInt(log.size());
        for (int i = 0; i < log.size(); i++) {
            for (int j = 2 * i; j <= 2 * i + 1; j++) {
                if (strings[j] == null) out.putInt(-1);
                else out.putInt(strings[j].length).put(strings[j]);
            }
            out.putLong(log.get(i).round()).putLong(log.get(i).incarnation());
        }
        return out.array();
    }

    public static List<CollectedWrites.FrontierEntry> decode(byte[] bytes) {
        if (bytes == null) return List.of();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            // (an entry takes at least 24 bytes: two lengths, a round and an incarnation)
            if (n < 0 || n > bytes.length / 24) throw new IOException("an entry count of " + n + " in " + bytes.length + " bytes");
            CollectedWrites.FrontierEntry[] log = new CollectedWrites.FrontierEntry[n];
            for (int i = 0; i < n; i++) log[i] = new CollectedWrites.FrontierEntry(readString(in), readString(in), in.readLong(), in.readLong());
            return List.of(log);
        } catch (IOException e) {
            throw new IllegalStateException("a frontier log in the collected-writes store is corrupt: " + e.getMessage(), e);
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) return null;
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
