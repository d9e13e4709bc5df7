package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The launcher's JVM options ({@code ops/cobra}, printed with {@code COBRA_PRINT_JAVA=1}, which builds and runs nothing):
 * {@code COBRA_JAVA_OPTS} comes after the launcher's own options, so capping the heap keeps the collector and the stack
 * size; a collector of the user's replaces the launcher's, and a heap size of the user's replaces its heap sizing (either
 * clash would keep the JVM from starting).
 */
class LauncherOptionsTest {
    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("cobra");

    private static List<String> javaLine(String userOpts, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", LAUNCHER.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("COBRA_PRINT_JAVA", "1");
        if (userOpts == null) pb.environment().remove("COBRA_JAVA_OPTS");
        else pb.environment().put("COBRA_JAVA_OPTS", userOpts);
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the launcher did not end");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("java "), out);
        String[] words = out.split(" ");
        int cp = List.of(words).indexOf("-cp");
        assertEquals(NATIVE_ACCESS, words[1], "native access first, for every command: " + out);
        return List.of(words).subList(2, cp);
    }

    /** RocksDB's native library is loaded by the class path's code: enabled, so that JDK 22 and later neither warn nor, later, refuse. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /** The option the launcher passes to every command is one the JVM running the tests (Java 17 or later) accepts. */
    @Test
    void theJvmAcceptsNativeAccessForTheClassPath() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), NATIVE_ACCESS, "-version").redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "java -version did not end");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("WARNING") || out.contains("Unrecognized"), out);
    }

    @Test
    void theLauncherFindsItsJarsThroughAChainOfSymlinksFromAnyDirectory(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        // cobra on the PATH as a link to a link (the second one relative), run from a directory far from the checkout
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(dir.resolve("real-cobra"), LAUNCHER);
        Files.createSymbolicLink(bin.resolve("cobra"), Path.of("..", "real-cobra"));
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "cobra verify x.jsonl").directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("COBRA_PRINT_JAVA", "1");
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the launcher did not end");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), out);
        Path target = LAUNCHER.toRealPath().getParent().resolve("target");
        assertTrue(out.contains("-cp " + target.resolve("cobra-verify.jar") + ":" + target.resolve("cobra.jar")), out);
    }

    @Test
    void aHeapCapKeepsTheLaunchersCollectorAndStack() throws Exception {
        assertTrue(Files.isRegularFile(LAUNCHER), "the launcher: " + LAUNCHER);
        List<String> o = javaLine("-Xmx1g", "verify", "--rounds", "5000", "history.jsonl");
        assertTrue(o.contains("-XX:+UseParallelGC"), o.toString());
        assertTrue(o.contains("-Xss16m"), o.toString());
        assertEquals("-Xmx1g", o.get(o.size() - 1), "the user's options come last: " + o);
        List<String> expected = new java.util.ArrayList<>(List.of("-Xss16m", "-XX:+UseParallelGC"));
        if (workingSize() > 0) expected.add("-Xms1024m");
        assertEquals(expected, o.stream().filter(x -> !x.startsWith("-XX:+UseTransparent") && !x.equals("-Xmx1g")).toList(),
                "nothing else for a verify in rounds but its heap starting at the cap: " + o);
    }

    /** The working size (MB) the launcher starts bench's heap at on this machine; 0 on a machine too small for one. */
    private static long workingSize() throws Exception {
        return javaLine(null, "bench", "--help").stream().filter(x -> x.startsWith("-Xms")).mapToLong(x -> Long.parseLong(x.replaceAll("[^0-9]", "")))
                .findFirst().orElse(0);
    }

    /**
     * A long check under a heap cap starts its heap at the cap, or at bench's working size when the cap is larger (a cap is
     * a limit: started at it, a large heap's young generation alone is touched whole between two collections); an initial
     * size of the user's, a short check, other commands and a machine too small for a working size keep the JVM's own start.
     */
    @Test
    void aLongCheckUnderAHeapCapStartsItsHeapAtTheCap() throws Exception {
        long work = workingSize();
        List<String> two = javaLine("-Xmx2G -XX:+UseG1GC", "verify", "--rounds", "5000", "h.jsonl");
        List<String> huge = javaLine("-Xmx64g", "verify", "--rounds", "5000", "h.jsonl");
        if (work > 0) {
            assertTrue(two.contains("-Xms" + Math.min(2048, work) + "m"), two.toString());
            assertTrue(huge.contains("-Xms" + work + "m"), "at most the working size, not the cap: " + huge);
        } else {
            assertFalse(two.stream().anyMatch(x -> x.startsWith("-Xms")), two.toString());
        }
        List<String> theirs = javaLine("-Xmx1g -Xms256m", "verify", "--rounds", "5000", "h.jsonl");
        assertEquals(List.of("-Xms256m"), theirs.stream().filter(x -> x.startsWith("-Xms")).toList(), theirs.toString());
        List<String> pct = javaLine("-Xmx1g -XX:InitialRAMPercentage=5", "verify", "--rounds", "5000", "h.jsonl");
        assertFalse(pct.stream().anyMatch(x -> x.startsWith("-Xms")), pct.toString());
        assertFalse(javaLine(null, "verify", "--rounds", "5000", "h.jsonl").stream().anyMatch(x -> x.startsWith("-Xms")), "no cap, no start size");
        assertFalse(javaLine("-Xmx1g", "verify", "no-such-small-file.jsonl").stream().anyMatch(x -> x.startsWith("-Xms")), "a short check");
        assertFalse(javaLine("-Xmx1g", "serve", "--help").stream().anyMatch(x -> x.startsWith("-Xms")), "another command");
    }

    @Test
    void theUsersCollectorReplacesTheLaunchers() throws Exception {
        List<String> o = javaLine("-Xmx1g -XX:+UseG1GC", "verify", "--rounds", "5000", "history.jsonl");
        assertTrue(o.contains("-XX:+UseG1GC"), o.toString());
        assertFalse(o.contains("-XX:+UseParallelGC"), "two collectors would not start: " + o);
        assertTrue(o.contains("-Xss16m"), o.toString());
    }

    @Test
    void theUsersHeapSizeReplacesTheLaunchersHeapSizing() throws Exception {
        List<String> mine = javaLine(null, "bench", "--help"), capped = javaLine("-Xmx256m", "bench", "--help");
        assertTrue(capped.contains("-Xmx256m"), capped.toString());
        assertFalse(capped.stream().anyMatch(x -> x.startsWith("-Xms") || x.startsWith("-Xmn") || (x.startsWith("-Xmx") && !x.equals("-Xmx256m"))),
                "an -Xms or -Xmn of the launcher's above the user's -Xmx would not start: " + capped);
        assertTrue(capped.contains("-XX:+UseParallelGC"), capped.toString());
        // on a machine with 8 GiB or more the launcher sizes bench's heap itself; then the user's cap replaced it
        if (mine.stream().anyMatch(x -> x.startsWith("-Xms"))) assertTrue(mine.stream().anyMatch(x -> x.startsWith("-Xmn")), mine.toString());
    }

    @Test
    void aSmallOneShotCheckKeepsTheSerialCollectorAndC1UnderAHeapCap() throws Exception {
        List<String> o = javaLine("-Xmx64m", "verify", "no-such-small-file.jsonl");
        assertEquals(List.of("-Xss16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m"), o);
    }
}
