package org.cobraverify.cli;

import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code cobra} command: checks histories of transactional key-value stores for serializability. */
@Command(name = "cobra", mixinStandardHelpOptions = true, version = "cobra 0.1.0",
        description = "Black-box serializability checking of transactional key-value stores.",
        subcommands = {VerifyCommand.class, FuzzCommand.class, DemoCommand.class, RecordCommand.class, TopologyCommand.class, VerifierCommand.class, VerdictsCommand.class, ReplayCommand.class, ExportCommand.class, BenchCommand.class, OverheadCommand.class, BrokerCommand.class, CommandLine.HelpCommand.class})
public final class CobraCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(execute(args));
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
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("cobra: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return 2;
        });
        return cl.execute(args);
    }
}
