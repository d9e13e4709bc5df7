package org.cobraverify.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.BufferUnderflowException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * Reads dbcop's {@code history.bincode} (Rust bincode, little-endian): a header, then sessions of
 * transactions of events {@code (write, key, value, success)} and a transaction success flag.
 * Every key's initial value is 0: a read of 0 reads the initial state. Events that did not succeed
 * are skipped; unsuccessful transactions are aborted.
 */
public final class DbcopReader {
    private static final long SANITY = 1L << 28;

    private DbcopReader() {}

    public static History read(Path path, List<String> notes) throws IOException, MalformedHistoryException {
        String src = path.toString();
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
        HistoryBuilder b = new HistoryBuilder();
        int skippedEvents = 0;
        long pos = 0;
        try {
            for (int i = 0; i < 5; i++) buf.getLong(); // id, n_nodes, n_vars, n_txns, n_events
            for (int i = 0; i < 3; i++) { pos = buf.position(); str(buf, src); } // info, start, end
            pos = buf.position();
            long sessions = count(buf, src, "session count");
            for (int s = 0; s < sessions; s++) {
                pos = buf.position();
                long txns = count(buf, src, "transaction count");
                for (int t = 0; t < txns; t++) {
                    pos = buf.position();
                    long events = count(buf, src, "event count");
                    int[] kind = new int[(int) events];
                    long[] key = new long[(int) events], val = new long[(int) events];
                    boolean[] ok = new boolean[(int) events];
                    for (int e = 0; e < events; e++) {
                        kind[e] = bool(buf, src, "write flag");
                        key[e] = buf.getLong();
                        val[e] = buf.getLong();
                        ok[e] = bool(buf, src, "event success flag") == 1;
                    }
                    boolean committed = bool(buf, src, "transaction success flag") == 1;
                    b.begin("s" + s + "t" + t, b.session((long) s), committed ? History.COMMITTED : History.ABORTED,
                            History.NO_TIME, History.NO_TIME, -1);
                    for (int e = 0; e < events; e++) {
                        if (!ok[e]) { skippedEvents++; continue; }
                        int k = b.key(key[e]);
                        try {
                            if (kind[e] == 1) b.write(k, b.value(val[e]));
                            else b.read(k, val[e] == 0 ? History.NIL : b.value(val[e]));
                        } catch (IllegalArgumentException ex) {
                            throw new MalformedHistoryException(src, "session " + s + ", transaction " + t + " (byte " + pos + ")", ex.getMessage());
                        }
                    }
                    b.end();
                }
            }
        } catch (BufferUnderflowException e) {
            throw new MalformedHistoryException(src, "byte " + pos, "file ends in the middle of a record");
        }
        if (buf.hasRemaining())
            throw new MalformedHistoryException(src, "byte " + buf.position(), buf.remaining() + " unexpected trailing byte(s)");
        if (skippedEvents > 0) notes.add(skippedEvents + " event(s) that did not succeed were skipped");
        return b.build();
    }

    private static long count(ByteBuffer buf, String src, String what) throws MalformedHistoryException {
        int at = buf.position();
        long n = buf.getLong();
        if (n < 0 || n > SANITY || n > buf.remaining())
            throw new MalformedHistoryException(src, "byte " + at, "implausible " + what + " " + Long.toUnsignedString(n) + ": not a dbcop history?");
        return n;
    }

    private static int bool(ByteBuffer buf, String src, String what) throws MalformedHistoryException {
        int at = buf.position();
        int v = buf.get();
        if (v != 0 && v != 1) throw new MalformedHistoryException(src, "byte " + at, what + " is " + v + ", expected 0 or 1");
        return v;
    }

    private static void str(ByteBuffer buf, String src) throws MalformedHistoryException {
        long n = count(buf, src, "string length");
        buf.position(buf.position() + (int) n);
    }
}
