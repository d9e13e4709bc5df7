package org.cobraverify.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder replaced below. */
@Command(name = "bench", description = "Benchmarks the checker.")
public final class BenchCommand implements Callable<Integer> {
    @Override
    public Integer call() { return 0; }
}
