package org.cobraverify.schemas.protocol;

import java.util.List;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;

/**
 * The epoch rules (paper §4.2), written once: the file mode (the checker's {@code EpochAssigner} and
 * {@code HistoryRounds}) and the pipeline (the topology's fence chain, session assembler and round cutter, and
 * the verifier's {@code RoundVerifier}) call these and carry no version of their own. Pure: no state, no I/O.
 * They live in the schemas module, beside the records they read, so that the topology uses them without
 * linking the checker (docs/DESIGN.md §2 and §6).
 *
 * <ol>
 *   <li><b>Fence.</b> A committed transaction whose first operation on the fence key is a read and that
 *       writes the key afterwards (a read-modify-write). Its <em>read</em> is that first read (null: the
 *       initial state); its <em>write</em> is its last write of the key.</li>
 *   <li><b>Fence epochs.</b> Fences chain through their read-from: a fence that read the initial state has
 *       epoch 1; one that read fence F's write has epoch {@code epoch(F) + 1} ({@link #fenceEpoch}). Two
 *       fences that read one write (a lost update the checker rejects) both get that epoch.</li>
 *   <li><b>Other transactions.</b> One between its session's fences of epochs i and j gets
 *       {@code max(j − 1, i)} ({@link #ordinaryEpoch}); after its session's last fence, its epoch stays
 *       open until the next fence (a file: forever; the pipeline: until the session ends or goes silent,
 *       when it takes the session's last epoch).</li>
 *   <li><b>Closed epochs.</b> {@code epoch_agree} is the smallest epoch every live session has reached (an
 *       ended or retired session stops holding it back); GC may treat every epoch up to
 *       {@link #lastClosedEpoch}{@code (epoch_agree) = epoch_agree − 2} as closed. A file knows what is still
 *       to come, so it uses {@link #lastClosedEpochBefore}: one less than the smallest previous fence epoch
 *       of any transaction still to come. Either way GC checks in the graph that the old transactions reach
 *       every entry fence; these rules choose what to try, they are not what soundness rests on.</li>
 *   <li><b>Unfenced transactions.</b> A transaction of a session that has run no fence before it, and never will
 *       (a file: the session has no fence; the pipeline: its session had run none when it arrived), follows no fence:
 *       it is stamped {@link #UNFENCED} and holds no epoch open (its session is not waited for). The verifier does not
 *       check it in rounds: nothing shows that it follows the collected past. It is named in the verdict as unchecked
 *       (docs/DESIGN.md §7.6).</li>
 * </ol>
 */
public final class EpochRules {
    private EpochRules() {}

    /** The epoch of a transaction whose epoch no fence has closed yet. */
    public static final long OPEN = Long.MAX_VALUE;

    /** The stamp of a transaction that follows no fence of its session (rule 5): never old, never waited for, not checked in rounds. */
    public static final long UNFENCED = -2;

    /** Whether a transaction's stamped epoch says it follows no fence of its session (rule 5). */
    public static boolean isUnfenced(long stampedEpoch) { return stampedEpoch == UNFENCED; }

    /** A transaction's operations as the rules see them. */
    public interface Ops {
        int size();

        boolean isWrite(int i);

        /** Whether operation i is on the fence key. */
        boolean onFenceKey(int i);
    }

    /**
     * Rule 1: for a fence, {@code {read op, write op}} (indexes into {@code ops}); null when the
     * transaction is not one.
     */
    public static int[] fenceOps(boolean committed, Ops ops) {
        if (!committed) return null;
        int read = -1, write = -1;
        for (int i = 0; i < ops.size(); i++) {
            if (!ops.onFenceKey(i)) continue;
            if (ops.isWrite(i)) {
                if (read < 0) return null; // wrote the key before reading it: not a read-modify-write
                write = i;
            } else if (read < 0) read = i;
        }
        return read >= 0 && write >= 0 ? new int[] {read, write} : null;
    }

    /** Rule 1 over an assembled transaction. */
    public static int[] fenceOps(Transaction t, String fenceKey) {
        List<TxnOp> ops = t.getOps();
        return fenceOps(t.getStatus() == TxnStatus.COMMITTED, new Ops() {
            public int size() { return ops.size(); }

            public boolean isWrite(int i) { return ops.get(i).getWrite(); }

            public boolean onFenceKey(int i) { return ops.get(i).getKey().equals(fenceKey); }
        });
    }

    public static boolean isFence(Transaction t, String fenceKey) { return fenceOps(t, fenceKey) != null; }

    /** What fence {@code t} read of the fence key: its value, or "" for the initial state. Requires: a fence. */
    public static String fenceRead(Transaction t, String fenceKey) {
        String v = t.getOps().get(fenceOps(t, fenceKey)[0]).getValue();
        return v == null ? "" : v;
    }

    /** What fence {@code t} wrote last to the fence key. Requires: a fence. */
    public static String fenceWrite(Transaction t, String fenceKey) { return t.getOps().get(fenceOps(t, fenceKey)[1]).getValue(); }

    /** Rule 2: the epoch of a fence that read the write of a fence of epoch {@code epochOfRead} (0: the initial state). */
    public static long fenceEpoch(long epochOfRead) { return epochOfRead + 1; }

    /**
     * Rule 3: a transaction after its session's fence of epoch {@code previousFence} (0: none) and before
     * one of epoch {@code nextFence} ({@link #OPEN}: none yet).
     */
    public static long ordinaryEpoch(long previousFence, long nextFence) {
        return nextFence == OPEN ? OPEN : Math.max(nextFence - 1, previousFence);
    }

    /** Rule 4: the last epoch GC may treat as closed when {@code epochAgree} is the pipeline's agreement. */
    public static long lastClosedEpoch(long epochAgree) { return epochAgree - 2; }

    /**
     * Rule 4 for a file: the last epoch GC may treat as closed when {@code minPreviousFenceToCome} is the
     * smallest previous-fence epoch of the transactions still to come (all of those epochs precede each of
     * them through the fence chain and session order).
     */
    public static long lastClosedEpochBefore(long minPreviousFenceToCome) { return minPreviousFenceToCome - 1; }

    /**
     * Rule 4's input for one transaction still to come: the epoch of the latest fence it follows. An ordinary
     * transaction follows its session's previous fence ({@code previousFence}, 0: none); a fence of epoch
     * {@code e} also follows, through the chain it read, the fence of epoch {@code e − 1}. (A session's first
     * transaction is its fence: without this, every session that starts later would hold every epoch open.)
     */
    public static long followedFence(long previousFence, boolean fence, long epoch) {
        return fence && epoch != OPEN ? Math.max(previousFence, epoch - 1) : previousFence;
    }
}
