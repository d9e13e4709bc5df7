package org.cobraverify.rounds;

import java.util.Arrays;
import org.cobraverify.history.History;
import org.cobraverify.history.IntVec;
import org.cobraverify.history.LongIntMap;

/**
 * Epochs from fence transactions (paper §4.2), for a whole history at once.
 *
 * <p>Rules. A <em>fence</em> is a committed transaction that reads the fence key and then writes it.
 * Fences chain through their read-from: a fence that read the initial state has epoch 1; one that read
 * fence F's write has epoch {@code epoch(F) + 1} (two fences reading one write, a lost update the
 * checker rejects, get the same epoch). A fence whose read does not lead back to the initial state
 * through fences has no epoch and counts as an ordinary transaction. An ordinary transaction between
 * its session's fences of epochs i and j gets epoch {@code j − 1}; one after its session's last fence
 * gets {@link #OPEN} (its epoch never closes within the history). {@link #previousFence} is the epoch
 * of the session's last fence before a transaction (0: none): every transaction of epoch
 * {@code previousFence(T) − 1} or less precedes T through the fence chain and session order.
 */
public final class EpochAssigner {
    /** The epoch of a transaction that no later fence of its session closes. */
    public static final long OPEN = Long.MAX_VALUE;
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
        for (int k = 0; k < h.keyCount(); k++) if (String.valueOf(h.keyName(k)).equals(fenceKey)) key = k;
        // candidate fences: committed, external read of the key, then a write of it
        int[] readValue = new int[n];
        int[] wroteValue = new int[n];
        LongIntMap byWrite = new LongIntMap(64);
        for (int t = 0; t < n && key >= 0; t++) {
            if (h.status(t) != History.COMMITTED) continue;
            int read = Integer.MIN_VALUE, wrote = Integer.MIN_VALUE;
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                if (h.key(op) != key) continue;
                if (h.kind(op) == History.READ && read == Integer.MIN_VALUE && wrote == Integer.MIN_VALUE) read = h.value(op);
                else if (h.kind(op) == History.WRITE && read != Integer.MIN_VALUE) wrote = h.value(op);
            }
            if (read == Integer.MIN_VALUE || wrote == Integer.MIN_VALUE) continue;
            fence[t] = true;
            readValue[t] = read;
            wroteValue[t] = wrote;
            byWrite.put(wrote, t);
        }
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
                if (base >= 0) { base++; fe[f] = base; } else fe[f] = -2;
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
            if (fence[t]) { epoch[t] = fe[t]; nextFence[s] = fe[t]; } else epoch[t] = nextFence[s] == OPEN ? OPEN : nextFence[s] - 1;
        }
    }

    public long epoch(int t) { return epoch[t]; }

    public boolean isFence(int t) { return fence[t]; }

    /** The epoch of the last fence of t's session before t; 0 if there is none. */
    public long previousFence(int t) { return previousFence[t]; }

    public int fenceCount() { return fences; }
}
