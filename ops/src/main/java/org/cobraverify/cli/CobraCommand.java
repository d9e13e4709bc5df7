package org.cobraverify.cli;

import java.util.Arrays;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaRefusal;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code cobra} command: checks histories of transactional key-value stores for serializability. */
@Command(name = "cobra", mixinStandardHelpOptions = true, version = "cobra 0.1.0",
        description = "Checks from outside whether a database keeps its isolation level: one-shot, in rounds, continuously.",
        footer = {"Logging: cobra's own messages go to stderr, from info up. COBRA_LOG_LEVEL, or",
                "--log-level LEVEL with any command (error, warn, info, debug, trace, off), sets it."},
        subcommands = {VerifyCommand.class, FuzzCommand.class, DemoCommand.class, RecordCommand.class, SurveyCommand.class, TopologyCommand.class, VerifierCommand.class, VerdictsCommand.class, ReplayCommand.class, ExportCommand.class, AclsCommand.class, TopicsCommand.class, PlantCommand.class, BenchCommand.class, OverheadCommand.class, BrokerCommand.class, CommandLine.HelpCommand.class})
public final class CobraCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The exit code of {@code unknown}: no verdict could be reached. */
    static final int UNKNOWN = 3;

    public static void main(String[] args) {
        Thread.setDefaultUncaughtExceptionHandler(CobraCommand::uncaught);
        int rc;
        try {
            args = LogLevel.apply(args, System.getenv("COBRA_LOG_LEVEL"));
            rc = args == null ? 2 : execute(args);
        } catch (OutOfMemoryError e) {
            rc = outOfMemory(e);
        }
        System.exit(rc);
    }

    /**
     * Says that the heap ran out, without a stack trace, and returns {@link #UNKNOWN}: a check that did not finish
     * has no verdict (exit 1 would mean "not serializable"). The command's own state is unreachable by now (the
     * error unwound it), so there is room to print.
     */
    static int outOfMemory(OutOfMemoryError e) {
        long maxMb = Runtime.getRuntime().maxMemory() >> 20;
        System.err.println("cobra: unknown: the Java heap ran out (" + e.getMessage() + "; at most " + maxMb + " MB);"
                + " no verdict was reached. Give it more: COBRA_JAVA_OPTS=-Xmx<size>, or verify in rounds (--rounds N)");
        return UNKNOWN;
    }

    /** Another thread's uncaught error: the heap running out there ends the command as above; anything else is printed as the JVM would. */
    private static void uncaught(Thread t, Throwable e) {
        if (e instanceof OutOfMemoryError oom) {
            outOfMemory(oom);
            Runtime.getRuntime().halt(UNKNOWN);
        }
        System.err.print("Exception in thread \"" + t.getName() + "\" ");
        e.printStackTrace();
    }

    /** What went wrong with Kafka, said for a person (null: not a Kafka refusal nor bad client settings). */
    static String kafkaProblem(Exception ex, CommandLine cmd) {
        if (ex instanceof KafkaConnection.BadSettings) return ex.getMessage();
        KafkaConnection kafka = null;
        for (CommandLine.Model.CommandSpec mixin : cmd.getCommandSpec().mixins().values())
            if (mixin.userObject() instanceof KafkaOptions o) {
                try {
                    kafka = o.connection();
                } catch (KafkaConnection.BadSettings ignored) {
                    // then no principal to name
                }
            }
        return KafkaRefusal.explain(ex, kafka);
    }

    /**
     * Runs the command line and returns its exit code (bad arguments: 2). {@code verify}, the command people
     * run most and on small files, skips picocli when its arguments are plain ({@link VerifyCommand#fastParse}),
     * and is otherwise built alone: picocli's model costs about 0.1 s of start-up per command.
     */
    public static int execute(String... args) {
        boolean verifyOnly = args.length > 0 && args[0].equals("verify");
        if (verifyOnly) {
            VerifyCommand fast = VerifyCommand.fastParse(Arrays.copyOfRange(args, 1, args.length));
            if (fast != null) return fast.call();
        }
        CommandLine cl = verifyOnly ? new CommandLine(new VerifyCommand()).setCommandName("cobra verify") : new CommandLine(new CobraCommand());
        if (verifyOnly) args = Arrays.copyOfRange(args, 1, args.length);
        cl.setExitCodeExceptionMapper(e -> 2);
        // a cluster that refuses us (credentials, ACLs) or settings that cannot be used: a sentence and exit 2, no stack trace
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            String said = kafkaProblem(ex, cmd);
            if (said == null) throw ex;
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + said);
            return 2;
        });
        // every numeric option is checked before any command runs: a meaningless value is refused, naming the option
        cl.setExecutionStrategy(parsed -> {
            String bad = NumericOptions.problem(parsed);
            if (bad == null) return new CommandLine.RunLast().execute(parsed);
            CommandLine last = parsed.asCommandLineList().get(parsed.asCommandLineList().size() - 1);
            last.getErr().println(last.getCommandSpec().qualifiedName() + ": " + bad);
            last.getErr().println("Try '" + last.getCommandSpec().qualifiedName() + " --help'.");
            return 2;
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("cobra: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return 2;
        });
        return cl.execute(args);
    }
}
