package org.cobraverify.solver;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The limits of one check: a deadline, a heap limit, a number of checkpoints, and cancellation.
 * {@link #check()} throws {@link Exhausted} once any limit is passed ({@link Cancelled} once cancelled); every
 * loop of the checker that can run long calls it, so a spent budget yields "unknown" promptly instead of a guess.
 *
 * <p>Checkpoints are the machine-independent limit. Each solver marks every unit of its work with {@link #step()}
 * (or {@link #check()}), and reports the units it did in its {@link Result}: {@link CdclSearch} per conflict and per
 * decision ({@code conflicts + decisions}), {@link ExhaustiveSolver} per assignment tried ({@code decisions}),
 * {@link Sat4jSolver} per call to Sat4j ({@code conflicts}). Under {@link #ofCheckpoints}{@code (n)} every step is a
 * checkpoint, so a solver does at most {@code n + 1} units (the last is the one whose checkpoint throws), whatever the
 * machine's speed. Tests use it; commands bound time and heap, which a step looks at every 64 units.
 *
 * <p>docs/DESIGN.md §4 (budgets and unknown) and §5.
 */
public final class Budget {
    private final long deadlineNanos;
    private final long maxHeapBytes;
    private final long maxCheckpoints;
    private final AtomicLong checkpoints; // null unless checkpoints are limited
    private final AtomicBoolean cancelled;

    /** Thrown when the budget is spent; the checker turns it into an unknown verdict. */
    public static class Exhausted extends RuntimeException {
        public Exhausted(String why) { super(why, null, false, false); }
    }

    /** Thrown when the budget was cancelled (another part of the check already decided): not an answer. */
    public static final class Cancelled extends Exhausted {
        public Cancelled() { super("cancelled: another part already decided"); }
    }

    private Budget(long deadlineNanos, long maxHeapBytes, long maxCheckpoints, AtomicLong checkpoints, AtomicBoolean cancelled) {
        this.deadlineNanos = deadlineNanos;
        this.maxHeapBytes = maxHeapBytes;
        this.maxCheckpoints = maxCheckpoints;
        this.checkpoints = checkpoints;
        this.cancelled = cancelled;
    }

    /** The same limits (and the same count of checkpoints), also spent as soon as {@code cancel} is set (to stop parallel work at the first violation). */
    public Budget cancellable(AtomicBoolean cancel) {
        return new Budget(deadlineNanos, maxHeapBytes, maxCheckpoints, checkpoints, cancel);
    }

    public static Budget unlimited() { return new Budget(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, null, null); }

    /**
     * A budget of {@code seconds} from now (fractions allowed; 0 or less, or infinite: no deadline); {@code maxHeapBytes}
     * 0 for no memory limit.
     */
    public static Budget of(double seconds, long maxHeapBytes) {
        long deadline = seconds <= 0 || Double.isInfinite(seconds) ? Long.MAX_VALUE : System.nanoTime() + (long) (seconds * 1e9);
        return new Budget(deadline, maxHeapBytes <= 0 ? Long.MAX_VALUE : maxHeapBytes, Long.MAX_VALUE, null, null);
    }

    /** A budget of work: {@code n} checkpoints pass, the next one throws {@link Exhausted}. No deadline. */
    public static Budget ofCheckpoints(long n) {
        if (n < 0) throw new IllegalArgumentException("a number of checkpoints cannot be negative: " + n);
        return new Budget(Long.MAX_VALUE, Long.MAX_VALUE, n, new AtomicLong(), null);
    }

    /** Checkpoints reached so far (the one that threw included); counted only under {@link #ofCheckpoints}, else 0. */
    public long checkpoints() { return checkpoints == null ? 0 : checkpoints.get(); }

    private int steps; // per thread in practice (one search per budget copy); a race only moves when the clock is read

    /**
     * One unit of a solver's work: a checkpoint under {@link #ofCheckpoints}; otherwise the limits are looked at
     * every 64 units (a clock read per conflict or decision showed in profiles of large searches).
     */
    public void step() {
        if (checkpoints != null || (++steps & 63) == 0) check();
        else if (cancelled != null && cancelled.get()) throw new Cancelled();
    }

    public void check() {
        if (cancelled != null && cancelled.get()) throw new Cancelled();
        if (checkpoints != null && checkpoints.incrementAndGet() > maxCheckpoints)
            throw new Exhausted("work limit reached (" + maxCheckpoints + " checkpoints)");
        if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) throw new Exhausted("time limit reached");
        if (maxHeapBytes != Long.MAX_VALUE) {
            Runtime rt = Runtime.getRuntime();
            if (rt.totalMemory() - rt.freeMemory() > maxHeapBytes) throw new Exhausted("memory limit reached");
        }
    }
}
