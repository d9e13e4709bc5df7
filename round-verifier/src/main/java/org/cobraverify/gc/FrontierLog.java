package org.cobraverify.gc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A key's frontier log ({@link CollectedWrites#frontierLog}): appending with its bound, reading the latest visible
 * entry, and a byte encoding for stores on disk. Pure functions.
 *
 * <p>Invariant of every log this class returns: oldest first, each entry appended after the one before it (by the
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
        if (floor <= 0 && dropped < 0) return out;
        List<CollectedWrites.FrontierEntry> kept = new ArrayList<>(out.size() - Math.max(0, floor) + 1);
        for (int i = 0; i < floor; i++) dropped = Math.max(dropped, out.get(i).round());
        kept.add(new CollectedWrites.FrontierEntry(null, null, dropped, MARKER));
        kept.addAll(out.subList(Math.max(0, floor), out.size()));
        return kept;
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

    /** Length-prefixed UTF-8 (values and ids may hold any character). */
    public static byte[] encode(List<CollectedWrites.FrontierEntry> log) {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream(); DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(log.size());
            for (CollectedWrites.FrontierEntry e : log) {
                writeString(out, e.value());
                writeString(out, e.writer());
                out.writeLong(e.round());
                out.writeLong(e.incarnation());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<CollectedWrites.FrontierEntry> decode(byte[] bytes) {
        List<CollectedWrites.FrontierEntry> log = new ArrayList<>();
        if (bytes == null) return log;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) log.add(new CollectedWrites.FrontierEntry(readString(in), readString(in), in.readLong(), in.readLong()));
            return log;
        } catch (IOException e) {
            throw new IllegalStateException("a frontier log in the collected-writes store is corrupt: " + e.getMessage(), e);
        }
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) { out.writeInt(-1); return; }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) return null;
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
