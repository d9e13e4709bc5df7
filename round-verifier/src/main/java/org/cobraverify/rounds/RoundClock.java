package org.cobraverify.rounds;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Where a round's time went besides the verifier's own work: the CPU time of the thread that runs the round, and the
 * time the JVM's collectors reported in the meantime. A round's wall time less its thread's CPU time is time the thread
 * was stopped (a collection pause) or waiting for a core (the JIT compiler, the collector's threads, the store's writer and
 * compactions, other processes): on a machine with two cores that is most of the difference between two runs of one file.
 * Observability only: nothing the verifier decides depends on it.
 *
 * <p>Contract: {@link #cpuNanos} is the calling thread's CPU time in nanoseconds, or -1 where the JVM cannot measure it;
 * {@link #collectorMillis} is the sum of every collector's cumulative collection time, or -1 where none reports one.
 * Both only ever grow within one thread and JVM, so the difference of two readings is the time spent between them.
 */
final class RoundClock {
    private RoundClock() {}

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported() && enabled();
    private static final List<GarbageCollectorMXBean> COLLECTORS = ManagementFactory.getGarbageCollectorMXBeans();

    private static boolean enabled() {
        try {
            if (!THREADS.isThreadCpuTimeEnabled()) THREADS.setThreadCpuTimeEnabled(true);
            return THREADS.isThreadCpuTimeEnabled();
        } catch (UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** The calling thread's CPU time so far, in nanoseconds; -1 when it cannot be measured. */
    static long cpuNanos() { return CPU ? THREADS.getCurrentThreadCpuTime() : -1; }

    /** The collectors' collection time so far, in milliseconds, summed; -1 when none reports it. */
    static long collectorMillis() {
        long sum = 0;
        boolean any = false;
        for (GarbageCollectorMXBean c : COLLECTORS) {
            long t = c.getCollectionTime();
            if (t >= 0) { sum += t; any = true; }
        }
        return any ? sum : -1;
    }

    /** {@code to - from} for two readings of one of the clocks above; -1 when either could not be taken. */
    static long between(long from, long to) { return from < 0 || to < 0 ? -1 : Math.max(0, to - from); }
}
