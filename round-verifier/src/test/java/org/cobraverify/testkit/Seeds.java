package org.cobraverify.testkit;

import java.util.stream.LongStream;

/**
 * Seeds for generated test cases, one JUnit 5 {@code @ParameterizedTest} invocation per seed:
 *
 * <pre>{@code
 * static LongStream seeds() { return Seeds.of(250); }
 *
 * @ParameterizedTest(name = Seeds.NAME)
 * @MethodSource("seeds")
 * void property(long seed) { Random rnd = new Random(seed); ... assert...(..., Seeds.rerun(seed)); }
 * }</pre>
 *
 * <p>Contract: {@link #of} gives the seeds {@code 1..count}, so a build runs the same cases every time; a case is
 * a pure function of its seed (the test makes everything random from {@code new Random(seed)} or a value derived
 * only from it). Every failure names its seed twice, in the invocation's display name ({@link #NAME}) and in the
 * assertion's message ({@link #rerun}); {@code -Dcobra.seed=N} runs seed N alone in every test that takes its seeds
 * here, for example {@code mvn -B -ntp test -pl ops -am -Dtest=ReaderFuzzTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dcobra.seed=N}.
 */
public final class Seeds {
    private Seeds() {}

    /** The system property that reruns one seed. */
    public static final String PROPERTY = "cobra.seed";

    /** The display name of an invocation: its seed. */
    public static final String NAME = "seed {0}";

    /** Seeds {@code 1..count}, or only the one {@code -Dcobra.seed=N} names. */
    public static LongStream of(int count) {
        String one = System.getProperty(PROPERTY);
        if (one != null && !one.isBlank()) return LongStream.of(Long.parseLong(one.trim()));
        return LongStream.rangeClosed(1, count);
    }

    /** For an assertion's message: the seed and how to rerun it alone. */
    public static String rerun(long seed) { return "seed " + seed + " (rerun alone with -D" + PROPERTY + "=" + seed + ")"; }
}
