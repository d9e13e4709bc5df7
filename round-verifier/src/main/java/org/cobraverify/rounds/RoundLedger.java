package org.cobraverify.rounds;

/**
 * A verifier in rounds' running totals, the last round's figures, and its sticky notes: why its state was dropped, and why
 * no later round can be accepted. Shared by {@link IncrementalVerifier} (which reports and checkpoints them) and
 * {@link RoundSteps} (which keeps them); plain fields, with no invariant between them beyond each one's meaning.
 */
final class RoundLedger {
    /** Rounds ended; transactions checked, collected, settled constraints, collections that took something, duplicates ignored. */
    long rounds, checked, collected, settled, collections, duplicates;
    /** Frontier writes collected as data, by this incarnation and those it resumed from (docs/DESIGN.md §7.9). */
    long frontierRecords;
    /** Transactions set aside after violations, and reads of their writes left unchecked. */
    long setAside, uncheckedReads;
    /** The first round of the open batch: the number the next round had when the last round ended. */
    long batchStart;
    /** The last round's figures: superseded, old and settled counts, {@link RoundResult#keptBy} and {@link RoundResult#batchCounts}. */
    int lastSuperseded, lastOld, lastSettled;
    int[] lastKept;
    long[][] batchCounts;
    /** {@link RoundClock}'s readings when the round being ended began (observability only). */
    long roundCpu0 = -1, roundCollector0 = -1;
    /** Why the state was dropped (verdicts are unknown from then on), or null. */
    String droppedState;
    /**
     * Why no later round can be accepted: a round found a read it could not judge, or a transaction it could not
     * check against the collected past, and every later history contains it. Rejects are still found and reported.
     */
    String lostProof;

    /** Records {@code why} no later round can be accepted, unless a reason is recorded already. */
    void loseProof(String why) { if (lostProof == null) lostProof = why; }

    /** The totals a snapshot or checkpoint keeps, with the violations' and the unchecked transactions' of their own keepers. */
    VerifierState.Counters counters(Violations violations, long unchecked) {
        return new VerifierState.Counters(rounds, checked, collected, settled, collections, duplicates, frontierRecords,
                violations.total(), violations.firstRound(), setAside, uncheckedReads, unchecked);
    }

    /** Resumes the totals of a snapshot or checkpoint, and its notes; a new batch starts at its next round. */
    void restore(VerifierState.Counters n, String droppedState, String lostProof) {
        rounds = n.rounds(); checked = n.checked(); collected = n.collected(); settled = n.settled();
        collections = n.collections(); duplicates = n.duplicates(); frontierRecords = n.frontierRecords();
        setAside = n.setAside(); uncheckedReads = n.uncheckedReads();
        batchStart = rounds;
        this.droppedState = droppedState;
        this.lostProof = lostProof;
    }
}
