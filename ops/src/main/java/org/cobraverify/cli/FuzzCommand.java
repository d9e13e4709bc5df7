package org.cobraverify.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.cobraverify.io.HistoryFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra fuzz}: the fuzzing campaign. For every reader, {@code --count} inputs broken by one to three
 * {@link Mutation}s of its samples ({@link FuzzSamples}), each run through {@code cobra verify} in this
 * process ({@link FuzzTarget}). Prints, per reader, how the runs ended and every run that misbehaved (a stack
 * trace, a hang, another exit code, a refusal that does not name the input). Exit 0 when none did, 1 otherwise.
 */
@Command(name = "fuzz", mixinStandardHelpOptions = true, header = "Fuzzes every history reader with broken inputs: each must end in a located message, never a crash.",
        description = {"Fuzzes every history reader through 'cobra verify' with broken inputs (bit flips, truncations, duplicated",
                "and reordered lines, huge numbers, deep nesting) made from built-in samples, examples/ and ../shared/data.",
                "Exit 0: every run ended in 0-3 with a located message; 1: some did not (listed)."})
public final class FuzzCommand implements Callable<Integer> {
    @Option(names = "--count", description = "Broken inputs per reader (default: ${DEFAULT-VALUE}).")
    int count = 10_000;

    @Option(names = "--seed", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--reader", split = ",", paramLabel = "FORMAT", description = "Only these readers (cobra-jsonl, cobra-log, dbcop, polysi, elle-edn, elle-json).")
    List<String> readers;

    @Option(names = "--time-limit", paramLabel = "SECONDS", description = "A run that takes longer is a hang (default: ${DEFAULT-VALUE}).")
    double limit = 30;

    @Option(names = "--root", paramLabel = "DIR", description = "The repository root, for examples/ and ../shared/data (default: the current directory).")
    Path root = Paths.get("");

    @Override
    public Integer call() throws Exception {
        List<FuzzSamples.Sample> all = FuzzSamples.all(root.toAbsolutePath());
        List<HistoryFormat> formats = new ArrayList<>();
        if (readers == null) formats.addAll(List.of(HistoryFormat.values()));
        else for (String r : readers) formats.add(HistoryFormat.fromCliName(r));
        Random rnd = new Random(seed);
        Path scratch = Files.createTempDirectory("cobra-fuzz");
        int bad = 0;
        System.out.printf("%-12s %7s %8s %6s %6s %6s %6s %9s %8s%n", "reader", "samples", "inputs", "exit0", "exit1", "exit2", "exit3", "problems", "max/ms");
        List<String> problems = new ArrayList<>();
        try (FuzzTarget target = new FuzzTarget(scratch, limit)) {
            for (HistoryFormat f : formats) {
                List<FuzzSamples.Sample> samples = FuzzSamples.of(all, f);
                if (samples.isEmpty()) continue;
                int[] exits = new int[4];
                int mine = 0;
                long max = 0;
                for (int i = 0; i < count; i++) {
                    FuzzSamples.Sample s = samples.get(rnd.nextInt(samples.size()));
                    List<Mutation> ms = Mutation.randomList(rnd);
                    FuzzTarget.Outcome o = target.run(s, ms);
                    max = Math.max(max, o.millis());
                    if (o.exit() >= 0 && o.exit() <= 3) exits[o.exit()]++;
                    if (o.problem() != null) {
                        mine++;
                        if (problems.size() < 50) problems.add(f.cliName() + " " + s.name() + " " + ms + ": " + o.problem() + "\n      " + firstLines(o.err() + o.out()));
                    }
                }
                bad += mine;
                System.out.printf("%-12s %7d %8d %6d %6d %6d %6d %9d %8d%n", f.cliName(), samples.size(), count, exits[0], exits[1], exits[2], exits[3], mine, max);
            }
        } finally {
            RecordCommand.deleteTree(scratch);
        }
        for (String p : problems) System.out.println("  " + p);
        return bad == 0 ? 0 : 1;
    }

    private static String firstLines(String s) {
        String[] ls = s.split("\n");
        return String.join("\n      ", Arrays.copyOf(ls, Math.min(4, ls.length)));
    }
}
