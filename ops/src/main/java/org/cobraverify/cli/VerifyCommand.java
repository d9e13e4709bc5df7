package org.cobraverify.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.cobraverify.checker.AllViolations;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.CrossCheckedReachability;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.io.CobraJsonlReader;
import org.cobraverify.io.HistoryFormat;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.io.MalformedHistoryException;
import org.cobraverify.report.DotReport;
import org.cobraverify.report.HtmlReport;
import org.cobraverify.report.JsonReport;
import org.cobraverify.report.TextReport;
import org.cobraverify.rounds.RoundResult;
import org.cobraverify.rounds.RoundsRun;
import org.cobraverify.schemas.protocol.EpochRules;
import org.cobraverify.verifier.RoundsOptions;
import org.cobraverify.verifier.RoundsStream;
import org.cobraverify.verifier.Verifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cobra verify PATH...}: checks each history one-shot. Exit 0 accept, 1 reject, 2 unreadable
 * input or bad arguments, 3 undecided within the limits. With several histories the exit code is the
 * most serious outcome: a reject outranks an error, which outranks an unknown.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Checks histories at an isolation level (default: serializability, with session order) and prints a verdict with proof.",
                "Exit codes: 0 accepted, 1 rejected, 2 input could not be checked, 3 undecided within the limits."})
