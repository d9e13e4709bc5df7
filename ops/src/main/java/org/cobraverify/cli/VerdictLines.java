package org.cobraverify.cli;

import org.cobraverify.schemas.Verdict;

/** How verdicts print: one line each; a rejection adds its certificate's text. */
final class VerdictLines {
    private VerdictLines() {}

    static String line(Verdict v) {
        String lag = v.getRoundLatestEnd() > 0 ? String.format(", lag %.1f s (%.1f s after the cut)", lagSeconds(v),
                (v.getVerifiedAt() - v.getRoundCutAt()) / 1e3) : "";
        String steps = v.getTotalMs() == 0 ? "decided with a later round" : String.format("%d ms: build %d, construct %d, prune %d, solve %d, gc %d",
                v.getTotalMs(), v.getBuildMs(), v.getConstructMs(), v.getPruneMs(), v.getSolveMs(), v.getGcMs());
        String kept = v.getRetainedTxns() >= 0 ? String.format(", %d retained, %d collected", v.getRetainedTxns(), v.getCollectedTxns()) : "";
        return String.format("round %d: %s: %s [epochs %d-%d, %d txns in the round, %d checked, %d pending%s; %s%s]",
                v.getRound(), v.getOutcome().name().toLowerCase(), v.getReason(), v.getFirstEpoch(), v.getLastEpoch(), v.getRoundTxns(),
                v.getCheckedTxns(), v.getPendingTxns(), kept, steps, lag);
    }

    /** How far the verdict trails the workload: from the round's last commit to the verdict. */
    static double lagSeconds(Verdict v) {
        return (v.getVerifiedAt() * 1_000_000L - v.getRoundLatestEnd()) / 1e9;
    }

    static String full(Verdict v) {
        return v.getCertificate() == null ? line(v) : line(v) + System.lineSeparator() + v.getCertificate().getText();
    }
}
