package org.cobraverify.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;

/**
 * Runs {@code cobra verify} in this process on a broken input and judges the outcome: it must end in exit
 * 0, 1, 2 or 3, within the time limit, print no stack trace, and, when it refuses the input (2), name the
 * input in its message. One target runs many inputs, one at a time, on one worker thread (a hang is reported,
 * and the worker replaced).
 */
public final class FuzzTarget implements AutoCloseable {
    /** What one run did; {@code problem} is null when the run behaved. */
    public record Outcome(int exit, String out, String err, long millis, String problem) {}

    private final Path scratch;
    private final double limitSeconds;
    private ExecutorService worker = newWorker();
    private int counter;

    public FuzzTarget(Path scratch, double limitSeconds) {
        this.scratch = scratch;
        this.limitSeconds = limitSeconds;
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(null, r, "cobra-fuzz", 512L << 20); // a deep-but-legal input may recurse in a parser
            t.setDaemon(true);
            return t;
        });
    }

    public Outcome run(FuzzSamples.Sample s, List<Mutation> mutations) throws IOException {
        Path where = write(s, mutations);
        List<String> args = new ArrayList<>(List.of("--timeout", "10", "--certificate-budget", "0.2", "--format", s.format().cliName(), where.toString()));
        long t0 = System.nanoTime();
        Future<Outcome> f = worker.submit(() -> verify(args));
        try {
            Outcome o = f.get((long) (limitSeconds * 1000), TimeUnit.MILLISECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String problem = judge(o, where);
            return new Outcome(o.exit(), o.out(), o.err(), ms, problem);
        } catch (TimeoutException e) {
            f.cancel(true);
            worker.shutdownNow();
            worker = newWorker();
            return new Outcome(-1, "", "", (System.nanoTime() - t0) / 1_000_000, "no answer within " + limitSeconds + " s (a hang)");
        } catch (Exception e) {
            return new Outcome(-1, "", e.toString(), (System.nanoTime() - t0) / 1_000_000, "the run itself failed: " + e);
        } finally {
            RecordCommand.deleteTree(where.getParent());
        }
    }

    private static Outcome verify(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        VerifyCommand cmd = new VerifyCommand();
        cmd.out = new PrintStream(out, true, StandardCharsets.UTF_8);
        cmd.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        CommandLine cl = new CommandLine(cmd);
        cl.setOut(new PrintWriter(cmd.out, true));
        cl.setErr(new PrintWriter(cmd.err, true));
        cl.setExitCodeExceptionMapper(e -> 70); // an exception escaping verify: a crash, whatever its exit code
        int code;
        try {
            code = cl.execute(args.toArray(new String[0]));
        } catch (Throwable t) { // picocli rethrows Errors (a StackOverflowError, say)
            cmd.err.println(t);
            for (StackTraceElement e : t.getStackTrace()) cmd.err.println("\tat " + e);
            code = 70;
        }
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), 0, null);
    }

    private static String judge(Outcome o, Path where) {
        String all = o.out() + o.err();
        if (all.contains("\tat ") || all.contains("Exception in thread")) return "a stack trace (exit " + o.exit() + ")";
        if (o.exit() < 0 || o.exit() > 3) return "exit code " + o.exit();
        if (all.contains(VerifyCommand.INTERNAL_READ_ERROR)) return "the reader failed: " + firstLine(all);
        if (o.exit() == 2 && !all.contains(where.toString())) return "refused without naming the input: " + firstLine(all);
        return null;
    }

    private static String firstLine(String s) {
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    private Path write(FuzzSamples.Sample s, List<Mutation> mutations) throws IOException {
        Path dir = Files.createDirectories(scratch.resolve("case-" + (counter++)));
        if (!s.directory()) {
            Map.Entry<String, byte[]> e = s.files().entrySet().iterator().next();
            Path f = dir.resolve(e.getKey());
            Files.write(f, Mutation.applyAll(e.getValue(), mutations));
            return f;
        }
        // a directory of logs: each mutation breaks one of its files, chosen by the mutation's b
        List<String> names = new ArrayList<>(s.files().keySet());
        Map<String, byte[]> files = new LinkedHashMap<>(s.files());
        for (Mutation m : mutations) {
            String name = names.get(Math.floorMod(m.b(), names.size()));
            files.put(name, m.apply(files.get(name)));
        }
        Path logs = Files.createDirectories(dir.resolve(s.name()));
        for (Map.Entry<String, byte[]> e : files.entrySet()) Files.write(logs.resolve(e.getKey()), e.getValue());
        return logs;
    }

    @Override
    public void close() { worker.shutdownNow(); }
}
