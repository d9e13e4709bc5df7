package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CLI and the in-process pipeline (this module's main sources) reach the verifier through its entrance,
 * {@code org.cobraverify.verifier}, and otherwise name only the vocabulary it speaks: the types listed here, each with
 * why. Nothing of garbage collection, its store or the solver is named here; a new import of the verifier's module must
 * be added to this list with its reason, or go through the entrance.
 */
class CliImportsTest {
    static final Map<String, String> VOCABULARY = Map.ofEntries(
            Map.entry("history.History", "the input of every check"),
            Map.entry("checker.Verdict", "the output of every check"),
            Map.entry("checker.Certificate", "a violation's proof, rendered by the CLI"),
            Map.entry("checker.AnomalyKind", "the taxonomy, named on pages and in the survey"),
            Map.entry("checker.IsolationLevel", "the ladder's levels, parsed from --isolation"),
            Map.entry("checker.CheckOptions", "the check's budget and switches"),
            Map.entry("checker.CheckStats", "a check's figures, printed by bench"),
            Map.entry("checker.AllViolations", "its Result: the violations after the first"),
            Map.entry("checker.Isolation", "its Ladder: a history at every level"),
            Map.entry("checker.ReachabilityEngine", "the reachability engine a --gpu option plugs in (the gpu module implements it)"),
            Map.entry("checker.CrossCheckedReachability", "its Disagreement: the GPU and CPU disagreed, no verdict"),
            Map.entry("rounds.RoundResult", "one round's outcome"),
            Map.entry("rounds.RoundSettings", "the rounds' settings, which the service and demo take"),
            Map.entry("rounds.RoundsRun", "a whole run in rounds"),
            Map.entry("rounds.RoundsDifferential", "its Result and Totals, summed by bench --differential"),
            Map.entry("service.VerifierService", "the service the verifier command and the demo run"),
            Map.entry("service.Replay", "a past window decided again (made by Verifier.replay)"),
            Map.entry("synth.SyntheticWorkloads", "bench's generated histories"),
            Map.entry("synth.PlantedAnomalies", "cobra plant's anomalies"));

    private static final Pattern IMPORT = Pattern.compile(
            "^import (?:static )?org\\.cobraverify\\.((?:history|solver|checker|synth|io|report|gc|rounds|service|verifier)(?:\\.[a-z]+)*)\\.([A-Z]\\w*)",
            Pattern.MULTILINE);

    @Test
    void theCliUsesTheEntranceAndItsVocabularyOnly() throws IOException {
        Map<String, TreeSet<String>> outside = new TreeMap<>();
        TreeSet<String> packages = new TreeSet<>();
        Path root = Path.of("src/main/java");
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java"))::iterator) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String pkg = m.group(1), type = pkg + "." + m.group(2);
                    packages.add(pkg);
                    if (pkg.equals("verifier") || pkg.equals("io") || pkg.equals("report") || VOCABULARY.containsKey(type)) continue;
                    outside.computeIfAbsent(type, k -> new TreeSet<>()).add(root.relativize(f).toString());
                }
            }
        }
        assertTrue(packages.contains("verifier"), "the walk found no use of the entrance: " + packages);
        assertEquals(Map.of(), outside, "imports of the verifier's internals (use org.cobraverify.verifier, or list the type with its reason)");
        for (String forbidden : new String[] {"gc", "gc.store", "solver"})
            assertTrue(!packages.contains(forbidden), "the CLI imports org.cobraverify." + forbidden);
    }
}
