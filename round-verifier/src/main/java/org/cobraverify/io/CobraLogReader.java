package org.cobraverify.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
 * mapped to a value no write has, so the checker reports it. Unfinished transactions are dropped with
 * a note. Files are parsed in parallel into primitive arrays, then merged in session order.
 */
public final class CobraLogReader {
    static final long INIT_TXN = 0xbebeebeeL, NULL_TXN = 0xdeadbeefL;
    private static final Pattern LOG_NAME = Pattern.compile("T(\\d+)\\.log");

    private CobraLogReader() {}

    /** One session's log, parsed: transactions and their operations as parallel primitive arrays. */
    private static final class SessionLog {
        final String file;
        final int session;
        int txns, ops, dropped;
        long[] txnId = new long[64], txnStart = new long[64], txnEnd = new long[64], txnOffset = new long[64];
        int[] txnOps = new int[65];
        byte[] kind = new byte[256];
        long[] writer = new long[256], writeId = new long[256], key = new long[256];
        MalformedHistoryException error;

        SessionLog(String file, int session) { this.file = file; this.session = session; }

        void addOp(byte k, long w, long wid, long kk) {
            if (ops == kind.length) {
                int c = ops * 2;
                kind = Arrays.copyOf(kind, c); writer = Arrays.copyOf(writer, c); writeId = Arrays.copyOf(writeId, c); key = Arrays.copyOf(key, c);
            }
            kind[ops] = k; writer[ops] = w; writeId[ops] = wid; key[ops] = kk;
            ops++;
        }

        void commit(long id, long start, long end, long offset, int firstOp) {
            if (txns == txnId.length) {
                int c = txns * 2;
                txnId = Arrays.copyOf(txnId, c); txnStart = Arrays.copyOf(txnStart, c); txnEnd = Arrays.copyOf(txnEnd, c);
                txnOffset = Arrays.copyOf(txnOffset, c); txnOps = Arrays.copyOf(txnOps, c + 1);
            }
            txnId[txns] = id; txnStart[txns] = start; txnEnd[txns] = end; txnOffset[txns] = offset;
            txnOps[txns] = firstOp;
            txns++;
            txnOps[txns] = ops;
        }
    }

