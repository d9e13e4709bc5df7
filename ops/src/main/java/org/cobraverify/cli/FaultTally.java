package org.cobraverify.cli;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.collector.Recorder;
import org.cobraverify.history.History;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.workloads.LostWriteLedger;

/**
 * The demo's verdicts held to what its store really did ({@link LostWriteLedger}): each lost update the lost writes made,
 * and how many certificates name it (both its writes); each certificate, and whether it names a lost write at all.
 * A certificate names a write when one of its transactions' operations is that write ({@code w(key)=value}: values are
 * unique, and a lost value was never read by another transaction), or shows it as a collected writer's.
 *
 * @param lostWrites   writes lost from committed transactions
 * @param lostUpdates  lost updates they made
 * @param reportedOnce lost updates named by exactly one certificate
 * @param withAnother  lost updates named by none, where another violation set aside one of the pair's transactions (the lost
 *                     write's or the later writer's) or the writer of the version both read, and with it the pair's evidence
 *                     (docs/DESIGN.md §7.10: a set-aside writer's readers stay, their reads of it are not checked)
 * @param missed       lost updates named by none
 * @param reportedMore lost updates named by more than one
 * @param otherNaming  certificates that name a lost write but none of its lost updates (another anomaly it caused)
 * @param unexplained  certificates that name no lost write: a violation the faults do not explain
 * @param rounds       rounds verified
 * @param withFound    rounds that found violations and verified the rest of their transactions
 * @param notVerified  rounds left unknown, or where verification stopped
 * @param unchecked    transactions the verdicts left unchecked, each named with its reason (a lost update one of them made is
 *                     not reported, soundly: nothing was said of it)
 * @param waiting      transactions still waiting for writes when the last verdict came (not checked yet: a lost update
 *                     one of them made is not reported yet)
 */
