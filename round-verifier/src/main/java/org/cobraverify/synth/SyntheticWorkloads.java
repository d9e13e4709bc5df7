package org.cobraverify.synth;

import java.util.Random;
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
        BLINDW_RM("BlindW-RM"), BLINDW_RW("BlindW-RW"), BLINDW_WM("BlindW-WM"), RMW("RMW-mix");

        public final String label;

        Kind(String label) { this.label = label; }
    }

    public static History generate(Kind kind, int txns, int keys, int sessions, long seed) {
        Random rnd = new Random(seed);
        long[] state = new long[keys];
        java.util.Arrays.fill(state, -1);
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
}
