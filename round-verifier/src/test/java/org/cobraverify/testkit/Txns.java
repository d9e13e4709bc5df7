package org.cobraverify.testkit;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/** Hand-made transactions for tests of verification in rounds. */
public final class Txns {
    private Txns() {}

    /**
     * A committed transaction as the pipeline delivers it: {@code ops} like "w x 1" or "r x 1" ("-" for no value, a
     * read of the initial state), at {@code index} in its session, with its epoch.
     */
    public static Transaction txn(String id, String session, long index, long epoch, boolean fence, String... ops) {
        List<TxnOp> l = new ArrayList<>();
        for (String s : ops) {
            String[] f = s.split(" ");
            l.add(new TxnOp(f[0].equals("w"), f[1], f[2].equals("-") ? null : f[2]));
        }
        return Transaction.newBuilder().setId(id).setSession(session).setStatus(TxnStatus.COMMITTED).setStart(0L).setEnd(0L)
                .setOps(l).setSessionIndex(index).setFence(fence).setEpoch(epoch).build();
    }
}
