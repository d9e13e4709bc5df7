package org.cobraverify.rounds;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;
import org.cobraverify.schemas.protocol.EpochRules;

/**
 * Epochs from fence transactions for a whole history at once, by the rules of {@link EpochRules} (fences
 * chain through their read-from; a transaction between its session's fences of epochs i and j gets
 * {@code max(j − 1, i)}; one after its session's last fence gets {@link #OPEN}; one of a session that never fences, in a
 * history that has fences, {@link EpochRules#UNFENCED}). A fence whose read does not
 * lead back to the initial state through fences has no epoch and counts as an ordinary transaction (the
 * pipeline instead bridges such a gap after a timeout: a file has no later fence to wait for).
 * {@link #previousFence} is the epoch of the session's last fence before a transaction (0: none).
 *
 * <p>docs/DESIGN.md §6.1 and §6.5.
 */
public final class EpochAssigner {
    /** The epoch of a transaction that no later fence of its session closes. */
    public static final long OPEN = EpochRules.OPEN;
    public static final String DEFAULT_FENCE_KEY = "EPOCH";

    private final long[] epoch, previousFence;
    private final boolean[] fence;
    private final int fences;

    public EpochAssigner(History h, String fenceKey) {
        int n = h.size();
        epoch = new long[n];
        previousFence = new long[n];
        fence = new boolean[n];
        int key = -1;
        // the fence key is named by its text: the string of that name, or else the integer (a history that names both has the string's)
        for (int k = 0; k < h.keyCount(); k++) if (fenceKey.equals(h.keyName(k)) || (key < 0 && String.valueOf(h.keyName(k)).equals(fenceKey))) key = k;
        // candidate fences (EpochRules rule 1)
        int[] readValue = new int[n];
        int[] wroteValue = new int[n];
        LongIntMap byWrite = new LongIntMap(64);
        final int fenceKeyId = key;
        int candidates = 0;
        for (int t = 0; t < n && key >= 0; t++) {
            final int first = h.opStart(t), count = h.opEnd(t) - first;
            int[] f = EpochRules.fenceOps(h.status(t) == History.COMMITTED, new EpochRules.Ops() {
                public int size() { return count; }

                public boolean isWrite(int i) { return h.kind(first + i) == History.WRITE; }

                public boolean onFenceKey(int i) { return h.key(first + i) == fenceKeyId; }
            });
            if (f == null) continue;
            fence[t] = true;
            candidates++;
            readValue[t] = h.value(first + f[0]);
            wroteValue[t] = h.value(first + f[1]);
            byWrite.put(wroteValue[t], t);
        }
        // rule 5: sessions with a fence (rule 1, whether or not its chain resolves); in a history with fences, the others' transactions follow none
        boolean[] fenced = new boolean[h.sessionCount()];
        for (int t = 0; t < n; t++) if (fence[t]) fenced[h.session(t)] = true;
        // chain: resolve each fence's epoch through what it read, iteratively
        long[] fe = new long[n];
        Arrays.fill(fe, -1);
        int count = 0;
        IntVec path = new IntVec();
        for (int t = 0; t < n; t++) {
            if (!fence[t] || fe[t] != -1) continue;
            path.clear();
            int cur = t;
            long base = -2; // -2: broken chain
            while (true) {
                if (fe[cur] >= 0) { base = fe[cur]; break; }
                if (fe[cur] == -3 || fe[cur] == -2) break; // on the current path already (a cycle), or known broken
                fe[cur] = -3;
                path.add(cur);
                int r = readValue[cur];
                if (r == History.NIL) { base = 0; break; }
                int prev = byWrite.get(r);
                if (prev == LongIntMap.MISSING || !fence[prev]) break;
                cur = prev;
            }
            for (int i = path.size() - 1; i >= 0; i--) {
                int f = path.get(i);
                if (base >= 0) { base = EpochRules.fenceEpoch(base); fe[f] = base; } else fe[f] = -2;
            }
        }
        for (int t = 0; t < n; t++) {
            if (fence[t] && fe[t] < 0) fence[t] = false;
            if (fence[t]) count++;
        }
        fences = count;
        // ordinary transactions: the epoch of their session's next fence, less one
        int sessions = h.sessionCount();
        long[] prev = new long[sessions];
        int[] lastIndex = new int[sessions];
        Arrays.fill(lastIndex, -1);
        int[] nextInSession = new int[n];
        Arrays.fill(nextInSession, -1);
        for (int t = 0; t < n; t++) {
            int s = h.session(t);
            previousFence[t] = prev[s];
            if (fence[t]) prev[s] = fe[t];
            if (lastIndex[s] >= 0) nextInSession[lastIndex[s]] = t;
            lastIndex[s] = t;
        }
        long[] nextFence = new long[sessions];
        Arrays.fill(nextFence, OPEN);
        for (int t = n - 1; t >= 0; t--) {
            int s = h.session(t);
            if (fence[t]) { epoch[t] = fe[t]; nextFence[s] = fe[t]; } else epoch[t] = EpochRules.ordinaryEpoch(previousFence[t], nextFence[s]);
        }
        for (int t = 0; t < n && candidates > 0; t++) if (!fenced[h.session(t)]) epoch[t] = EpochRules.UNFENCED;
    }

    /** Whether {@code t} follows no fence (its session never fences, in a history that has fences): stamped {@link EpochRules#UNFENCED}. */
    public boolean unfenced(int t) { return epoch[t] == EpochRules.UNFENCED; }

    /**
     * Rule 4's input for {@code t} still to come ({@link EpochRules#followedFence}); {@link Long#MAX_VALUE} for an unfenced
     * one, which holds no epoch open.
     */
    public long followedFence(int t) {
        return unfenced(t) ? Long.MAX_VALUE : EpochRules.followedFence(previousFence[t], fence[t], epoch[t]);
    }

    public long epoch(int t) { return epoch[t]; }

    public boolean isFence(int t) { return fence[t]; }

    /** The epoch of the last fence of t's session before t; 0 if there is none. */
    public long previousFence(int t) { return previousFence[t]; }

    public int fenceCount() { return fences; }
}
