package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.Verdict;

/**
 * The violations a verifier in rounds has found (docs/DESIGN.md §7.10): those of the round being ended (each set aside before
 * the round's result is made), how many the history has had and the first one's round, and why verification stopped when
 * one could not be set aside. Once the history has a violation, every round's outcome is a reject (the history as a whole is
 * not serializable), and its reason says what became of the round's own transactions.
 */
final class Violations {
    Violations(String levelSatisfied) { this.levelSatisfied = levelSatisfied.replace(" (strictly)", " strictly"); }

    /** Violations set aside in one round; past this many, verification stops (the database is broken wholesale). */
    static final int MAX_PER_ROUND = 256;

    /** How the verdicts say the level holds ({@link RoundSettings#satisfied}), for "the history is not ...". */
    private final String levelSatisfied;
    private List<Certificate> round = List.of();
    private long total, firstRound = -1;
    /** Why verification stopped after a violation (none could be set aside), with its round; null while it goes on. */
    private String stoppedIn;

    /** A round begins: none found yet. */
    void startRound() { round = new ArrayList<>(); }

    /** Found in this round (its transactions are set aside). */
    void found(Certificate c) { round.add(c); }

    void foundAll(List<Certificate> cs) { round.addAll(cs); }

    int thisRound() { return round.size(); }

    boolean noneThisRound() { return round.isEmpty(); }

    /** Whether this round holds as many as are set aside one by one. */
    boolean tooManyThisRound() { return round.size() >= MAX_PER_ROUND; }

    /** Verification stops in {@code roundNo}, for {@code why}. */
    void stop(long roundNo, String why) { stoppedIn = "round " + roundNo + ": " + why; }

    String stoppedIn() { return stoppedIn; }

    long total() { return total; }

    long firstRound() { return firstRound; }

    /** This round's violations, counted into the history's; none are this round's from then on. */
    List<Certificate> takeRound(long roundNo) {
        List<Certificate> found = List.copyOf(round);
        round = List.of();
        if (!found.isEmpty()) {
            if (total == 0) firstRound = roundNo;
            total += found.size();
        }
        return found;
    }

    /** Whether the history has a violation. */
    boolean violated() { return total > 0 || stoppedIn != null; }

    /**
     * The reason of a round that found {@code found} (taken by {@link #takeRound}), whose own transactions came to {@code own}
     * for {@code ownReason}.
     */
    String reason(List<Certificate> found, Verdict.Outcome own, String ownReason) {
        if (!found.isEmpty()) {
            StringBuilder b = new StringBuilder();
            if (found.size() == 1) b.append(found.get(0).summary());
            else {
                b.append(found.size()).append(" violations: ");
                for (int i = 0; i < found.size(); i++) b.append(i == 0 ? "" : " | ").append(i + 1).append(". ").append(found.get(i).summary());
            }
            if (total > found.size()) b.append(" (").append(historyNote()).append(")");
            b.append("; their transactions are set aside; the rest of the round: ").append(ownReason);
            return b.toString();
        }
        if (violated())
            return (own == Verdict.Outcome.ACCEPT ? "no new violation, this round's transactions verified: " : "no new violation found: ") + ownReason
                    + "; the history is not " + levelSatisfied + " (" + historyNote() + ")";
        return ownReason;
    }

    /** How many violations the history has had, and the first one's round. */
    private String historyNote() {
        if (total == 0) return "a violation was found in " + stoppedIn;
        return total + (total == 1 ? " violation" : " violations") + " so far, the first in round " + firstRound;
    }

    /** Resumes from a snapshot or checkpoint; nothing of an open round. */
    void restore(long total, long firstRound, String stoppedIn) {
        this.total = total;
        this.firstRound = firstRound;
        this.stoppedIn = stoppedIn;
        round = List.of();
    }
}
