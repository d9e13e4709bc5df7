package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.checker.AllViolations;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.history.History;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.UncheckedTxn;

/**
 * The oracle of {@link RoundsDifferential}, and the comparison of the rounds' verdicts with it. After each round: the
 * transactions delivered so far whose reads all resolve to delivered transactions that resolve (the largest such set: what
 * the verifier can admit), checked one-shot with the same options. The rounds' verdict must equal it, or be unknown. (A
 * read-from-closed part of a history that is not serializable makes every larger one unserializable, so a batch's verdicts
 * may be compared round by round.) The transactions the rounds leave unchecked (docs/DESIGN.md §7.6) are left out of the
 * oracle's check from then on; after a violation (§7.10), each new one must name a transaction no earlier one named, and a
 * round that says its own transactions are clean must be, by the one-shot check of what was delivered less every
 * transaction a certificate named. Every certificate a verdict reports must hold up against the whole history
 * ({@link CertificateAudit}: its edges justified, its cycle a cycle, its anomaly the one its edges make). It counts the
 * verdicts it compared, by outcome, the unknown ones by kind, and the certificates it audited.
 */
final class RoundsOracle {
    private final long seed;
    private final String what;
    private final History h;
    private final CheckOptions opts;
    /** The level the rounds check: the oracle checks the same one. */
    private final IsolationLevel level;
    /** Transactions by id, as verdicts name them (with and without a leading {@code T}). */
    private final Map<String, Integer> byName = new HashMap<>();
    /** After a violation: the transactions its certificates name (a superset of those set aside). */
    private final Set<Integer> named = new HashSet<>();
    /** Left unchecked by the rounds (docs/DESIGN.md §7.6). */
    private Set<Integer> unchecked = new HashSet<>();
    private int unknown, accepted, rejected, audited;
    /** Holds every certificate reported to the whole history. */
    private final CertificateAudit audit;
    private final Map<String, Integer> reasons = new HashMap<>();
    /** Per round of the batch being delivered: the oracle's verdict, and what was delivered by then (how many, and which). */
    private final List<Verdict.Outcome> oneShots = new ArrayList<>();
    private final List<Integer> deliveredCount = new ArrayList<>();
    private final List<boolean[]> deliveredThen = new ArrayList<>();
    /** What was delivered as the last round of the previous batch ended (null: none yet). */
    private boolean[] deliveredBefore;

    /** The oracle of {@code h}, checked with {@code opts}; {@code seed} and {@code what} name the history in a disagreement. */
    RoundsOracle(long seed, String what, History h, CheckOptions opts, IsolationLevel level) {
        this.level = level;
        this.seed = seed;
        this.what = what;
        this.h = h;
        this.opts = opts;
        this.audit = new CertificateAudit(h, opts.strict(), opts.driftNanos(), level.implies(IsolationLevel.SNAPSHOT_ISOLATION));
        for (int t = 0; t < h.size(); t++) { byName.put(h.name(t), t); byName.putIfAbsent("T" + h.name(t), t); }
    }

    /** A round was closed with {@code delivered} delivered: the oracle's verdict on it, for the batch's comparison. */
    void roundClosed(boolean[] delivered) {
        oneShots.add(oneShot(h, delivered, opts, level));
        deliveredCount.add(count(delivered));
        deliveredThen.add(delivered.clone());
    }