public final class VerifyCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "PATH", description = "History files, or Cobra log directories (one history each).")
    List<Path> paths;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "cobra-jsonl, cobra-log, dbcop, polysi, elle-edn or elle-json (default: detected per file).")
    String format;

    @Option(names = "--json", description = "Print one JSON object per history (one per line).")
    boolean json;

    @Option(names = "--witness", paramLabel = "FILE", description = "On accept, write a serial order of the committed transactions (one id per line).")
    Path witness;

    @Option(names = "--dot", paramLabel = "FILE", description = "On reject, write the certificate as a Graphviz graph (dot -Tsvg FILE > cert.svg).")
    Path dot;

    @Option(names = "--html", paramLabel = "FILE", description = {"On reject, write the certificate as one self-contained web page (the cycle drawn",
            "in inline SVG, each edge's reason, the transactions, sessions, the proof's cases; it loads nothing)."})
    Path html;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Give up with 'unknown' (exit 3) after this long per history.")
    double timeout;

    @Option(names = "--certificate-budget", paramLabel = "SECONDS", description = {"After a violation found by search is decided (and reported),",
            "spend at most this long shrinking its certificate; 0 reports the solver's refutation as it is (default: ${DEFAULT-VALUE})."})
    double certificateSeconds = CheckOptions.DEFAULT_CERTIFICATE_SECONDS;

    @Option(names = "--gpu", paramLabel = "MODE", description = GpuOption.DESCRIPTION)
    String gpu = "auto";

    @Option(names = "--max-heap", paramLabel = "MB", description = "Give up with 'unknown' (exit 3) when the heap grows past this.")
    long maxHeapMb;

    @Option(names = "--strict", description = "Check strict serializability: transactions also keep their real-time order (needs start/end times).")
    boolean strict;

    @Option(names = "--isolation", paramLabel = "LEVEL", description = {"The level to check: read-committed (rc), strong-session-read-committed (ssrc), read-atomic (ra),",
            "causal (cc), snapshot-isolation (si), serializable (ser, the default) or strict-serializable (strict-ser, as --strict);",
            "or all: every level, with the strongest one the history satisfies (exit 1 when any level is broken)."})
    String isolation;

    @Option(names = "--drift", paramLabel = "MS", description = "Clock drift allowance for --strict, in milliseconds (default: ${DEFAULT-VALUE}).")
    double driftMillis = 100;

    @Option(names = "--solver", paramLabel = "NAME", description = "cdcl (default), or the cross-checks sat4j and exhaustive (small inputs only).")
    String solver = "cdcl";

    @Option(names = "--cobra-timestamps", description = "Cobra logs: 'S' and 'C' records carry a timestamp.")
    boolean cobraTimestamps;

    @Option(names = "--all", description = {"On reject, go on: report every independent violation, one certificate each (each one's transactions",
            "set aside before the next is sought), within --certificate-budget seconds (0: no limit) and 100 violations."})
    boolean all;

    @Option(names = "--rounds", paramLabel = "N", description = {"Verify in rounds of at least N transactions, cut on epoch boundaries,",
            "with garbage collection between rounds (the pipeline's verifier, on a file)."})
    int rounds;

    @Option(names = "--fence-key", paramLabel = "KEY", description = "With --rounds: the key fence transactions read-modify-write (default: ${DEFAULT-VALUE}).")
    String fenceKey = Verifier.DEFAULT_FENCE_KEY;

    PrintStream out = System.out, err = System.err;

    /**
     * The common command lines without picocli, whose model alone takes longer to build (~0.1 s) than checking
     * a thousand transactions: the options above by name, {@code --name value} or {@code --name=value}, and
     * paths. Returns null for anything else (help, version, {@code --}, an unknown option, a bad number, no
     * path), which picocli then handles with its messages. {@code FastArgsTest} checks that both parsers set
     * the same fields on the same command lines.
     */
    /** {@code v}, when {@link NumericOptions} accepts it for {@code option}; otherwise picocli's path says what is wrong. */
    private static double number(String option, double v) {
        if (NumericOptions.problem(option, v, "") != null) throw new IllegalArgumentException(option);
        return v;
    }

    static VerifyCommand fastParse(String[] args) {
        VerifyCommand c = new VerifyCommand();
        List<Path> ps = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (!a.startsWith("-")) { ps.add(Paths.get(a)); continue; }
                String name = a, value = null;
                int eq = a.indexOf('=');
                if (eq > 0) { name = a.substring(0, eq); value = a.substring(eq + 1); }
                if (!seen.add(name)) return null; // given twice: picocli's message
                boolean flag = switch (name) { case "--json", "--strict", "--cobra-timestamps", "--all" -> true; default -> false; };
                if (flag) {
                    if (value != null) return null;
                    switch (name) {
                        case "--json" -> c.json = true;
                        case "--strict" -> c.strict = true;
                        case "--all" -> c.all = true;
                        default -> c.cobraTimestamps = true;
                    }
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= args.length) return null;
                    value = args[++i];
                }
                switch (name) {
                    case "--format" -> c.format = value;
                    case "--witness" -> c.witness = Paths.get(value);
                    case "--dot" -> c.dot = Paths.get(value);
                    case "--html" -> c.html = Paths.get(value);
                    case "--timeout" -> c.timeout = number(name, Double.parseDouble(value));
                    case "--max-heap" -> c.maxHeapMb = (long) number(name, Long.parseLong(value));
                    case "--drift" -> c.driftMillis = number(name, Double.parseDouble(value));
                    case "--solver" -> c.solver = value;
                    case "--rounds" -> c.rounds = (int) number(name, Integer.parseInt(value));
                    case "--fence-key" -> c.fenceKey = value;
                    case "--certificate-budget" -> c.certificateSeconds = number(name, Double.parseDouble(value));
                    case "--gpu" -> c.gpu = value;
                    case "--isolation" -> c.isolation = value;
                    default -> { return null; }
                }
            }
        } catch (RuntimeException e) { // a bad number or path: picocli says what is wrong
            return null;
        }
        if (ps.isEmpty()) return null;
        c.paths = ps;
        return c;
    }

    /** Words that mark a reader's own failure (a bug to report), not the input's. */
    static final String INTERNAL_READ_ERROR = "internal error of the reader, please report it with this file";
    private CheckOptions solverChosen;
    private ReachabilityEngine reachability;
    /** The level {@code --isolation} named below serializability, or null; {@link #allLevels} for {@code all}. */
    private IsolationLevel level;
    private boolean allLevels;

    @Override
    public Integer call() {
        if (certificateSeconds < 0 || Double.isNaN(certificateSeconds)) {
            err.println("cobra verify: --certificate-budget takes 0 or more seconds");
            return 2;
        }
        if (rounds < 0) {
            err.println("cobra verify: --rounds takes a positive number of transactions");
            return 2;
        }
        if (rounds > 0 && witness != null) {
            err.println("cobra verify: --witness needs a one-shot check (without --rounds): collected transactions leave no serial order to print");
            return 2;
        }
        if ((witness != null || dot != null || html != null) && paths.size() > 1) {
            err.println("cobra verify: --witness, --dot and --html take exactly one history");
            return 2;
        }
        for (String refused : new String[] {OutputFiles.refusal(witness, OutputFiles.Kind.WITNESS), OutputFiles.refusal(dot, OutputFiles.Kind.DOT),
                OutputFiles.refusal(html, OutputFiles.Kind.PAGE)}) {
            if (refused == null) continue;
            err.println("cobra verify: " + refused);
            return 2;
        }
        if (isolation != null && !parseIsolation()) return 2;
        HistoryFormat fmt = null;
        if (format != null) {
            try {
                fmt = HistoryFormat.fromCliName(format);
            } catch (IllegalArgumentException e) {
                err.println("cobra verify: " + e.getMessage());
                return 2;
            }
        }
        try {
            solverChosen = CheckOptions.defaults().withSolver(solver);
        } catch (IllegalArgumentException e) {
            err.println("cobra verify: " + e.getMessage());
            return 2;
        }
        reachability = GpuOption.resolve(gpu, "verify", err);
        if (reachability == null) return 2;
        int worst = 0;
        for (Path p : paths) worst = worse(worst, verifyOne(p, fmt));
        return worst;
    }

    /**
     * {@code --isolation}: serializable and strict-serializable go the serializability path ({@code --strict}); a weaker
     * level or {@code all} goes {@link IsolationVerification}, which checks one history one-shot. False after saying what
     * is wrong.
     */
    private boolean parseIsolation() {
        IsolationLevel l;
        if (isolation.trim().equalsIgnoreCase("all")) { allLevels = true; l = null; }
        else {
            try {
                l = IsolationLevel.parse(isolation);
            } catch (IllegalArgumentException e) {
                err.println("cobra verify: --isolation: " + e.getMessage() + ", or all");
                return false;
            }
        }
        if (strict && l != IsolationLevel.STRICT_SERIALIZABLE) {
            err.println("cobra verify: --strict means --isolation strict-serializable; give one of them");
            return false;
        }
        if (l == IsolationLevel.SERIALIZABLE) return true;
        if (l == IsolationLevel.STRICT_SERIALIZABLE) { strict = true; return true; }
        level = l;
        if (all) {
            err.println("cobra verify: --all checks serializability and strict serializability only, not --isolation " + isolation);
            return false;
        }
        if (rounds > 0 && allLevels) {
            err.println("cobra verify: --rounds checks one level; --isolation all is one-shot");
            return false;
        }
        return true;
    }

    static int worse(int a, int b) { return rank(b) > rank(a) ? b : a; }

    private static int rank(int code) {
        return switch (code) { case 1 -> 4; case 2 -> 3; case 3 -> 2; default -> 1; };
    }

    private int verifyOne(Path p, HistoryFormat fmt) {
        String name = p.toString();
        long t0 = System.nanoTime();
        if (rounds > 0) {
            // a cobra-jsonl file is read one transaction at a time: memory is bounded by what the rounds hold, not by the file
            try {
                HistoryFormat f = fmt != null ? fmt : HistoryFormat.detect(p);
                if (f == HistoryFormat.COBRA_JSONL) return verifyStreamed(name, p, options(), t0);
            } catch (MalformedHistoryException | IOException | RuntimeException | StackOverflowError e) {
                return cannotRead(name, e, "internal error in verification in rounds (please report it with this history)");
            }
        }
        HistoryReaders.Loaded loaded;
        try {
            loaded = HistoryReaders.read(p, fmt, new HistoryReaders.Options(cobraTimestamps));
        } catch (MalformedHistoryException | IOException | RuntimeException | StackOverflowError e) {
            // a reader's bug must not stop the other files of the run: say so, with the place we know
            return cannotRead(name, e, INTERNAL_READ_ERROR + " (" + (fmt == null ? "detected format" : fmt.cliName()) + ")");
        }
        long t1 = System.nanoTime();
        History h = loaded.history();
        if (h.size() == 0) err.println("cobra verify: warning: " + name + " holds no transactions: there is nothing to check, and nothing to reject");
        CheckOptions opts = options();
        if (rounds > 0) return verifyInRounds(name, loaded, opts, t0, t1);
        if (level != null || allLevels) return verifyAtLevel(name, loaded, opts, t0, t1);
        boolean[] headlinePrinted = {false};
        if (!json) opts = opts.withDecisionListener(d -> {
            out.print(TextReport.decided(name, d, h.size(), certificateSeconds));
            out.flush();
            headlinePrinted[0] = true;
        });
        Verdict v;
        try {
            v = Verifier.check(h, opts);
        } catch (CrossCheckedReachability.Disagreement e) {
            report(name, name + ": --gpu verify: the GPU and the CPU disagree, no verdict: " + e.getMessage());
            return 2;
        } catch (RuntimeException | StackOverflowError e) {
            // a checker's bug is no verdict: never exit 1 (not serializable) for it, and the other files still run
            report(name, name + ": internal error in the checker, no verdict (please report it with this history): " + e);
            return 2;
        }
        List<String> notes = new ArrayList<>(loaded.notes());
        notes.addAll(v.notes());
        // --all: the other independent violations, each with its own certificate
        List<JsonReport.Found> more = new ArrayList<>();
        if (all && v.outcome() == Verdict.Outcome.REJECT) {
            AllViolations.Result found;
            try {
                found = Verifier.allViolations(h, v.certificate(), options(), certificateSeconds, 100);
            } catch (RuntimeException | StackOverflowError e) {
                found = new AllViolations.Result(List.of(v.certificate()), null, "the search for more violations failed: " + e);
            }
            for (int i = 1; i < found.certificates().size(); i++) more.add(new JsonReport.Found(-1, found.certificates().get(i)));
            notes.add(found.certificates().size() + (found.certificates().size() == 1 ? " violation" : " independent violations") + " found"
                    + (found.note() != null ? " (" + found.note() + ")"
                       : found.rest() != null && found.rest().outcome() == Verdict.Outcome.ACCEPT ? "; the rest of the history is serializable"
                       : found.rest() != null ? "; the rest is undecided: " + found.rest().unknownReason() : ""));
        }
        v = new Verdict(v.outcome(), v.certificate(), v.witness(), v.unknownReason(), v.stats(), notes);
        double millis = (System.nanoTime() - t0) / 1e6;
        if (json) {
            if (all) {
                List<JsonReport.Found> every = new ArrayList<>();
                if (v.certificate() != null) every.add(new JsonReport.Found(-1, v.certificate()));
                every.addAll(more);
                out.println(JsonReport.renderRounds(name, loaded.format().cliName(), v, h.size(), millis, (t1 - t0) / 1e6, Map.of(), every));
            } else out.println(JsonReport.render(name, loaded.format().cliName(), v, h.size(), millis, (t1 - t0) / 1e6));
        } else {
            out.print(TextReport.render(name, v, h.size(), millis, !headlinePrinted[0]));
            for (int i = 0; i < more.size(); i++)
                out.print("  violation " + (i + 2) + ": " + more.get(i).certificate().kind().displayName() + "\n" + TextReport.certificate(more.get(i).certificate()));
        }
        if (v.outcome() == Verdict.Outcome.ACCEPT && witness != null && !writeWitness(h, v)) return 2;
        return writeDot(v) && writeHtml(v, name, strict ? IsolationLevel.STRICT_SERIALIZABLE : IsolationLevel.SERIALIZABLE, null, h.size()) ? v.outcome().exitCode() : 2;
    }

    /** {@code --isolation} below serializability, or {@code all}: one history, one-shot. */
    private int verifyAtLevel(String name, HistoryReaders.Loaded loaded, CheckOptions opts, long t0, long t1) {
        IsolationVerification iv = new IsolationVerification(out, json);
        History h = loaded.history();
        Verdict v;
        IsolationLevel broken, weakest;
        int code;
        try {
            if (allLevels) {
                Isolation.Ladder ladder = iv.all(name, loaded.format().cliName(), h, opts, t0, t1);
                broken = weakest = ladder.weakestViolated();
                v = broken != null ? ladder.verdicts().get(broken) : ladder.verdicts().get(IsolationLevel.STRICT_SERIALIZABLE);
                code = IsolationVerification.exitCode(ladder);
            } else {
                IsolationVerification.LevelResult r = iv.one(name, loaded.format().cliName(), h, level, opts, t0, t1);
                v = r.verdict();
                broken = level;
                weakest = r.weakest();
                code = v.outcome().exitCode();
            }
        } catch (RuntimeException | StackOverflowError e) {
            report(name, name + ": internal error in the checker, no verdict (please report it with this history): " + e);
            return 2;
        }
        if (!json && !loaded.notes().isEmpty()) for (String n : loaded.notes()) out.println("  note: " + n);
        if (witness != null && v.outcome() == Verdict.Outcome.ACCEPT && !writeWitness(h, v)) return 2;
        if (!writeHtml(v, name, broken == null ? IsolationLevel.SERIALIZABLE : broken, weakest, h.size())) return 2;
        return writeDot(v) ? code : 2;
    }

    /** {@code --witness}: the accepted order (a serial order, or for a weaker level a commit order), one id per line. */
    private boolean writeWitness(History h, Verdict v) {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(witness, StandardCharsets.UTF_8))) {
            for (int t : v.witness()) w.println(h.name(t));
            return true;
        } catch (IOException e) {
            err.println("cobra verify: cannot write the witness to " + witness + ": " + e.getMessage());
            return false;
        }
    }

    /** Reports why {@code name} could not be read (bad input names its place; an internal error says what it was); exit 2. */
    private int cannotRead(String name, Throwable e, String internal) {
        if (e instanceof MalformedHistoryException) report(name, e.getMessage());
        else if (e instanceof IOException) report(name, name + ": cannot read: " + e.getMessage());
        else report(name, name + ": " + internal + ": " + e);
        return 2;
    }

    private CheckOptions options() {
        CheckOptions opts = CheckOptions.defaults().withTimeout(timeout).withMaxHeap(maxHeapMb * 1024 * 1024).withSolver(solverChosen.solver())
                .withCertificateBudget(certificateSeconds).withReachability(reachability);
        return strict ? opts.withStrict((long) (driftMillis * 1e6)) : opts;
    }

    /**
     * {@code --rounds} on {@code cobra-jsonl}: a first pass counts each session's transactions and looks for fences, a
     * second feeds {@link StreamingRounds} one transaction at a time; on a reject, a third finds the certificate's lines.
     */
    private int verifyStreamed(String name, Path p, CheckOptions opts, long t0) throws IOException, MalformedHistoryException {
        Map<String, Integer> totals = new HashMap<>();
        Set<String> fenced = new HashSet<>();
        int[] count = {0};
        CobraJsonlReader.stream(p, (t, line) -> {
            totals.merge(t.getSession(), 1, Integer::sum);
            count[0]++;
            if (EpochRules.isFence(t, fenceKey)) fenced.add(t.getSession());
        });
        long t1 = System.nanoTime();
        RoundsRun run;
        try (RoundsStream sr = Verifier.streamRounds(roundsOptions(opts), totals, fenced)) {
            boolean[] going = {true};
            CobraJsonlReader.stream(p, (t, line) -> { if (going[0]) going[0] = sr.offer(t); });
            run = sr.finish();
        }
        return reportRounds(name, HistoryFormat.COBRA_JSONL, RoundsSummary.of(linesOf(run, p), count[0]), List.of(), count[0], t0, t1);
    }

    /** The rounds' options: this command's round size and fence key, its check options. */
    private RoundsOptions roundsOptions(CheckOptions opts) {
        RoundsOptions o = RoundsOptions.defaults().withCheck(opts).withRoundSize(rounds).withFenceKey(fenceKey);
        return level == null ? o : o.withLevel(level);
    }

    /** Prints what verification in rounds found, as JSON or text, writes {@code --dot}, and returns the exit code. */
    private int reportRounds(String name, HistoryFormat format, RoundsSummary sum, List<String> readerNotes, int transactions, long t0, long t1) {
        Verdict v = sum.verdict(readerNotes);
        double millis = (System.nanoTime() - t0) / 1e6;
        if (json) out.println(JsonReport.renderRounds(name, format.cliName(), v, transactions, millis, (t1 - t0) / 1e6, sum.fields(), sum.violations()));
        else {
            out.print(TextReport.render(name, v, transactions, millis));
            out.print(sum.text());
        }
        return writeDot(v) && writeHtml(v, name, strict ? IsolationLevel.STRICT_SERIALIZABLE : IsolationLevel.SERIALIZABLE, null, transactions) ? v.outcome().exitCode() : 2;
    }

    /** The run with the lines of its certificates' transactions, found by one more pass over the file. */
    private static RoundsRun linesOf(RoundsRun run, Path p) throws IOException, MalformedHistoryException {
        Set<String> ids = new HashSet<>();
        for (RoundResult r : run.rounds())
            for (Certificate c : r.violations()) for (Certificate.Txn t : c.transactions()) if (t.line() < 0) ids.add(t.id());
        if (ids.isEmpty()) return run;
        Map<String, Integer> lines = new HashMap<>();
        CobraJsonlReader.stream(p, (t, line) -> { if (ids.contains(t.getId())) lines.putIfAbsent(t.getId(), line); });
        return Verifier.withLines(run, lines);
    }

    /** {@code --rounds}: the file through the pipeline's round verifier, with garbage collection. */
    private int verifyInRounds(String name, HistoryReaders.Loaded loaded, CheckOptions opts, long t0, long t1) {
        History h = loaded.history();
        RoundsRun run;
        try {
            run = Verifier.inRounds(h, roundsOptions(opts), null);
        } catch (IllegalArgumentException e) {
            report(name, name + ": " + e.getMessage());
            return 2;
        }
        return reportRounds(name, loaded.format(), RoundsSummary.of(run, h.size()), loaded.notes(), h.size(), t0, t1);
    }

    /** {@code --dot}: on reject, the certificate as a Graphviz graph; false (after saying why) if it cannot be written. */
    private boolean writeDot(Verdict v) {
        if (v.outcome() != Verdict.Outcome.REJECT || dot == null) return true;
        try {
            Files.writeString(dot, DotReport.render(v.certificate()), StandardCharsets.UTF_8);
            return true;
        } catch (IOException e) {
            err.println("cobra verify: cannot write the graph to " + dot + ": " + e.getMessage());
            return false;
        }
    }

    /**
     * {@code --html}: the verdict as a self-contained page (on reject the certificate; on accept or unknown what was checked
     * and, for unknown, why), its path printed on stderr; false (after saying why) if it cannot be written.
     */
    private boolean writeHtml(Verdict v, String name, IsolationLevel level, IsolationLevel weakest, int transactions) {
        if (html == null) return true;
        try {
            Files.writeString(html, v.outcome() == Verdict.Outcome.REJECT ? HtmlReport.render(v.certificate(), name, level, weakest)
                    : HtmlReport.renderNoViolation(v, name, level, transactions), StandardCharsets.UTF_8);
            err.println("cobra verify: the page is " + html.toAbsolutePath());
            return true;
        } catch (IOException e) {
            err.println("cobra verify: cannot write the page to " + html + ": " + e.getMessage());
            return false;
        }
    }

    private void report(String name, String message) {
        if (json) out.println(JsonReport.error(name, message));
        else err.println("cobra verify: " + message);
    }
}
