package org.cobraverify.checker;

import java.util.function.Consumer;
import org.cobraverify.solver.AcyclicitySolver;
import org.cobraverify.solver.Solver;

/**
 * Settings for one check: the decision's budget, the solver for what pruning leaves, whether to check strict
 * serializability (real-time order, with a clock drift allowance: Ti must precede Tj only when
 * {@code end(Ti) + drift < start(Tj)}), and the certificate's own budget.
 *
 * <p>Two budgets, never shared: {@code timeoutSeconds} bounds the decision (0: none); once a violation found by
 * search is decided, {@code certificateSeconds} bounds shrinking its certificate (0: report the solver's core as
 * it is). {@code onDecision}, if set, hears a reject the moment it is decided, with the certificate available
 * without search, before any shrinking starts (a caller prints the headline from it). {@code reachability}
 * answers pruning's path queries.
 */
public record CheckOptions(double timeoutSeconds, long maxHeapBytes, Solver solver, boolean strict, long driftNanos,
                           double certificateSeconds, Consumer<Verdict> onDecision,
                           ReachabilityEngine reachability) {
    /** The default clock drift allowance in strict mode: 100 ms. */
    public static final long DEFAULT_DRIFT_NANOS = 100_000_000L;

    /** The default budget for shrinking a certificate found by search: 2 s. */
    public static final double DEFAULT_CERTIFICATE_SECONDS = 2.0;

    public static CheckOptions defaults() {
        return new CheckOptions(0, 0, new AcyclicitySolver(), false, DEFAULT_DRIFT_NANOS, DEFAULT_CERTIFICATE_SECONDS, null,
                ChainCoverReachability.INSTANCE);
    }

    public CheckOptions withTimeout(double seconds) {
        return new CheckOptions(seconds, maxHeapBytes, solver, strict, driftNanos, certificateSeconds, onDecision, reachability);
    }

    /** The solver named {@code name}: cdcl (the default), sat4j or exhaustive; {@link IllegalArgumentException} for another name. */
    public CheckOptions withSolver(String name) { return withSolver(org.cobraverify.solver.Sat4jSolver.byName(name)); }

    public CheckOptions withSolver(Solver s) {
        return new CheckOptions(timeoutSeconds, maxHeapBytes, s, strict, driftNanos, certificateSeconds, onDecision, reachability);
    }

    public CheckOptions withMaxHeap(long bytes) {
        return new CheckOptions(timeoutSeconds, bytes, solver, strict, driftNanos, certificateSeconds, onDecision, reachability);
    }

    public CheckOptions withStrict(long drift) {
        return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, true, drift, certificateSeconds, onDecision, reachability);
    }

    /** Serializability without real time (the options' drift is kept for a later {@link #withStrict}). */
    public CheckOptions withoutStrict() {
        return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, false, driftNanos, certificateSeconds, onDecision, reachability);
    }

    /** Seconds for shrinking a certificate found by search; 0 skips shrinking, {@link Double#POSITIVE_INFINITY} sets no limit. */
    public CheckOptions withCertificateBudget(double seconds) {
        if (seconds < 0) throw new IllegalArgumentException("the certificate budget cannot be negative: " + seconds);
        return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, strict, driftNanos, seconds, onDecision, reachability);
    }

    /** Pruning's reachability: the CPU chain cover (default) or another {@link ReachabilityEngine} (a GPU's). */
    public CheckOptions withReachability(ReachabilityEngine engine) {
        return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, strict, driftNanos, certificateSeconds, onDecision, engine);
    }

    /** Hears a reject as soon as it is decided (before the certificate is shrunk). */
    public CheckOptions withDecisionListener(Consumer<Verdict> listener) {
        return new CheckOptions(timeoutSeconds, maxHeapBytes, solver, strict, driftNanos, certificateSeconds, listener, reachability);
    }
}