    /**
     * Compares the verdicts of the batch of rounds closed since the last comparison, {@code got}, with the oracle's, and counts
     * them: the first disagreement, with what is needed to reproduce it, or null when there is none.
     */
    String compare(List<org.cobraverify.schemas.Verdict> got) {
        // the transactions the rounds left unchecked (docs/DESIGN.md §7.6): the verdicts speak of the rest, and so does the
        // oracle from then on. A batch decided with one check names them all in its last verdict, for every round of it;
        // one decided again round by round names each round's in its own (one it leaves unchecked later may still be
        // waiting in an earlier round: not resolved there, and not left out either)
        List<Set<Integer>> uncheckedBy = new ArrayList<>();
        for (org.cobraverify.schemas.Verdict g : got) {
            if (g.getUncheckedNow() != g.getUnchecked().size())
                return "seed " + seed + " (" + what + "): round " + g.getRound() + " names " + g.getUnchecked().size() + " of its "
                        + g.getUncheckedNow() + " unchecked transactions: the comparison needs them all (a smaller round size)";
            for (UncheckedTxn u : g.getUnchecked()) {
                Integer t = byName.get(u.getId().toString());
                if (t == null) return "seed " + seed + " (" + what + "): round " + g.getRound() + " names " + u.getId() + " unchecked, which the history lacks";
                unchecked.add(t);
            }
            uncheckedBy.add(new HashSet<>(unchecked));
        }
        Set<Integer> uncheckedAll = unchecked;
        for (int i = 0; i < got.size(); i++) {
            org.cobraverify.schemas.Verdict g = got.get(i);
            boolean oneCheck = g.getReason().contains("(checked with round ") || g.getReason().startsWith("decided with round ");
            unchecked = oneCheck ? uncheckedAll : uncheckedBy.get(i);
            boolean[] before = i > 0 ? deliveredThen.get(i - 1) : deliveredBefore;
            if (RoundsDifferential.TRACE) System.err.println("round " + g.getRound() + " " + g.getOutcome() + " own " + g.getOwnOutcome() + " new " + g.getNewViolations()
                    + " (one-shot: " + oneShots.get(i) + "): " + g.getReason());
            Verdict.Outcome want = unchecked.isEmpty() ? oneShots.get(i) : oneShotWithout(h, deliveredThen.get(i), unchecked, opts, level).outcome();
            long rn = g.getRound();
            if (g.getOutcome() == Outcome.UNKNOWN) { unknown++; reasons.merge(kindOf(g.getReason()), 1, Integer::sum); continue; }
            Verdict.Outcome as = g.getOutcome() == Outcome.ACCEPT ? Verdict.Outcome.ACCEPT : Verdict.Outcome.REJECT;
            // a violation found while transactions later left unchecked were still in the round's graph is one of the whole
            // history (its certificate's facts are), though not of the rest: a reject is right if the whole history has one
            if (as != want && as == Verdict.Outcome.REJECT && !unchecked.isEmpty() && oneShots.get(i) == Verdict.Outcome.REJECT) want = as;
            if (as != want) {
                Verdict w = oneShotWithout(h, deliveredThen.get(i), unchecked, opts, level);
                return "seed " + seed + " (" + what + "): round " + rn
                        + " says " + as + " (" + g.getReason() + "), one-shot on the " + deliveredCount.get(i) + " transactions delivered by then"
                        + (unchecked.isEmpty() ? "" : " (less the " + unchecked.size() + " left unchecked)") + " says "
                        + want + (w.certificate() == null ? "" : ": " + w.certificate().summary());
            }
            if (as == Verdict.Outcome.ACCEPT) accepted++; else rejected++;
            // life after a violation (docs/DESIGN.md §7.10): each new violation blames a transaction no earlier verdict set
            // aside, and no two of one verdict blame the same ones (never the same violation twice; lost updates found in
            // one check may share a transaction), and a round whose own transactions are said to be clean is: the one-shot
            // check of what was delivered, less every transaction a certificate set aside and the reads of their writes,
            // accepts (it is a sub-history of what the verifier checked, so a reject there is a false accept here)
            List<Certificate> certs = new ArrayList<>();
            if (g.getCertificate() != null && g.getNewViolations() > 0) certs.add(g.getCertificate());
            certs.addAll(g.getMoreCertificates());
            Set<Integer> namedBefore = new HashSet<>(named);
            Set<String> blamedNow = new HashSet<>(); // (the blamed transactions and the summary: two lost updates by one pair, of two keys, are two)
            for (Certificate c : certs) {
                String invalid = audit.problem(c);
                audited++;
                if (invalid != null)
                    return "seed " + seed + " (" + what + "): round " + rn + " reports an invalid certificate (" + invalid + "): " + c.getSummary();
                Set<Integer> ids = new HashSet<>();
                for (String x : setAside(c)) {
                    Integer t = byName.get(x);
                    if (t != null) ids.add(t);
                }
                if (!ids.isEmpty() && (namedBefore.containsAll(ids) || !blamedNow.add(new java.util.TreeSet<>(ids) + c.getSummary())))
                    return "seed " + seed + " (" + what + "): round " + rn
                            + " reports again a violation whose transactions were all set aside before: " + c.getSummary();
                named.addAll(ids);
            }
            Set<Integer> out = named;
            if (!unchecked.isEmpty()) { out = new HashSet<>(named); out.addAll(unchecked); }
            Verdict rest = g.getViolations() > 0 && g.getOwnOutcome() == Outcome.ACCEPT ? oneShotWithout(h, deliveredThen.get(i), out, opts, level) : null;
            // a cycle already there before this round's deliveries is not this round's (garbage collection keeps
            // one cycle of a violation visible, not all: those it hid are entangled with a violation reported)
            if (rest != null && rest.outcome() == Verdict.Outcome.REJECT && (before == null || oneShotWithout(h, before, out, opts, level).outcome() == Verdict.Outcome.ACCEPT))
                return "seed " + seed + " (" + what + "): round " + rn
                        + " says its own transactions are clean (" + g.getReason() + "), but one-shot on the " + deliveredCount.get(i)
                        + " transactions delivered by then, less the " + named.size() + " that certificates set aside"
                        + (unchecked.isEmpty() ? "" : " and the " + unchecked.size() + " left unchecked") + ", rejects: " + rest.certificate().summary();
        }
        unchecked = uncheckedAll;
        oneShots.clear();
        deliveredCount.clear();
        deliveredBefore = deliveredThen.get(deliveredThen.size() - 1);
        deliveredThen.clear();
        return null;
    }

