package org.cobraverify.cli;

import java.util.Collection;
import java.util.Set;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Every numeric option of every command, checked once after parsing and before the command runs: a value that is not a
 * number ({@code NaN}), infinite, negative, or zero where zero means nothing, is refused with the option named (exit 2),
 * instead of quietly meaning "no limit" or "one-shot". The few options where zero means something say so here and in
 * their help; a probability must also be at most 1.
 */
final class NumericOptions {
    private NumericOptions() {}

    /** Options where 0 has a meaning their help gives (a free port, none, never, the first round, no allowance). */
    static final Set<String> ZERO_MEANS_SOMETHING = Set.of("--port", "--serve", "--metrics-port", "--fault-rate", "--session-txns", "--fence-every",
            "--from-round", "--to-round", "--max-round", "--certificate-budget", "--drift", "--stats-every", "--checkpoint-every");

    /** Options that take any value (a seed). */
    static final Set<String> ANY_VALUE = Set.of("--seed");

    /** Options that are probabilities: at most 1. */
    static final Set<String> PROBABILITIES = Set.of("--fault-rate");

    /** What is wrong with the numeric options of {@code parsed} and its subcommands, for a person; null when nothing is. */
    static String problem(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand())
            for (OptionSpec o : p.matchedOptions()) {
                Object v = o.getValue();
                String name = o.longestName();
                if (v instanceof Number n) {
                    String bad = problem(name, n.doubleValue(), String.join(" ", o.stringValues()));
                    if (bad != null) return bad;
                } else if (v instanceof Collection<?> c) {
                    for (Object e : c)
                        if (e instanceof Number n) {
                            String bad = problem(name, n.doubleValue(), String.valueOf(e));
                            if (bad != null) return bad;
                        }
                }
            }
        return null;
    }

    /** What is wrong with {@code value} for option {@code name} (as given: {@code given}); null when nothing is. */
    static String problem(String name, double value, String given) {
        if (ANY_VALUE.contains(name)) return null;
        if (Double.isNaN(value) || Double.isInfinite(value)) return name + " must be a finite number, not '" + given + "'";
        if (value < 0) return name + " must not be negative (given '" + given + "')";
        if (value == 0 && !ZERO_MEANS_SOMETHING.contains(name)) return name + " must be greater than 0 (given '" + given + "')";
        if (value > 1 && PROBABILITIES.contains(name)) return name + " is a probability: at most 1 (given '" + given + "')";
        return null;
    }
}
