package org.cobraverify.checker;

import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.solver.Solver;

/** Settings for one check: the budget and the solver for what pruning leaves. */
public record CheckOptions(double timeoutSeconds, long maxHeapBytes, Solver solver) {
    public static CheckOptions defaults() { return new CheckOptions(0, 0, new AcyclicitySolver()); }

    public CheckOptions withTimeout(double seconds) { return new CheckOptions(seconds, maxHeapBytes, solver); }

    public CheckOptions withSolver(Solver s) { return new CheckOptions(timeoutSeconds, maxHeapBytes, s); }

    public CheckOptions withMaxHeap(long bytes) { return new CheckOptions(timeoutSeconds, bytes, solver); }
}
