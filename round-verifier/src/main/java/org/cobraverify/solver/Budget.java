package org.cobraverify.solver;

/**
 * A deadline for one check. {@link #check()} throws {@link Exhausted} once it has passed; every loop of
 * the checker that can run long calls it, so a timeout yields "unknown" promptly instead of a guess.
 */
public final class Budget {
    private final long deadlineNanos;
    private final long maxHeapBytes;

    /** Thrown when the budget is spent; the checker turns it into an unknown verdict. */
    public static class Exhausted extends RuntimeException {
        public Exhausted(String why) { super(why, null, false, false); }
    }

    /** Thrown when the budget was cancelled (another part of the check already decided): not an answer. */
    public static final class Cancelled extends Exhausted {
        public Cancelled() { super("cancelled: another part already decided"); }
    }

    private final java.util.concurrent.atomic.AtomicBoolean cancelled;

    private Budget(long deadlineNanos, long maxHeapBytes) { this(deadlineNanos, maxHeapBytes, null); }

    private Budget(long deadlineNanos, long maxHeapBytes, java.util.concurrent.atomic.AtomicBoolean cancelled) {
        this.deadlineNanos = deadlineNanos;
        this.maxHeapBytes = maxHeapBytes;
        this.cancelled = cancelled;
    }

    /** The same limits, also spent as soon as {@code cancel} is set (to stop parallel work at the first violation). */
    public Budget cancellable(java.util.concurrent.atomic.AtomicBoolean cancel) {
        return new Budget(deadlineNanos, maxHeapBytes, cancel);
    }

    public static Budget unlimited() { return new Budget(Long.MAX_VALUE, Long.MAX_VALUE); }

    /** A budget of {@code seconds} from now (fractions allowed); {@code maxHeapBytes} 0 for no memory limit. */
    public static Budget of(double seconds, long maxHeapBytes) {
        long deadline = seconds <= 0 ? Long.MAX_VALUE : System.nanoTime() + (long) (seconds * 1e9);
        return new Budget(deadline, maxHeapBytes <= 0 ? Long.MAX_VALUE : maxHeapBytes);
    }

    public void check() {
        if (cancelled != null && cancelled.get()) throw new Cancelled();
        if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) throw new Exhausted("time limit reached");
        if (maxHeapBytes != Long.MAX_VALUE) {
            Runtime rt = Runtime.getRuntime();
            if (rt.totalMemory() - rt.freeMemory() > maxHeapBytes) throw new Exhausted("memory limit reached");
        }
    }
}
