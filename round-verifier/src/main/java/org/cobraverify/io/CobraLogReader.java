package org.cobraverify.io;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.history.LongIntMap;

/**
 * Reads a Cobra client-log directory: one {@code T<n>.log} per session, big-endian records
 * {@code 'S' txn}, {@code 'W' writeId key value}, {@code 'R' writerTxn writeId key value}, {@code 'C' txn}
 * (see {@code formats/imports.md}). A version is identified by its write id. A read naming a writer
 * transaction other than the one that logged the write id observes a value nobody wrote, and is
 * mapped to a value no write has, so the checker reports it. Unfinished transactions are dropped with a note.
 */
public final class CobraLogReader {
    static final long INIT_TXN = 0xbebeebeeL, NULL_TXN = 0xdeadbeefL;
    private static final Pattern LOG_NAME = Pattern.compile("T(\\d+)\\.log");

    private CobraLogReader() {}

    /** One parsed transaction: its ops as parallel long arrays. */
    private static final class RawTxn {
        long id, start = History.NO_TIME, end = History.NO_TIME;
        int session;
        long offset;
        String file;
        final List<long[]> ops = new ArrayList<>(8); // {kind, writerTxn, writeId, key}
    }

    public static History read(Path dir, boolean timestamps, List<String> notes) throws IOException, MalformedHistoryException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> LOG_NAME.matcher(p.getFileName().toString()).matches()).forEach(files::add);
        }
        if (files.isEmpty()) throw new MalformedHistoryException(dir.toString(), "", "no T<n>.log files in this directory");
        files.sort((a, b) -> Long.compare(clientNo(a), clientNo(b)));

        List<RawTxn> txns = new ArrayList<>();
        int dropped = 0;
        for (Path f : files) dropped += readFile(f, timestamps, txns);
        if (dropped > 0) notes.add(dropped + " unfinished transaction(s) at the end of a log were dropped");

        // writeId -> writer txn id, to check each read's claimed writer
        LongIntMap writerOf = new LongIntMap(txns.size() * 4);
        for (int i = 0; i < txns.size(); i++)
            for (long[] op : txns.get(i).ops)
                if (op[0] == 'W') writerOf.put(op[2], i);

        HistoryBuilder b = new HistoryBuilder();
        long mismatched = 0;
        for (int i = 0; i < txns.size(); i++) {
            RawTxn t = txns.get(i);
            try {
                b.begin(Long.toString(t.id), b.session((long) t.session), History.COMMITTED, t.start, t.end, -1);
                for (long[] op : t.ops) {
                    int key = b.key(op[3]);
                    if (op[0] == 'W') {
                        b.write(key, b.value(op[2]));
                    } else if (op[1] == INIT_TXN || op[1] == NULL_TXN) {
                        b.read(key, History.NIL);
                    } else {
                        int w = writerOf.get(op[2]);
                        if (w != LongIntMap.MISSING && txns.get(w).id != op[1]) {
                            mismatched++;
                            b.read(key, b.value("write " + op[2] + " claimed by txn " + op[1]));
                        } else {
                            b.read(key, b.value(op[2]));
                        }
                    }
                }
                b.end();
            } catch (IllegalArgumentException e) {
                throw new MalformedHistoryException(t.file, "transaction " + t.id + " at byte " + t.offset, e.getMessage());
            }
        }
        if (mismatched > 0) notes.add(mismatched + " read(s) name a writer transaction that did not log that write id");
        return b.build();
    }

    private static long clientNo(Path p) {
        Matcher m = LOG_NAME.matcher(p.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
    }

    private static int readFile(Path f, boolean timestamps, List<RawTxn> out) throws IOException, MalformedHistoryException {
        int session = (int) clientNo(f);
        String src = f.toString();
        byte[] data = Files.readAllBytes(f);
        int dropped = 0;
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data))) {
            RawTxn cur = null;
            long pos = 0;
            while (pos < data.length) {
                long recStart = pos;
                int tag = in.readUnsignedByte();
                pos++;
                try {
                    switch (tag) {
                        case 'S' -> {
                            long id = in.readLong(); pos += 8;
                            if (cur != null) dropped++; // a start without commit: the earlier one never finished
                            cur = new RawTxn();
                            cur.id = id; cur.session = session; cur.offset = recStart; cur.file = src;
                            if (timestamps) { cur.start = in.readLong(); pos += 8; }
                        }
                        case 'C' -> {
                            long id = in.readLong(); pos += 8;
                            long ts = History.NO_TIME;
                            if (timestamps) { ts = in.readLong(); pos += 8; }
                            if (cur == null) throw new MalformedHistoryException(src, "byte " + recStart, "commit of transaction " + id + " that was never started");
                            if (cur.id != id) throw new MalformedHistoryException(src, "byte " + recStart, "commit of transaction " + id + " but the open transaction is " + cur.id);
                            cur.end = ts;
                            out.add(cur);
                            cur = null;
                        }
                        case 'W' -> {
                            long wid = in.readLong(), key = in.readLong();
                            in.readLong(); pos += 24;
                            if (cur == null) throw new MalformedHistoryException(src, "byte " + recStart, "write outside a transaction");
                            cur.ops.add(new long[] {'W', 0, wid, key});
                        }
                        case 'R' -> {
                            long wtx = in.readLong(), wid = in.readLong(), key = in.readLong();
                            in.readLong(); pos += 32;
                            if (cur == null) throw new MalformedHistoryException(src, "byte " + recStart, "read outside a transaction");
                            cur.ops.add(new long[] {'R', wtx, wid, key});
                        }
                        default -> throw new MalformedHistoryException(src, "byte " + recStart,
                                String.format("unknown record tag 0x%02x (expected 'S', 'C', 'W' or 'R'%s)", tag,
                                        timestamps ? "" : "; if the log has timestamps, pass --cobra-timestamps"));
                    }
                } catch (EOFException e) {
                    throw new MalformedHistoryException(src, "byte " + recStart, "file ends inside a '" + (char) tag + "' record");
                }
            }
            if (cur != null) dropped++;
        }
        return dropped;
    }
}
