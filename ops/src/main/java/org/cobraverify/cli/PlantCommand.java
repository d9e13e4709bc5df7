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
@Command(name = "plant", mixinStandardHelpOptions = true,
        description = {"Writes a cobra-jsonl history with known violations planted into it (each on keys of its own, in sessions live at its point).",
                "Then: cobra verify --rounds 5000 --json OUT"})
public final class PlantCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN", description = "A cobra-jsonl history (as cobra record writes).")
    Path in;

    @Option(names = "--anomaly", required = true, paramLabel = "KIND@FRACTION",
            description = "An anomaly to plant, and where (a fraction of the history): lost-update, write-skew, g1c or long-fork; e.g. lost-update@0.2. Repeatable.")
    List<String> anomalies;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "History file to write (.gz compresses).")
    Path out;

    @Override
    public Integer call() throws Exception {
        List<PlantedAnomalies.Plant> plants = new ArrayList<>();
        for (String a : anomalies) {
            try {
                plants.add(PlantedAnomalies.Plant.parse(a));
            } catch (IllegalArgumentException e) {
                System.err.println("cobra plant: --anomaly " + a + ": " + e.getMessage());
                return 2;
            }
        }
        List<Transaction> txns = new ArrayList<>();
        try {
            CobraJsonlReader.stream(in, (t, line) -> txns.add(t));
        } catch (MalformedHistoryException e) {
            System.err.println("cobra plant: " + e.getMessage());
            return 2;
        }
        List<Transaction> planted;
        try {
            planted = PlantedAnomalies.plant(txns, plants);
        } catch (IllegalArgumentException e) {
            System.err.println("cobra plant: " + e.getMessage());
            return 2;
        }
        ExportCommand.write(planted, out);
        System.out.printf("planted %d anomalies into %d transactions: %s%n", plants.size(), txns.size(), out);
        for (int i = 0; i < plants.size(); i++)
            System.out.printf("  %s at %.0f%% (keys and ids planted:%d:%s:*)%n", plants.get(i).kind().word(), 100 * plants.get(i).at(), i, plants.get(i).kind().word());
        return 0;
    }
}
