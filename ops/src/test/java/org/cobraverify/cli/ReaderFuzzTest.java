package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.cobraverify.io.HistoryFormat;

/**
 * Fuzzing every reader through {@code cobra verify}: inputs broken by one to three {@link Mutation}s of the
 * built-in samples, examples/ and ../shared/data (when present) must end in exit 0-3, with no stack trace and
 * no hang, and a refusal must name the input. jqwik generates the mutations and shrinks a failing list to a
 * smallest one. {@code cobra fuzz} runs the same at campaign size (10,000 inputs per reader).
 */
class ReaderFuzzTest {
    private static List<FuzzSamples.Sample> samples;
    private static Path scratch;
    private static FuzzTarget target;

    @BeforeContainer
    static void setUp() throws Exception {
        Path root = Paths.get("").toAbsolutePath();
        if (!Files.isDirectory(root.resolve("examples"))) root = root.getParent(); // Surefire runs in the module directory
        samples = FuzzSamples.all(root);
        scratch = Files.createTempDirectory("cobra-fuzz-test");
        target = new FuzzTarget(scratch, 30);
    }

    @AfterContainer
    static void tearDown() throws Exception {
        target.close();
        RecordCommand.deleteTree(scratch);
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> one = Combinators.combine(Arbitraries.of(Mutation.Kind.class), Arbitraries.integers(), Arbitraries.integers())
                .as(Mutation::new);
        return one.list().ofMinSize(1).ofMaxSize(3);
    }

    private static void survives(HistoryFormat f, int pick, List<Mutation> ms) throws Exception {
        List<FuzzSamples.Sample> mine = FuzzSamples.of(samples, f);
        assertTrue(!mine.isEmpty(), "a built-in sample for every reader");
        FuzzSamples.Sample s = mine.get(Math.floorMod(pick, mine.size()));
        FuzzTarget.Outcome o = target.run(s, ms);
        assertNull(o.problem(), s.name() + " " + ms + ": " + o.problem() + "\n" + o.err() + o.out());
    }

    @Property(tries = 250)
    void cobraJsonl(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.COBRA_JSONL, pick, ms); }

    @Property(tries = 250)
    void cobraLog(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.COBRA_LOG, pick, ms); }

    @Property(tries = 250)
    void dbcop(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.DBCOP, pick, ms); }

    @Property(tries = 250)
    void polysi(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.POLYSI, pick, ms); }

    @Property(tries = 250)
    void elleEdn(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.ELLE_EDN, pick, ms); }

    @Property(tries = 250)
    void elleJson(@ForAll int pick, @ForAll("mutations") List<Mutation> ms) throws Exception { survives(HistoryFormat.ELLE_JSON, pick, ms); }

    /** The samples themselves are well-formed: unbroken, each is read and decided (never refused). */
    @net.jqwik.api.Example
    void unbrokenSamplesAreRead() throws Exception {
        for (FuzzSamples.Sample s : samples) {
            FuzzTarget.Outcome o = target.run(s, List.of());
            assertNull(o.problem(), s.name());
            assertTrue(o.exit() == 0 || o.exit() == 1, s.name() + ": exit " + o.exit() + "\n" + o.err() + o.out());
        }
    }

    /** One bad file in a multi-path run does not stop the others. */
    @net.jqwik.api.Example
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