    public static History read(Path dir, boolean timestamps, List<String> notes) throws IOException, MalformedHistoryException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> LOG_NAME.matcher(p.getFileName().toString()).matches()).forEach(files::add);
        }
        if (files.isEmpty()) throw new MalformedHistoryException(dir.toString(), "", "no T<n>.log files in this directory");
        files.sort((a, b) -> Long.compare(clientNo(a), clientNo(b)));
        List<SessionLog> logs;
        long bytes = 0;
        for (Path f : files) bytes += Files.size(f);
        try {
            // small logs: one thread (starting the common pool costs more than it saves below a few MB)
            Stream<Path> each = bytes < (4 << 20) ? files.stream() : files.parallelStream();
            logs = each.map(f -> {
                try {
                    return parse(f, timestamps);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        int dropped = 0, total = 0;
        for (SessionLog l : logs) {
            if (l.error != null) throw l.error;
            dropped += l.dropped;
            total += l.txns;
        }
        if (dropped > 0) notes.add(dropped + " unfinished transaction(s) at the end of a log were dropped");

        // writeId -> id of the transaction that logged it, to check each read's claimed writer
        LongIntMap writerOf = new LongIntMap(total * 4);
        long[] ids = new long[total];
        int base = 0;
        for (SessionLog l : logs) {
            for (int t = 0; t < l.txns; t++) {
                ids[base + t] = l.txnId[t];
                for (int op = l.txnOps[t]; op < l.txnOps[t + 1]; op++) if (l.kind[op] == 'W') writerOf.put(l.writeId[op], base + t);
            }
            base += l.txns;
        }
        HistoryBuilder b = new HistoryBuilder();
        long mismatched = 0;
        for (SessionLog l : logs) {
            int session = b.session((long) l.session);
            for (int t = 0; t < l.txns; t++) {
                try {
                    b.begin(Long.toString(l.txnId[t]), session, History.COMMITTED, l.txnStart[t], l.txnEnd[t], -1);
                    for (int op = l.txnOps[t]; op < l.txnOps[t + 1]; op++) {
                        int key = b.key(l.key[op]);
                        if (l.kind[op] == 'W') {
                            b.write(key, b.value(l.writeId[op]));
                        } else if (l.writer[op] == INIT_TXN || l.writer[op] == NULL_TXN) {
                            b.read(key, History.NIL);
                        } else {
                            int w = writerOf.get(l.writeId[op]);
                            if (w != LongIntMap.MISSING && ids[w] != l.writer[op]) {
                                mismatched++;
                                b.read(key, b.value("write " + l.writeId[op] + " claimed by txn " + l.writer[op]));
                            } else {
                                b.read(key, b.value(l.writeId[op]));
                            }
                        }
                    }
                    b.end();
                } catch (IllegalArgumentException e) {
                    throw new MalformedHistoryException(l.file, "transaction " + l.txnId[t] + " at byte " + l.txnOffset[t], e.getMessage());
                }
            }
        }
        if (mismatched > 0) notes.add(mismatched + " read(s) name a writer transaction that did not log that write id");
        return b.build();
    }

    /** A cursor over big-endian bytes, as {@code DataOutputStream} wrote them. */
    private static final class Bytes {
        final byte[] b;
        int p;

        Bytes(byte[] b) { this.b = b; }

        int position() { return p; }

        int remaining() { return b.length - p; }

        byte get() { return b[p++]; }

        long getLong() {
            byte[] a = b;
            int i = p;
            p = i + 8;
            return ((long) a[i] << 56) | ((long) (a[i + 1] & 0xff) << 48) | ((long) (a[i + 2] & 0xff) << 40) | ((long) (a[i + 3] & 0xff) << 32)
                    | ((long) (a[i + 4] & 0xff) << 24) | ((a[i + 5] & 0xff) << 16) | ((a[i + 6] & 0xff) << 8) | (a[i + 7] & 0xff);
        }
    }

    private static long clientNo(Path p) {
        Matcher m = LOG_NAME.matcher(p.getFileName().toString());
        if (!m.matches() || m.group(1).length() > 9) return Long.MAX_VALUE;
        return Long.parseLong(m.group(1));
    }

    private static SessionLog parse(Path f, boolean timestamps) throws IOException {
        SessionLog log = new SessionLog(f.toString(), (int) clientNo(f));
        Bytes in = new Bytes(Files.readAllBytes(f));
        int limit = in.b.length;
        boolean open = false;
        long curId = 0, curStart = History.NO_TIME, curOffset = 0;
        int curFirstOp = 0;
        while (in.position() < limit) {
            int recStart = in.position();
            int tag = in.get() & 0xff;
            int need = switch (tag) {
                case 'S', 'C' -> timestamps ? 16 : 8;
                case 'W' -> 24;
                case 'R' -> 32;
                default -> -1;
            };
            if (need < 0) {
                log.error = new MalformedHistoryException(log.file, "byte " + recStart,
                        String.format("unknown record tag 0x%02x (expected 'S', 'C', 'W' or 'R'%s)", tag,
                                timestamps ? "" : "; if the log has timestamps, pass --cobra-timestamps"));
                return log;
            }
            if (in.remaining() < need) {
                log.error = new MalformedHistoryException(log.file, "byte " + recStart, "file ends inside a '" + (char) tag + "' record");
                return log;
            }
            switch (tag) {
                case 'S' -> {
                    long id = in.getLong();
                    long ts = timestamps ? in.getLong() : History.NO_TIME;
                    if (open) { log.dropped++; log.ops = curFirstOp; } // a start without commit: the earlier one never finished
                    open = true;
                    curId = id; curStart = ts; curOffset = recStart; curFirstOp = log.ops;
                }
                case 'C' -> {
                    long id = in.getLong();
                    long ts = timestamps ? in.getLong() : History.NO_TIME;
                    if (!open) { log.error = new MalformedHistoryException(log.file, "byte " + recStart, "commit of transaction " + id + " that was never started"); return log; }
                    if (curId != id) { log.error = new MalformedHistoryException(log.file, "byte " + recStart, "commit of transaction " + id + " but the open transaction is " + curId); return log; }
                    log.commit(id, curStart, ts, curOffset, curFirstOp);
                    open = false;
                }
                case 'W' -> {
                    long wid = in.getLong(), key = in.getLong();
                    in.getLong();
                    if (!open) { log.error = new MalformedHistoryException(log.file, "byte " + recStart, "write outside a transaction"); return log; }
                    log.addOp((byte) 'W', 0, wid, key);
                }
                default -> {
                    long wtx = in.getLong(), wid = in.getLong(), key = in.getLong();
                    in.getLong();
                    if (!open) { log.error = new MalformedHistoryException(log.file, "byte " + recStart, "read outside a transaction"); return log; }
                    log.addOp((byte) 'R', wtx, wid, key);
                }
            }
        }
        if (open) { log.dropped++; log.ops = curFirstOp; }
        return log;
    }
}
