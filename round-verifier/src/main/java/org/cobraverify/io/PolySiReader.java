package org.cobraverify.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * Reads PolySI's text format: one {@code r(key,value,session,txn)} or {@code w(key,value,session,txn)}
 * per line, a transaction's lines consecutive. A read of value 0 reads the initial state, unless some
 * transaction wrote 0 to that key (an explicit initial transaction), in which case it reads that write.
 */
public final class PolySiReader {
    private static final Pattern LINE = Pattern.compile("\\s*([rw])\\(\\s*(-?\\d+)\\s*,\\s*(-?\\d+)\\s*,\\s*(-?\\d+)\\s*,\\s*(-?\\d+)\\s*\\)\\s*");

    private PolySiReader() {}

    public static History read(Path path) throws IOException, MalformedHistoryException {
        String src = path.toString();
        List<long[]> ops = new ArrayList<>(); // {isWrite, key, value, session, txn, line}
        Set<Long> zeroWritten = new HashSet<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(HistoryFormat.open(path), StandardCharsets.UTF_8))) {
            String line;
            int lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) continue;
                Matcher m = LINE.matcher(line);
                if (!m.matches()) throw new MalformedHistoryException(src, "line " + lineNo,
                        "expected r(key,value,session,txn) or w(key,value,session,txn), found '" + abbreviate(line) + "'");
                long w = m.group(1).equals("w") ? 1 : 0;
                long key, val, session, txn;
                try {
                    key = Long.parseLong(m.group(2));
                    val = Long.parseLong(m.group(3));
                    session = Long.parseLong(m.group(4));
                    txn = Long.parseLong(m.group(5));
                } catch (NumberFormatException e) {
                    throw new MalformedHistoryException(src, "line " + lineNo, "a number does not fit in 64 bits: '" + abbreviate(line) + "'");
                }
                ops.add(new long[] {w, key, val, session, txn, lineNo});
                if (w == 1 && val == 0) zeroWritten.add(key);
            }
        }
        HistoryBuilder b = new HistoryBuilder();
        long curSession = Long.MIN_VALUE, curTxn = Long.MIN_VALUE;
        Set<Long> seenTxns = new HashSet<>();
        boolean open = false;
        for (long[] op : ops) {
            int lineNo = (int) op[5];
            try {
                if (!open || op[3] != curSession || op[4] != curTxn) {
                    if (open) b.end();
                    curSession = op[3];
                    curTxn = op[4];
                    if (!seenTxns.add(curTxn * 1_000_003L + curSession))
                        throw new IllegalArgumentException("transaction " + curTxn + " of session " + curSession + " continues after other lines: a transaction's lines must be consecutive");
                    b.begin("s" + curSession + "t" + curTxn, b.session(curSession), History.COMMITTED, History.NO_TIME, History.NO_TIME, lineNo);
                    open = true;
                }
                int k = b.key(op[1]);
                if (op[0] == 1) b.write(k, b.value(op[2]));
                else b.read(k, op[2] == 0 && !zeroWritten.contains(op[1]) ? History.NIL : b.value(op[2]));
            } catch (IllegalArgumentException e) {
                throw new MalformedHistoryException(src, "line " + lineNo, e.getMessage());
            }
        }
        if (open) b.end();
        return b.build();
    }

    static String abbreviate(String s) { return s.length() > 60 ? s.substring(0, 57) + "..." : s; }
}
