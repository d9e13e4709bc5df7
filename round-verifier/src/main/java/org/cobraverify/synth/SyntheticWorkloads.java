package org.cobraverify.synth;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * Large serializable histories for benchmarks, shaped like the paper's workloads. Sessions take turns
 * at random and each transaction runs atomically against the latest state, so every history is
 * serializable by construction (the checker must accept it), while sessions interleave finely, as
 * the 24 concurrent clients of the paper's recordings do.
 *
 * <ul>
 *   <li>BlindW (RM, RW, WM): 10k keys; read-only or write-only transactions of 8 operations; the
 *       read-only share is 90%, 50% or 10%;</li>
 *   <li>RMW: read-modify-write heavy: 80% of transactions read-modify-write 2 keys and read 4 more,
 *       20% blindly write 2 keys.</li>
 * </ul>
 */
public final class SyntheticWorkloads {
    private SyntheticWorkloads() {}

    public enum Kind {
        BLINDW_RM("BlindW-RM"), BLINDW_RW("BlindW-RW"), BLINDW_WM("BlindW-WM"), RMW("RMW-mix"),
        /** Not serializable: see {@link #hiddenLongFork}. */
        HIDDEN_FORK("Hidden-fork");

        public final String label;

        Kind(String label) { this.label = label; }
    }

    public static History generate(Kind kind, int txns, int keys, int sessions, long seed) {
        if (kind == Kind.HIDDEN_FORK) return hiddenLongFork(txns, keys, sessions, seed);
        Random rnd = new Random(seed);
        long[] state = new long[keys];
        Arrays.fill(state, -1);
        long nextValue = 1;
        HistoryBuilder b = new HistoryBuilder();
        for (int i = 0; i < txns; i++) {
            int s = rnd.nextInt(sessions);
            b.begin(null, b.session((long) s), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            switch (kind) {
                case RMW -> {
                    if (rnd.nextDouble() < 0.2) {
                        for (int j = 0; j < 2; j++) {
                            int k = rnd.nextInt(keys);
                            state[k] = nextValue++;
                            b.write(b.key((long) k), b.value(state[k]));
                        }
                        break;
                    }
                    for (int j = 0; j < 2; j++) {
                        int k = rnd.nextInt(keys);
                        int key = b.key((long) k);
                        b.read(key, state[k] < 0 ? History.NIL : b.value(state[k]));
                        state[k] = nextValue++;
                        b.write(key, b.value(state[k]));
                    }
                    for (int j = 0; j < 4; j++) {
                        int k = rnd.nextInt(keys);
                        b.read(b.key((long) k), state[k] < 0 ? History.NIL : b.value(state[k]));
                    }
                }
                default -> {
                    double readOnly = kind == Kind.BLINDW_RM ? 0.9 : kind == Kind.BLINDW_RW ? 0.5 : 0.1;
                    boolean reader = rnd.nextDouble() < readOnly;
                    for (int j = 0; j < 8; j++) {
                        int k = rnd.nextInt(keys);
                        int key = b.key((long) k);
                        if (reader) b.read(key, state[k] < 0 ? History.NIL : b.value(state[k]));
                        else {
                            long v = nextValue++;
                            state[k] = v;
                            b.write(key, b.value(v));
                        }
                    }
                }
            }
            b.end();
        }
        return b.build();
    }

    /**
     * A YugabyteDB-like violation that only search proves: {@code txns} transactions of serial noise on
     * {@code keys} keys (about 100 in the recorded case) by {@code sessions} sessions, with a long fork planted
     * in the middle. Noise: 40% read-modify-write 2 keys and read 4; 20% write 2 of the blind keys (a sixth of
     * all) and read 4; 40% read 6 keys. The fork: writers a, b of blind key x and c, d of blind key y (each
     * also writing two private keys), and four readers in sessions of their own, ra and rb seeing x from a and
     * b and the private keys of c and d, rc and rd seeing y from c and d and the private keys of a and b; a
     * noise transaction then overwrites x and y. Every one of the four write orders of x and y closes a cycle
     * (e.g. ra -rw(x)-> b -wr-> rc -rw(y)-> d -wr-> ra), but no single one does on its own, and the blind
     * writes around x and y leave pruning nothing to order them by: the solver must refute the whole
     * component. Deterministic in {@code seed}.
     */
    public static History hiddenLongFork(int txns, int keys, int sessions, long seed) {
        if (keys < 12) throw new IllegalArgumentException("the hidden long fork needs at least 12 keys");
        Random rnd = new Random(seed);
        int blind = keys / 6;
        long[] state = new long[keys];
        Arrays.fill(state, -1);
        long[] next = {1};
        HistoryBuilder b = new HistoryBuilder();
        int plantAt = txns / 2;
        for (int i = 0; i < txns; i++) {
            if (i == plantAt) {
                int x = rnd.nextInt(blind), y = (x + 1 + rnd.nextInt(blind - 1)) % blind;
                long[] p = new long[8];
                for (int j = 0; j < 8; j++) p[j] = next[0]++;
                long xa = next[0]++, xb = next[0]++, yc = next[0]++, yd = next[0]++;
                long s0 = sessions; // the fork's eight transactions run in sessions of their own
                forkTxn(b, s0, true, x, xa, 0, 2, p);
                forkTxn(b, s0 + 1, true, x, xb, 1, 3, p);
                forkTxn(b, s0 + 2, true, y, yc, 4, 6, p);
                forkTxn(b, s0 + 3, true, y, yd, 5, 7, p);
                forkTxn(b, s0 + 4, false, x, xa, 4, 5, p);
                forkTxn(b, s0 + 5, false, x, xb, 6, 7, p);
                forkTxn(b, s0 + 6, false, y, yc, 0, 1, p);
                forkTxn(b, s0 + 7, false, y, yd, 2, 3, p);
                b.begin(null, b.session((long) rnd.nextInt(sessions)), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
                for (int k : new int[] {x, y}) {
                    state[k] = next[0]++;
                    b.write(b.key((long) k), b.value(state[k]));
                }
                b.end();
            }
            b.begin(null, b.session((long) rnd.nextInt(sessions)), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            double kind = rnd.nextDouble();
            Set<Integer> used = new HashSet<>();
            for (int j = 0; j < 6; j++) {
                boolean writes = j < 2 && kind < 0.6;
                int k = writes ? (kind < 0.2 ? rnd.nextInt(blind) : blind + rnd.nextInt(keys - blind)) : rnd.nextInt(keys);
                if (!used.add(k)) continue;
                int key = b.key((long) k);
                if (!(writes && kind < 0.2)) b.read(key, state[k] < 0 ? History.NIL : b.value(state[k]));
                if (writes) {
                    state[k] = next[0]++;
                    b.write(key, b.value(state[k]));
                }
            }
            b.end();
        }
        return b.build();
    }

    /** One transaction of the planted fork: writes (or reads) {@code key}={@code v} and private keys i and j. */
    private static void forkTxn(HistoryBuilder b, long session, boolean write, int key, long v, int i, int j, long[] p) {
        b.begin(null, b.session(session), History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
        int k = b.key((long) key);
        if (write) b.write(k, b.value(v)); else b.read(k, b.value(v));
        for (int q : new int[] {i, j}) {
            int pk = b.key("fork-" + (q + 1));
            if (write) b.write(pk, b.value(p[q])); else b.read(pk, b.value(p[q]));
        }
        b.end();
    }
}
