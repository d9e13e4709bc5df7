package org.cobraverify.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.testkit.Histories;
import org.cobraverify.testkit.WitnessReplayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every third-party history in {@code ../shared/data} gets the verdict listed in its README. The
 * corpus sits beside development and CI checkouts only; without it these tests skip, saying so.
 */
class SharedCorpusTest {
    static Stream<Arguments> corpus() {
        return Stream.of(
                Arguments.of("cobra-logs/one-shot/chengRW-100", true),
                Arguments.of("cobra-logs/one-shot/chengRW-1000", true),
                Arguments.of("cobra-logs/one-shot/chengRW-4000", true),
                Arguments.of("cobra-logs/one-shot/chengRW-10000", true),
                Arguments.of("cobra-logs/one-shot/chengRM-10000", true),
                Arguments.of("cobra-logs/one-shot/rubis-10000", true),
                Arguments.of("cobra-logs/one-shot/twitter-10000", true),
                Arguments.of("cobra-logs/one-shot/tpcc-10000", true),
                Arguments.of("cobra-logs/ser-violation/cock-G2", false),
                Arguments.of("cobra-logs/ser-violation/cock-blog", false),
                Arguments.of("histories/polysi/galera.txt", false),
                Arguments.of("histories/polysi/yugabyte.txt", false),
                Arguments.of("histories/dbcop/roachdb_all_writes-3_30_20_180-hist-00000.bincode", false),
                Arguments.of("histories/dbcop/roachdb_partition_writes-3_30_20_180-hist-00001.bincode", true),
                Arguments.of("histories/dbcop/galera_all_writes-3_30_20_180-hist-00004.bincode", false),
                Arguments.of("histories/grail-rw-register/dirty-read.edn", false),
                Arguments.of("histories/grail-rw-register/g-single.edn", false),
                Arguments.of("histories/grail-rw-register/g0.edn", false),
                Arguments.of("histories/grail-rw-register/g1a.edn", false),
                Arguments.of("histories/grail-rw-register/g1b-1.edn", false),
                Arguments.of("histories/grail-rw-register/g1b-2.edn", true),
                Arguments.of("histories/grail-rw-register/g1c.edn", true),
                Arguments.of("histories/grail-rw-register/long-fork.edn", false),
                Arguments.of("histories/grail-rw-register/lost-update.edn", false),
                Arguments.of("histories/grail-rw-register/non-repeatable-read.edn", false),
                Arguments.of("histories/grail-rw-register/write-skew.edn", false),
                Arguments.of("histories/elle/rw-register.edn", false),
                Arguments.of("histories/elle/rw-register.json", false),
                Arguments.of("histories/elle/paper-example.edn", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void verdictAsListed(String rel, boolean serializable) throws Exception {
        Path shared = Histories.shared();
        assumeTrue(shared != null, "../shared/data is not beside this checkout (it exists only in development and CI)");
        Path p = shared.resolve("data").resolve(rel);
        assumeTrue(Files.exists(p), p + " is not in this copy of the shared corpus");
        HistoryReaders.Loaded l = HistoryReaders.read(p);
        Verdict v = Checker.check(l.history());
        assertEquals(serializable ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT, v.outcome(),
                () -> rel + ": " + (v.certificate() == null ? "" : v.certificate().summary()));
        if (serializable) assertNull(WitnessReplayer.problem(l.history(), v.witness()), rel);
    }

    @org.junit.jupiter.api.Test
    void everyCorpusFileIsListed() throws Exception {
        Path shared = Histories.shared();
        assumeTrue(shared != null, "../shared/data is not beside this checkout (it exists only in development and CI)");
        Set<String> listed = new HashSet<>();
        corpus().forEach(a -> listed.add((String) a.get()[0]));
        try (Stream<Path> s = Files.walk(shared.resolve("data/histories"))) {
            s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().equals("README.md")).forEach(f ->
                    assertEquals(true, listed.contains(shared.resolve("data").relativize(f).toString()), "not covered by a test: " + f));
        }
        try (Stream<Path> s = Files.list(shared.resolve("data/cobra-logs/one-shot"))) {
            s.forEach(d -> assertEquals(true, listed.contains(shared.resolve("data").relativize(d).toString()), "not covered by a test: " + d));
        }
    }
}
