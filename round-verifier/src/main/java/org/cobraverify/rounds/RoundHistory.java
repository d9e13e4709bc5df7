package org.cobraverify.rounds;

import java.util.List;
import java.util.Set;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * A round's history as the checker sees it (docs/DESIGN.md §7.5, §7.9): the held transactions, with the reads of collected
 * writes left out (carried facts and the stale-read check stand for them), the writes collected while their writer stays
 * left out, and a synthetic writer for each frontier record a read of the round meets.
 */
final class RoundHistory {
    private RoundHistory() {}

    /**
     * The round's history, built into {@code b}: the transactions of {@code order} (their key and value ids {@code opIds},
     * from {@link RoundIds}) with the frontier's synthetic writers. {@code heldReads[i]}: which reads of transaction
     * {@code i} have a held writer (null: every one); {@code forced}: the transactions admitted with a read of no held
     * writer in the last round.
     */
    /**
     * Begins {@code t} in {@code b}: its id, session, status and times (0: not recorded); one found committed after it was
     * recorded of unknown outcome ({@link HeldTransactions#acknowledged}) is committed and unacknowledged.
     */
    static void begin(HistoryBuilder b, Transaction t, java.util.function.Predicate<Transaction> acknowledged) {
        byte st = t.getStatus() == TxnStatus.COMMITTED ? History.COMMITTED : t.getStatus() == TxnStatus.ABORTED ? History.ABORTED : History.UNKNOWN;
        b.begin(t.getId(), b.session(t.getSession()), st, t.getStart() == 0 ? History.NO_TIME : t.getStart(),
                t.getEnd() == 0 ? History.NO_TIME : t.getEnd(), -1);
        if (st == History.COMMITTED && !acknowledged.test(t)) b.unacknowledged();
    }

    static History build(HistoryBuilder b, List<Transaction> order, int[][] opIds, boolean[][] heldReads, PastFrontier frontier,
                         HeldTransactions held, CollectedPast past, StaleReads stale, Set<String> forced) {
        for (int ti = 0; ti < order.size(); ti++) {
            Transaction t = order.get(ti);
            int[] x = opIds[ti];
            begin(b, t, held::acknowledged);
            boolean isForced = !forced.isEmpty() && forced.contains(t.getId());
            boolean[] resolved = heldReads[ti];
            boolean whole = resolved == null;
            boolean marked = !held.supersededMarks().isEmpty() && held.supersededMarks().containsKey(t.getId()); // (one lookup per transaction)
            boolean before = past.exists() && past.before().contains(t.getId());
            List<TxnOp> tops = t.getOps();
            for (int j = 0; j < tops.size(); j++) {
                TxnOp o = tops.get(j);
                int k = x[2 * j], v = x[2 * j + 1];
                if (o.getWrite()) { if (!marked || !held.isCollectedWrite(t, o)) b.write(k, v); } // a write collected while t stays: left out
                else if (v == History.NIL) {
                    // a transaction before the collected past that read the initial value of a key with a synthetic writer:
                    // its order before that writer is carried already (§7.9), and the edge would only widen the graph
                    if (!before || !frontier.hasWriter(k)) b.read(k, History.NIL);
                }
                else if (whole) b.read(k, v);
                // a read of a frontier record: from the synthetic writer that stands for its collected writer
                else if (frontier.isCurrent(k, v)) b.read(k, v);
                // a read whose writer is gone: collected after this reader was checked (its edges are carried), or a
                // read of a collected write judged on its own (admitted transactions have no other unresolved reads)
                else if (!resolved[j] && (!isForced || stale.isThisRound(t, o))) continue;
                else b.read(k, v);
            }
            b.end();
        }
        frontier.addWriters(b);
        return b.build();
    }
}