record FaultTally(long lostWrites, long lostUpdates, int reportedOnce, int withAnother, int missed, int reportedMore, int otherNaming, int unexplained,
                  int rounds, int withFound, int notVerified, long unchecked, long waiting, List<String> examples) {

    static FaultTally of(LostWriteLedger ledger, List<Verdict> verdicts) {
        List<List<String>> certs = new ArrayList<>(); // per certificate, its transactions' operations
        List<List<String>> setAside = new ArrayList<>(); // per certificate, the operations of the transactions it set aside
        List<String> summaries = new ArrayList<>(); // per certificate, its anomaly and summary
        int withFound = 0, notVerified = 0;
        for (Verdict v : verdicts) {
            if (v.getOwnOutcome() == Outcome.UNKNOWN || v.getReason().contains("verification stop")) notVerified++;
            else if (v.getNewViolations() > 0) withFound++;
            if (v.getNewViolations() == 0 && !(v.getOwnOutcome() == null && v.getOutcome() == Outcome.REJECT)) continue;
            List<Certificate> all = new ArrayList<>();
            if (v.getCertificate() != null) all.add(v.getCertificate());
            all.addAll(v.getMoreCertificates());
            for (Certificate c : all) { certs.add(ops(c)); setAside.add(setAside(c)); summaries.add(c.getAnomaly() + ": " + c.getSummary()); }
        }
        boolean[] explained = new boolean[certs.size()];
        int once = 0, within = 0, missed = 0, more = 0;
        List<String> examples = new ArrayList<>();
        for (LostWriteLedger.LostUpdate u : ledger.updates()) {
            String first = write(u.lost().key(), u.lost().value()), second = write(u.lost().key(), u.value());
            int n = 0, by;
            for (int i = 0; i < certs.size(); i++)
                if (names(certs.get(i), first) && names(certs.get(i), second)) { n++; explained[i] = true; }
            if (n == 1) once++;
            // one of the pair's transactions was set aside with another violation, or the writer of the version both read was
            // (then the pair is not in the history the verdicts certify, docs/DESIGN.md §7.10)
            else if (n == 0 && (by = setAsideBy(setAside, first, second, u.lost().base() == null ? null : write(u.lost().key(), u.lost().base()))) >= 0) {
                within++;
                if (examples.size() < 5) examples.add("within another report: " + first + " lost, then " + second + "; set aside with " + summaries.get(by));
            } else if (n == 0) { missed++; if (examples.size() < 5) examples.add("missed: " + first + " lost, then " + second + " over the same version"); }
            else { more++; if (examples.size() < 5) examples.add("reported " + n + " times: " + first + " and " + second); }
        }
        int other = 0, unexplained = 0;
        for (int i = 0; i < certs.size(); i++) {
            if (explained[i]) continue;
            boolean any = false;
            for (LostWriteLedger.LostWrite w : ledger.lost()) if (names(certs.get(i), write(w.key(), w.value()))) { any = true; break; }
            if (any) other++;
            else unexplained++;
        }
        long unchecked = verdicts.isEmpty() ? 0 : verdicts.get(verdicts.size() - 1).getUncheckedTxns();
        long waiting = verdicts.isEmpty() ? 0 : verdicts.get(verdicts.size() - 1).getPendingTxns();
        return new FaultTally(ledger.lostCount(), ledger.updateCount(), once, within, missed, more, other, unexplained, verdicts.size(), withFound, notVerified,
                unchecked, waiting, List.copyOf(examples));
    }

    /** The first certificate that set aside the transaction of one of {@code ops} (null: none), or -1. */
    private static int setAsideBy(List<List<String>> setAside, String... ops) {
        for (int i = 0; i < setAside.size(); i++)
            for (String op : ops) if (op != null && names(setAside.get(i), op)) return i;
        return -1;
    }

    /** The operations of the transactions {@code c} set aside (docs/DESIGN.md §7.10, {@link AnomalyKind#blame}). */
    private static List<String> setAside(Certificate c) {
        List<String> ops = ops(c);
        AnomalyKind kind = AnomalyKind.named(c.getAnomaly());
        List<String> out = new ArrayList<>(); // (a collected transaction, shown by what is known of it, is not held: never set aside)
        for (int i : kind == null ? java.util.stream.IntStream.range(0, ops.size()).toArray() : kind.blamed(ops.size()))
            if (!ops.get(i).startsWith("(collected")) out.add(ops.get(i));
        return out;
    }

    private static List<String> ops(Certificate c) {
        List<String> out = new ArrayList<>();
        for (CertTxn t : c.getTransactions()) out.add(t.getOps());
        return out;
    }

    /** The operation that writes stored value {@code value} of {@code key}, as a certificate shows it (the history's value is the write id). */
    private static String write(String key, String value) { return "w(" + History.show(key) + ")=" + History.show(Recorder.recordedValue(value)); }

    /** Whether one of {@code txns}' operation lists holds {@code op} as a whole operation. */
    static boolean names(List<String> txns, String op) {
        for (String ops : txns)
            for (int i = ops.indexOf(op); i >= 0; i = ops.indexOf(op, i + 1)) {
                char before = i == 0 ? '[' : ops.charAt(i - 1), after = i + op.length() < ops.length() ? ops.charAt(i + op.length()) : ']';
                if ((before == '[' || before == ' ') && (after == ']' || after == ' ' || after == ')')) return true; // (a collected writer: "(collected: w(k)=v)")
            }
        return false;
    }

    /** Whether the verdicts are what the faults explain: every lost update reported once, nothing else, and every round verified. */
    boolean exact() { return missed == 0 && reportedMore == 0 && unexplained == 0 && notVerified == 0; }

    List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add(String.format("faults: %d writes lost from committed transactions; they made %d lost updates (a later transaction read the version"
                + " the lost write's transaction had read, and overwrote it)", lostWrites, lostUpdates));
        out.add(String.format("  lost updates: %d reported once; %d within another violation's report (a transaction it hinges on, the lost"
                + " write's, the later write's or the writer of the version both overwrote, was set aside with that one); %d missed; %d reported more than once",
                reportedOnce, withAnother, missed, reportedMore));
        out.add(String.format("  other reports: %d naming a lost write (another anomaly it caused), %d naming none", otherNaming, unexplained));
        out.add(String.format("  rounds: %d verified, %d of them found violations and accepted the rest of their transactions, %d not verified;"
                + " %d transactions left unchecked, %d still waiting", rounds - notVerified, withFound, notVerified, unchecked, waiting));
        for (String e : examples) out.add("  " + e);
        out.add(exact() ? "the verdicts match what the store lost: every lost update reported once, nothing else unexplained, every round verified"
                : "the verdicts and what the store lost differ (above)");
        if (lostUpdates > LostWriteLedger.MAX_KEPT) out.add("  (the first " + LostWriteLedger.MAX_KEPT + " lost updates were matched)");
        return out;
    }
}
