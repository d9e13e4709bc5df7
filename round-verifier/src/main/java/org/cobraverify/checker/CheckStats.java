package org.cobraverify.checker;

/** What one check did and where its time went; filled in as the steps run. */
public final class CheckStats {
    public int transactions, included, keys, sessions;
    public long constructNanos, pruneNanos, solveNanos;
    /** For a violation proved by search: from the start of the check to the decision, and the time spent shrinking its certificate. */
    public long decisionNanos, certificateNanos;
    public int knownEdges, chains;
    public int constraintsBefore, constraintsAfterPrune, constraintsToSolver;
    public int pruneRounds, components, largestComponent;
    public long conflicts, decisions;
    public String solver = "";
    /** The engine that answered pruning's reachability queries ("cpu", or a GPU's name). */
    public String reachability = "";
    /** Strict serializability was checked (real-time order included). */
    public boolean strict;
    /** The isolation level checked: serializable or strict-serializable (as {@link #strict} says) unless set. */
    public IsolationLevel level;

    /** The level this check decided. */
    public IsolationLevel level() { return level != null ? level : strict ? IsolationLevel.STRICT_SERIALIZABLE : IsolationLevel.SERIALIZABLE; }

    public double constructMillis() { return constructNanos / 1e6; }
    public double pruneMillis() { return pruneNanos / 1e6; }
    public double solveMillis() { return solveNanos / 1e6; }
    public double decisionMillis() { return decisionNanos / 1e6; }
    public double certificateMillis() { return certificateNanos / 1e6; }
}
