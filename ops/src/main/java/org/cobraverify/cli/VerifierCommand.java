package org.cobraverify.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.service.VerifierService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cobra verifier}: the round-verifier service against a cluster. */
@Command(name = "verifier", mixinStandardHelpOptions = true, footer = "Exit codes: 0 stopped cleanly, 2 could not run (bad options, the cluster unreachable or refusing, the store locked).",
        description = "Runs the round verifier: checks each round of cobra.rounds and publishes one verdict per round to cobra.verdicts.")
public final class VerifierCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--id", description = {"Transactional id (default: ${DEFAULT-VALUE}). Several verifiers with one id: one works,",
            "the others stand by and one takes over (from the checkpoint) when it goes; give them the same --state-dir where they share a disk."})
    String id = "cobra-verifier-0";

    @Option(names = "--group", description = "Consumer group holding the committed offset (default: ${DEFAULT-VALUE}).")
    String group = "cobra-verifier";

    @picocli.CommandLine.Mixin
    RoundCheckOptions check = new RoundCheckOptions();

    @Option(names = "--gpu", paramLabel = "MODE", description = GpuOption.DESCRIPTION)
    String gpu = "auto";

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Where the collected writes live on disk, kept across restarts (default: ${DEFAULT-VALUE}).")
    Path stateDir = StateDirectory.of("verifier");

    @Option(names = "--checkpoint-every", paramLabel = "ROUNDS", description = "Publish the verifier's state to cobra.gc-frontiers every N rounds; 0: never (default: ${DEFAULT-VALUE}). A restart resumes from the latest one.")
    int checkpointEvery = VerifierService.DEFAULT_CHECKPOINT_EVERY;

    @Option(names = "--remember-hours", paramLabel = "H", description = {"How long collected writes are remembered on disk (default: ${DEFAULT-VALUE}, the",
            "history topics' default retention). A later read of a write collected longer ago makes the verdict unknown."})
    double rememberHours = VerifierService.DEFAULT_REMEMBER_MILLIS / 3_600_000.0;

    @Override
    public Integer call() {
        try {
            check.resolveIsolation();
        } catch (IllegalArgumentException e) {
            System.err.println("cobra verifier: " + e.getMessage());
            return 2;
        }
        if (!(rememberHours > 0)) {
            System.err.println("cobra verifier: --remember-hours takes a positive number of hours");
            return 2;
        }
        ReachabilityEngine reach = GpuOption.resolve(gpu, "verifier", System.err);
        if (reach == null) return 2;
        VerifierService.Settings s = new VerifierService.Settings(kafkaOptions.reachableConnection(), "cobra.rounds", "cobra.verdicts", "cobra.dead-letters", group, id)
                .withState(stateDir, checkpointEvery).withRememberHours(rememberHours);
        var checkSettings = check.settings(CheckOptions.defaults().withReachability(reach));
        AtomicReference<VerifierService> current = new AtomicReference<>();
        AtomicBoolean stopping = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping.set(true);
            VerifierService v = current.get();
            if (v != null) v.stop();
        }));
        System.err.println("cobra verifier: consuming cobra.rounds on " + s.kafka() + " as " + id + " (collected writes in " + stateDir + ")");
        // active or standby: whichever verifier of this id owns cobra.rounds works; one that loses it (fenced, or paused past
        // its session) publishes nothing more and stands by again, with a fresh service
        while (!stopping.get()) {
            VerifierService v = new VerifierService(s, checkSettings, x -> System.out.println(VerdictLines.full(x)));
            current.set(v);
            if (stopping.get()) break;
            report(v);
            try {
                v.run();
                break;
            } catch (VerifierService.OwnershipLost e) {
                System.err.println("cobra verifier: " + e.getMessage() + "; standing by");
            }
        }
        return 0;
    }

    private static void report(VerifierService v) {
        Thread report = new Thread(() -> {
            try {
                while (v.resumedFromRound() < 0 && v.replayedRecords() == 0) Thread.sleep(200);
                if (v.resumedFromRound() >= 0)
                    System.err.printf("cobra verifier: resumed from the checkpoint of round %d in %.2f s (restart %d; %.1f s after the process started)%n",
                            v.resumedFromRound(), v.resumeSeconds(), v.restarts(), ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
            } catch (InterruptedException ignored) {
                // exiting
            }
        }, "cobra-verifier-report");
        report.setDaemon(true);
        report.start();
    }
}
