package org.cobraverify.checker;

import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.solver.Solver;

/**
 * Settings for one check: the budget, the solver for what pruning leaves, and whether to check strict
 * serializability (real-time order, with a clock drift allowance: Ti must precede Tj only when
 * {@code end(Ti) + drift < start(Tj)}).
 */
public record CheckOptions(double timeoutSeconds, long maxHeapBytes, Solver solver, boolean strict, long driftNanos) {
    /** The default clock drift allowance in strict mode: 100 ms. */
    public static final long DEFAULT_DRIFT_NANOS = 100_000_000L;

    public static CheckOptions defaults() { return new CheckOptions(0, 0, new AcyclicitySolver(), false, DEFAULT_DRIFT_NANOS); }

    public CheckOptions withTimeout(double seconds) { return new CheckOptions(seconds, maxHeapBytes, solver, strict, driftNanos); }

    public CheckOptions withSolver(Solver s) { return new CheckOptions(timeoutSeconds, maxHeapBytes, s, strict, driftNanos); }

    public CheckOptions withMaxHeap(long bytes) { return new CheckOptions(timeoutSeconds, bytes, solver, strict, driftNanos); }

    public CheckOptions withStrict(long drift) { return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, true, drift); }
}
