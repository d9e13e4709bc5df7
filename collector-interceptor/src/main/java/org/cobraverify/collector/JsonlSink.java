package org.cobraverify.collector;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.protocol.WireNames;
import java.util.zip.GZIPOutputStream;

/**
 * Writes {@code cobra-jsonl} (one transaction per line, after a header; gzip if the name ends in .gz).
 * Each application thread buffers its lines and hands them to the file in batches, so the transactions
 * of a session (which stays on one thread, as {@link Session} requires) stay in order; {@link #close},
 * called once the threads are done, writes whatever is still buffered.
 */
public final class JsonlSink implements HistorySink {
    private static final int FLUSH_AT = 1 << 14;
    private final Writer out;
    private long bytes;
    private volatile boolean closed;
    // each application thread buffers its own lines (so its session order is kept) and hands them over in
    // batches: one lock acquisition per 16 KB instead of one per transaction
    private final List<StringBuilder> buffers = new ArrayList<>();
    private final ThreadLocal<StringBuilder> local = ThreadLocal.withInitial(() -> {
        StringBuilder sb = new StringBuilder(FLUSH_AT + 1024);
        synchronized (buffers) { buffers.add(sb); }
        return sb;
    });

    public JsonlSink(Path file) throws IOException {
        var stream = Files.newOutputStream(file);
        out = new BufferedWriter(new OutputStreamWriter(file.toString().endsWith(".gz") ? new GZIPOutputStream(stream, 1 << 16) : stream,
                StandardCharsets.UTF_8), 1 << 16);
        out.write("{\"format\":\"cobra-jsonl\",\"version\":1}\n");
    }

    /** One transaction as a cobra-jsonl line (without the newline): keys, values and session strings, as an application names them. */
    public static String line(TxnRecord t) { return line(t, false); }

    /**
     * As {@link #line(TxnRecord)}, for a transaction whose keys, values and session are the wire's texts ({@link WireNames}):
     * each written as the name it stands for, an integer bare, a string quoted.
     */
    public static String lineOfWireNames(TxnRecord t) { return line(t, true); }

    private static String line(TxnRecord t, boolean wire) {
        StringBuilder sb = new StringBuilder(64 + 32 * t.ops().size());
        sb.append("{\"id\":");
        str(sb, t.id());
        sb.append(",\"session\":");
        name(sb, t.session(), wire);
        sb.append(",\"status\":\"").append(t.status() == TxnRecord.Status.COMMITTED ? "committed" : t.status() == TxnRecord.Status.ABORTED ? "aborted" : "unknown");
        sb.append("\",\"start\":").append(t.start()).append(",\"end\":").append(t.end()).append(",\"ops\":[");
        List<TxnRecord.Op> ops = t.ops();
        for (int i = 0; i < ops.size(); i++) {
            TxnRecord.Op op = ops.get(i);
            sb.append(i == 0 ? "[\"" : ",[\"").append(op.write() ? 'w' : 'r').append("\",");
            name(sb, op.key(), wire);
            sb.append(',');
            if (op.value() == null) sb.append("null"); else name(sb, op.value(), wire);
            sb.append(']');
        }
        return sb.append("]}").toString();
    }

    /** A name: a JSON string, or (a wire text, {@code wire}) the integer or string it stands for. */
    private static void name(StringBuilder sb, String s, boolean wire) {
        if (!wire) str(sb, s);
        else if (WireNames.isInteger(s)) sb.append(s);
        else str(sb, (String) WireNames.name(s));
    }

    /** A JSON string literal, escaped. */
    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c)); else sb.append(c);
                }
            }
        }
        sb.append('"');
    }

    @Override
    public void record(TxnRecord txn) throws IOException {
        if (closed) throw new IOException("the history sink is closed");
        StringBuilder buf = local.get();
        buf.append(line(txn)).append('\n');
        if (buf.length() >= FLUSH_AT) flush(buf);
    }

    /** Moves one thread's buffered lines to the file, in order. */
    private void flush(StringBuilder buf) throws IOException {
        synchronized (this) {
            out.append(buf);
            bytes += buf.length();
        }
        buf.setLength(0);
    }

    public synchronized long bytesWritten() { return bytes; }

    /** Requires: no thread is recording any more. Writes every buffered line, then closes the file. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        synchronized (buffers) {
            for (StringBuilder b : buffers) if (b.length() > 0) flush(b);
        }
        synchronized (this) { out.close(); }
    }
}
