package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.cobraverify.io.HistoryFormat;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzzing every reader through {@code cobra verify}: inputs broken by one to three {@link Mutation}s of the
 * built-in samples, examples/ and ../shared/data (when present) must end in exit 0-3, with no stack trace and
 * no hang, and a refusal must name the input. 250 seeded cases per reader ({@link Seeds}: a failure names its
 * seed, {@code -Dcobra.seed=N} reruns it); the case is drawn by {@link Mutation#randomList}, the generator of
 * {@code cobra fuzz}, which runs the same at campaign size (10,000 inputs per reader).
 */
class ReaderFuzzTest {
    private static List<FuzzSamples.Sample> samples;
    private static Path scratch;
    private static FuzzTarget target;

    @BeforeAll
    static void setUp() throws Exception {
        Path root = Paths.get("").toAbsolutePath();
        if (!Files.isDirectory(root.resolve("examples"))) root = root.getParent(); // Surefire runs in the module directory
        samples = FuzzSamples.all(root);
        scratch = Files.createTempDirectory("cobra-fuzz-test");
        target = new FuzzTarget(scratch, 30);
    }

    @AfterAll
    static void tearDown() throws Exception {
        target.close();
        RecordCommand.deleteTree(scratch);
    }

    /** 250 seeded cases for every reader. */
    static Stream<Arguments> cases() {
        return Arrays.stream(HistoryFormat.values()).flatMap(f -> Seeds.of(250).mapToObj(seed -> Arguments.of(f, seed)));
    }

    /** The case of {@code seed} for reader {@code f}: a sample of that reader and one to three mutations of it. */
    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void everyReaderSurvivesBrokenInput(HistoryFormat f, long seed) throws Exception {
        List<FuzzSamples.Sample> mine = FuzzSamples.of(samples, f);
        assertTrue(!mine.isEmpty(), "a built-in sample for every reader");
        Random rnd = new Random(seed * 31 + f.ordinal());
        FuzzSamples.Sample s = mine.get(rnd.nextInt(mine.size()));
        List<Mutation> ms = Mutation.randomList(rnd);
        FuzzTarget.Outcome o = target.run(s, ms);
        assertNull(o.problem(), f.cliName() + " " + Seeds.rerun(seed) + ": " + s.name() + " " + ms + ": " + o.problem() + "\n" + o.err() + o.out());
    }

    /** The samples themselves are well-formed: unbroken, each is read and decided (never refused). */
    @Test
    void unbrokenSamplesAreRead() throws Exception {
        for (FuzzSamples.Sample s : samples) {
            FuzzTarget.Outcome o = target.run(s, List.of());
            assertNull(o.problem(), s.name());
            assertTrue(o.exit() == 0 || o.exit() == 1, s.name() + ": exit " + o.exit() + "\n" + o.err() + o.out());
        }
    }

    /** One bad file in a multi-path run does not stop the others. */
    @Test
    void aBadFileAmongGoodOnesStopsNothing() throws Exception {
        Path good = Files.writeString(scratch.resolve("good.jsonl"),
                "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1]]}\n");
        Path bad = Files.writeString(scratch.resolve("bad.txt"), "w(1,99999999999999999999999,1,1)\n");
        VerifyCommandTest.Run r = VerifyCommandTest.cobra("verify", "--json", bad.toString(), good.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("bad.txt") && r.out().contains("line 1") && r.out().contains("64 bits"), r.out());
        assertTrue(r.out().contains("\"verdict\":\"accept\""), "the good file is still checked: " + r.out());
    }
}