    int unknown() { return unknown; }

    int accepted() { return accepted; }

    int rejected() { return rejected; }

    /** How many certificates it audited ({@link CertificateAudit}), every one valid so far. */
    int audited() { return audited; }

    /** The unknown verdicts by kind ({@link #kindOf}). */
    Map<String, Integer> unknownReasons() { return reasons; }

    /** How many transactions the rounds have left unchecked (as the last verdict compared says). */
    int uncheckedCount() { return unchecked.size(); }

    /** How many transactions the verdicts' certificates named (after a violation, §7.10). */
    int namedCount() { return named.size(); }

    /** An unknown verdict's kind, for counting: its reason without the names and numbers of this history. */
    static String kindOf(String reason) {
        String r = reason.replaceAll("[0-9]+", "N");
        int cut = r.indexOf(" (oldest");
        if (cut < 0) cut = r.indexOf(": ");
        return r.substring(0, Math.min(r.length(), Math.min(cut < 0 ? 90 : cut, 90)));
    }

    /**
     * The oracle: the largest set of delivered transactions whose reads all resolve within it (remove, to a fixed
     * point, every transaction with a read whose writer is not delivered or removed), checked one-shot.
     */
    static Verdict.Outcome oneShot(History h, boolean[] delivered, CheckOptions opts, IsolationLevel level) { return oneShotWithout(h, delivered, Set.of(), opts, level).outcome(); }

