package org.cobraverify.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.cobraverify.io.CobraJsonlReader;
import org.cobraverify.io.MalformedHistoryException;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.synth.PlantedAnomalies;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cobra plant}: a cobra-jsonl history with known violations inserted ({@link PlantedAnomalies}), to see the
 * verifier (or an alert on its verdicts) find each one: {@code cobra verify --rounds N --json} lists them as
 * {@code violations}.
 */
@Command(name = "plant", mixinStandardHelpOptions = true, footer = "Exit codes: 0 written, 2 could not run (bad options, the file not writable).",
        description = {"Writes a cobra-jsonl history with known violations planted into it (each on keys of its own, in sessions live at its point).",
                "Then: cobra verify --rounds 5000 --json OUT"})
public final class PlantCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN", description = "A cobra-jsonl history (as cobra record writes).")
    Path in;

    @Option(names = "--anomaly", paramLabel = "KIND@FRACTION",
            description = "An anomaly to plant, and where (a fraction of the history): lost-update, write-skew, g1c or long-fork; e.g. lost-update@0.2. Repeatable.")
    List<String> anomalies = new ArrayList<>();

    @Option(names = "--every", paramLabel = "N",
            description = "Also plant an anomaly every N transactions, the four kinds in turn (from transaction N on).")
    int every;

    @Option(names = "--read-again", paramLabel = "N",
            description = {"Use each anomaly's keys again later, as a hot row is: N transactions after it a transaction reads its planted writes",
                    "and writes the keys anew, and 4N after it another reads those writes (neither is a violation)."})
    int readAgain;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "History file to write (.gz compresses).")
    Path out;

    @Override
    public Integer call() throws Exception {
        String refused = OutputFiles.refusal(out, OutputFiles.Kind.HISTORY);
        if (refused != null) {
            System.err.println("cobra plant: " + refused);
            return 2;
        }
        List<PlantedAnomalies.Plant> plants = new ArrayList<>();
        for (String a : anomalies) {
            try {
                plants.add(PlantedAnomalies.Plant.parse(a));
            } catch (IllegalArgumentException e) {
                System.err.println("cobra plant: --anomaly " + a + ": " + e.getMessage());
                return 2;
            }
        }
        if (every < 0 || readAgain < 0) {
            System.err.println("cobra plant: --every and --read-again take a positive number of transactions");
            return 2;
        }
        List<Transaction> txns = new ArrayList<>();
        try {
            CobraJsonlReader.stream(in, (t, line) -> txns.add(t));
        } catch (MalformedHistoryException e) {
            System.err.println("cobra plant: " + e.getMessage());
            return 2;
        }
        if (every > 0)
            for (int i = every, k = 0; i < txns.size(); i += every, k++)
                plants.add(new PlantedAnomalies.Plant(PlantedAnomalies.Kind.values()[k % PlantedAnomalies.Kind.values().length], (double) i / txns.size()));
        if (plants.isEmpty()) {
            System.err.println("cobra plant: nothing to plant: give --anomaly KIND@FRACTION or --every N");
            return 2;
        }
        List<Transaction> planted;
        try {
            planted = PlantedAnomalies.plant(txns, plants, readAgain);
        } catch (IllegalArgumentException e) {
            System.err.println("cobra plant: " + e.getMessage());
            return 2;
        }
        ExportCommand.write(planted, out);
        System.out.printf("planted %d anomalies into %d transactions: %s%n", plants.size(), txns.size(), out);
        for (int i = 0; i < Math.min(20, plants.size()); i++)
            System.out.printf("  %s at %.1f%% (keys and ids planted:%d:%s:*)%n", plants.get(i).kind().word(), 100 * plants.get(i).at(), i, plants.get(i).kind().word());
        if (plants.size() > 20) System.out.printf("  ... and %d more%n", plants.size() - 20);
        if (readAgain > 0) System.out.printf("  each anomaly's keys used again %d and %d transactions after it%n", readAgain, 4 * readAgain);
        return 0;
    }
}
