package org.cobraverify.checker;

import java.util.List;
import org.cobraverify.history.History;
import org.cobraverify.solver.Budget;

/**
 * What the search for a small certificate ({@link SearchCertificate}, {@link Minimizer}) needs of the checker: a check of a
 * sub-history within the certificate's budget, without minimizing its own certificate, and the case analysis of a small
 * refuted one. The checker hands itself in ({@link Checker#subHistories}), so that the search names no checker and the
 * three do not call one another in a circle.
 */
interface SubHistoryChecks {
    /** {@code h} checked with the options the search was given, within {@code budget} (an unknown says it ran out). */
    Verdict check(History h, Budget budget);

    /** Why each serial order of {@code small} fails, one line per case. */
    List<String> caseAnalysis(History small, Budget budget);
}