    /**
     * The one-shot verdict on the delivered transactions less {@code without}, each of whose writes is read by nobody
     * (those reads are dropped, as the verifier drops reads of set-aside writes), closed under read-from: a transaction
     * with a read whose writer was not delivered is left out, and so are its readers.
     */
    static Verdict oneShotWithout(History h, boolean[] delivered, Set<Integer> without, CheckOptions opts, IsolationLevel level) {
        int n = h.size();
        // only those delivered by then (a batch names the transactions it left unchecked in its last verdict, some of which
        // arrived after its earlier rounds)
        if (!without.isEmpty()) {
            Set<Integer> d = new HashSet<>();
            for (int t : without) if (delivered[t]) d.add(t);
            without = d;
        }
        Map<Long, Integer> writer = new HashMap<>();
        for (int t = 0; t < n; t++)
            if (delivered[t] || without.contains(t))
                for (int op = h.opStart(t); op < h.opEnd(t); op++)
                    if (h.kind(op) == History.WRITE) writer.putIfAbsent(((long) h.key(op) << 32) | h.value(op), t);
        boolean[] in = delivered.clone();
        for (int t : without) in[t] = false;
        for (boolean changed = true; changed; ) {
            changed = false;
            for (int t = 0; t < n; t++) {
                if (!in[t]) continue;
                boolean ok = true;
                for (int op = h.opStart(t); op < h.opEnd(t) && ok; op++) {
                    if (h.kind(op) != History.READ || h.value(op) == History.NIL) continue;
                    Integer w = writer.get(((long) h.key(op) << 32) | h.value(op));
                    ok = w != null && (in[w] || without.contains(w));
                }
                if (!ok) { in[t] = false; changed = true; }
            }
        }
        // the kept transactions and those set aside (whose writes mark the reads to drop), then without the latter
        List<Integer> keep = new ArrayList<>();
        for (int t = 0; t < n; t++) if (in[t] || without.contains(t)) keep.add(t);
        History sub = h.restrict(keep.stream().mapToInt(Integer::intValue).toArray());
        if (without.isEmpty()) return check(sub, opts, level);
        boolean[] aside = new boolean[keep.size()];
        for (int i = 0; i < keep.size(); i++) aside[i] = without.contains(keep.get(i));
        return check(AllViolations.without(sub, aside), opts, level);
    }

    /**
     * The transactions a published certificate sets aside, as {@link SetAside#of} chooses them (without knowing which are
     * held: a superset): the reader of a read anomaly, every transaction named otherwise.
     */
    /** One-shot at {@code level}: serializability (strict when {@code opts} is) by the {@link Checker}, the rest by {@link Isolation}. */
    private static Verdict check(History h, CheckOptions opts, IsolationLevel level) {
        return level.implies(IsolationLevel.SERIALIZABLE) ? Checker.check(h, opts) : Isolation.check(h, level, opts);
    }

    static List<String> setAside(Certificate c) {
        List<String> ids = new ArrayList<>();
        for (CertTxn x : c.getTransactions()) ids.add(x.getId().toString());
        String a = c.getAnomaly().toString();
        for (AnomalyKind k : List.of(AnomalyKind.G1A, AnomalyKind.G1B, AnomalyKind.UNWRITTEN_READ, AnomalyKind.INTERNAL, AnomalyKind.NON_REPEATABLE_READ))
            if (k.displayName().equals(a)) return ids.isEmpty() ? ids : List.of(ids.get(ids.size() - 1));
        if (AnomalyKind.STALE_READ.displayName().equals(a)) return ids.isEmpty() ? ids : List.of(ids.get(0));
        // a lost update: its two overwriters, listed last (the writer of the version both read, first when there is one, stays)
        if (AnomalyKind.LOST_UPDATE.displayName().equals(a)) return ids.size() < 2 ? ids : List.of(ids.get(ids.size() - 2), ids.get(ids.size() - 1));
        for (CycleEdge e : c.getCycle()) { ids.add(e.getFrom().toString()); ids.add(e.getTo().toString()); }
        return ids;
    }

    private static int count(boolean[] b) {
        int c = 0;
        for (boolean x : b) if (x) c++;
        return c;
    }
}
