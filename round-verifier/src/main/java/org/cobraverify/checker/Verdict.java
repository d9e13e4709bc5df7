package org.cobraverify.checker;

import java.util.List;

/**
 * The checker's answer: accept (with a witness serial order), reject (with a certificate) or unknown
 * (with the reason the budget gave). Notes carry what the reader or checker wants the user to know. A reject may carry
 * {@code moreViolations}: others found with the first, each a violation on its own facts, with its own certificate
 * (a verifier in rounds sets them all aside at once, docs/DESIGN.md §7.10); empty otherwise.
 */
public record Verdict(Outcome outcome, Certificate certificate, int[] witness, String unknownReason, CheckStats stats, List<String> notes,
                      List<Certificate> moreViolations) {
    public Verdict(Outcome outcome, Certificate certificate, int[] witness, String unknownReason, CheckStats stats, List<String> notes) {
        this(outcome, certificate, witness, unknownReason, stats, notes, List.of());
    }

    public enum Outcome {
        ACCEPT("accept", 0), REJECT("reject", 1), UNKNOWN("unknown", 3);

        private final String word;
        private final int exitCode;

        Outcome(String word, int exitCode) { this.word = word; this.exitCode = exitCode; }

        public String word() { return word; }

        /** The exit code of {@code cobra verify} for this outcome. */
        public int exitCode() { return exitCode; }
    }
}
