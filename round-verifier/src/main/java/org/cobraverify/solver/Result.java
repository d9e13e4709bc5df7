package org.cobraverify.solver;

/**
 * A solver's answer: {@link Status#SAT} with a side for every variable ({@code sideA[v]} true means side
 * A), {@link Status#UNSAT} with the variables that the refutation used (a subset whose constraints,
 * with the fixed edges, already admit no acyclic choice), or {@link Status#UNKNOWN} when the budget ran out, {@link Status#CANCELLED} when it was cancelled.
 */
public record Result(Status status, boolean[] sideA, int[] coreVariables, String reason, long conflicts, long decisions) {
    public enum Status { SAT, UNSAT, UNKNOWN, CANCELLED }

    public static Result sat(boolean[] sideA, long conflicts, long decisions) { return new Result(Status.SAT, sideA, null, null, conflicts, decisions); }

    public static Result unsat(int[] core, long conflicts, long decisions) { return new Result(Status.UNSAT, null, core, null, conflicts, decisions); }

    public static Result unknown(String reason, long conflicts, long decisions) { return new Result(Status.UNKNOWN, null, null, reason, conflicts, decisions); }

    /** Stopped because the budget was cancelled (another component already decided): no answer at all. */
    public static Result cancelled(long conflicts, long decisions) { return new Result(Status.CANCELLED, null, null, "cancelled", conflicts, decisions); }
}
