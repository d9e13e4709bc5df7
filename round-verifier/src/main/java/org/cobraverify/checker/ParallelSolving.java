package org.cobraverify.checker;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.cobraverify.solver.Budget;
import org.cobraverify.solver.Instance;
import org.cobraverify.solver.Result;
import org.cobraverify.solver.Solver;

/**
 * Step 8b: solves independent instances, in the given order (smallest first), on all cores. The first answer
 * other than SAT cancels the rest through the budget ({@link Budget#cancellable}); an instance cancelled that
 * way is no answer at all and comes back null, as does one never started.
 */
final class ParallelSolving {
    private ParallelSolving() {}

    static Result[] solveAll(Solver solver, Instance[] instances, Integer[] order, Budget budget) {
        Result[] results = new Result[instances.length];
        int threads = Math.min(Runtime.getRuntime().availableProcessors(), instances.length);
        if (threads <= 1) {
            for (int gi : order) {
                results[gi] = solver.solve(instances[gi], budget);
                if (results[gi].status() != Result.Status.SAT) break;
            }
            return results;
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Budget shared = budget.cancellable(stop);
        Thread[] workers = new Thread[threads];
        for (int w = 0; w < threads; w++) {
            workers[w] = new Thread(() -> {
                int i;
                try {
                    while (!stop.get() && (i = next.getAndIncrement()) < order.length) {
                        int gi = order[i];
                        Result r = solver.solve(instances[gi], shared);
                        results[gi] = r;
                        if (r.status() != Result.Status.SAT) stop.set(true);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }, "cobra-solver-" + w);
            workers[w].setDaemon(true);
            workers[w].start();
        }
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                stop.set(true);
                Thread.currentThread().interrupt();
                throw new Budget.Exhausted("interrupted");
            }
        }
        if (failure.get() instanceof Budget.Exhausted ex) throw ex;
        if (failure.get() instanceof Error err) throw err;
        if (failure.get() != null) throw new IllegalStateException("solver failed", failure.get());
        for (int i = 0; i < results.length; i++) if (results[i] != null && results[i].status() == Result.Status.CANCELLED) results[i] = null;
        return results;
    }
}
