package org.cobraverify.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.checker.Verdict;
import org.cobraverify.rounds.RoundResult;
import org.cobraverify.rounds.RoundsRun;
import org.cobraverify.verifier.Verifier;

/**
 * What verification in rounds of one history found, for {@code verify --rounds} and {@code bench
 * --rounds}: the verdict (a reject keeps the certificate of the round that found it), and the figures.
 */
record RoundsSummary(RoundsRun run, int transactions) {
    static RoundsSummary of(RoundsRun run, int transactions) { return new RoundsSummary(run, transactions); }

    /** The first reject (with its certificate) if any; else the last round's answer, which covers the whole history. */
    Verdict verdict(List<String> readerNotes) {
        RoundResult decisive = run.last();
        for (RoundResult r : run.rounds()) if (r.outcome() == Verdict.Outcome.REJECT) { decisive = r; break; }
        List<String> notes = new ArrayList<>(readerNotes);
        if (decisive.verdict() != null) notes.addAll(decisive.verdict().notes());
        long unchecked = run.last().uncheckedTotal();
        if (unchecked > 0)
            notes.add(unchecked + " transaction(s) were left unchecked (they follow no fence that follows the collected past: see \"unchecked\");"
                    + " the verdict speaks of the rest, without the reads of their writes");
        Verdict base = decisive.verdict();
        return switch (decisive.outcome()) {
            case ACCEPT -> new Verdict(Verdict.Outcome.ACCEPT, null, null, null, base == null ? null : base.stats(), notes);
            case REJECT -> new Verdict(Verdict.Outcome.REJECT, decisive.certificate(), null, null, base == null ? null : base.stats(), notes);
            case UNKNOWN -> new Verdict(Verdict.Outcome.UNKNOWN, null, null, decisive.reason(), base == null ? null : base.stats(), notes);
        };
    }

    double capacity() { return run.capacity(transactions); }

    /**
     * Transactions per second of the verifier thread's summed CPU time in the rounds (what it would check with a core to
     * itself and no collection pauses); -1 when some round's CPU time could not be measured.
     */
    double cpuCapacity() {
        long nanos = 0;
        for (RoundResult r : run.rounds()) {
            if (r.cpuNanos() < 0) return -1;
            nanos += r.cpuNanos();
        }
        return transactions / Math.max(1e-9, nanos / 1e9);
    }

    /**
     * {@link #capacity} over the rounds after the one in which half of the transactions had been checked: the rate a
     * verifier that runs for days settles at, past the JVM's warm-up (its compilers and the heap's sizing take the first
     * tens of seconds of every run: over a quarter of a 1M TPC-C check's round time, 13-18 s of 48-62 s, goes to its first 40 rounds). -1 with fewer
     * than two such rounds, or none of their time measured.
     */
    double laterHalfCapacity() {
        List<RoundResult> rounds = run.rounds();
        long total = 0;
        for (RoundResult r : rounds) total += r.roundTxns();
        int from = rounds.size();
        long seen = 0;
        for (int i = 0; i < rounds.size(); i++) {
            seen += rounds.get(i).roundTxns();
            if (2 * seen >= total) { from = i + 1; break; }
        }
        long txns = 0;
        double millis = 0;
        for (int i = from; i < rounds.size(); i++) {
            txns += rounds.get(i).roundTxns();
            millis += rounds.get(i).millis();
        }
        return rounds.size() - from < 2 || millis <= 0 ? -1 : txns / (millis / 1000);
    }

    /** The JVM's collectors' time during the rounds, in milliseconds; -1 when it could not be measured. */
    long collectorMillis() {
        long sum = 0;
        for (RoundResult r : run.rounds()) {
            if (r.collectorMillis() < 0) return -1;
            sum += r.collectorMillis();
        }
        return sum;
    }

    /** Every violation the rounds found, in order, each with its round. */
    List<org.cobraverify.report.JsonReport.Found> violations() {
        List<org.cobraverify.report.JsonReport.Found> out = new ArrayList<>();
        for (RoundResult r : run.rounds()) for (org.cobraverify.checker.Certificate c : r.violations()) out.add(new org.cobraverify.report.JsonReport.Found(r.round(), c));
        return out;
    }

    Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rounds", run.rounds().size());
        RoundResult last = run.last();
        m.put("violationCount", last.violationsTotal());
        if (last.violationsTotal() > 0) m.put("firstViolationRound", last.firstViolationRound());
        long clean = 0, unknownOwn = 0;
        for (RoundResult r : run.rounds()) {
            if (r.violationsTotal() == 0 || !r.violations().isEmpty()) continue;
            if (r.clean()) clean++; else unknownOwn++;
        }
        if (last.violationsTotal() > 0) {
            m.put("roundsCleanAfterViolation", clean);
            m.put("roundsUnknownAfterViolation", unknownOwn);
        }
        // the transactions the rounds left unchecked, each with its round and why (the first 1,000)
        m.put("uncheckedCount", last.uncheckedTotal());
        List<Map<String, Object>> unchecked = new ArrayList<>();
        for (RoundResult r : run.rounds())
            for (org.cobraverify.rounds.Unchecked u : r.unchecked()) {
                if (unchecked.size() >= 1000) break;
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("id", u.id());
                x.put("round", r.round());
                x.put("reason", u.reason());
                unchecked.add(x);
            }
        if (!unchecked.isEmpty()) m.put("unchecked", unchecked);
        m.put("retainedMax", run.retainedMax());
        m.put("retainedLast", run.last().retained());
        m.put("collected", run.last().collectedTotal());
        // what the retained set is made of after the last round garbage collection analysed
        RoundResult analysed = null;
        for (RoundResult r : run.rounds()) if (r.keptBy() != null) analysed = r;
        if (analysed != null) {
            Map<String, Integer> why = new LinkedHashMap<>();
            List<String> reasons = Verifier.keptReasons();
            for (int k = 0; k < reasons.size(); k++) why.put(reasons.get(k), analysed.keptBy()[k]);
            m.put("retainedWhy", why);
            m.put("retainedWhyRound", analysed.round());
        }
        if (run.last().gcNote() != null && run.last().collectedNow() == 0) m.put("lastRoundNotCollected", run.last().gcNote());
        RoundResult peak = peak();
        if (peak != null) { m.put("retainedMaxRound", peak.round()); m.put("retainedMaxHeldBack", peak.gcNote()); }
        m.put("fences", run.fences());
        m.put("capacity", Math.round(capacity()));
        m.put("capacityLaterHalf", Math.round(laterHalfCapacity()));
        // where the rounds' wall time went besides the verifier's own work (RoundClock): -1 where the JVM cannot say
        m.put("cpuCapacity", Math.round(cpuCapacity()));
        m.put("collectorMillis", collectorMillis());
        long[] ms = new long[run.rounds().size()];
        for (int i = 0; i < ms.length; i++) ms[i] = Math.round(run.rounds().get(i).millis());
        m.put("roundMillis", ms);
        // where each round's time went, and what it worked on: the figures a slow or growing round is read from
        int n = ms.length;
        long[] txns = new long[n], retained = new long[n], history = new long[n], build = new long[n], check = new long[n], gc = new long[n];
        for (int i = 0; i < n; i++) {
            RoundResult r = run.rounds().get(i);
            txns[i] = r.roundTxns();
            retained[i] = r.retained();
            history[i] = r.historySize();
            build[i] = Math.round(r.buildNanos() / 1e6);
            check[i] = Math.round(r.checkNanos() / 1e6);
            gc[i] = Math.round(r.gcNanos() / 1e6);
        }
        m.put("roundTxns", txns);
        // what each round's own transactions came to (0 verified, 1 a new violation, 2 unknown), and, less its new violations', the rest
        long[] own = new long[n], rest = new long[n];
        for (int i = 0; i < n; i++) {
            own[i] = code(run.rounds().get(i).own());
            rest[i] = code(run.rounds().get(i).rest());
        }
        m.put("roundOwn", own);
        m.put("roundRest", rest);
        m.put("roundRetained", retained);
        m.put("roundHistorySize", history);
        m.put("roundBuildMillis", build);
        m.put("roundCheckMillis", check);
        m.put("roundGcMillis", gc);
        long[] cpu = new long[n], collector = new long[n];
        for (int i = 0; i < n; i++) {
            RoundResult r = run.rounds().get(i);
            cpu[i] = r.cpuNanos() < 0 ? -1 : Math.round(r.cpuNanos() / 1e6);
            collector[i] = r.collectorMillis();
        }
        m.put("roundCpuMillis", cpu);
        m.put("roundCollectorMillis", collector);
        // why each round's retained transactions stayed (as retainedWhy; -1 for a round garbage collection did not analyse)
        Map<String, Object> keptBy = new LinkedHashMap<>();
        List<String> reasons = Verifier.keptReasons();
        for (int k = 0; k < reasons.size(); k++) {
            long[] per = new long[n];
            for (int i = 0; i < n; i++) {
                int[] kb = run.rounds().get(i).keptBy();
                per[i] = kb == null ? -1 : kb[k];
            }
            keptBy.put(reasons.get(k), per);
        }
        m.put("roundRetainedWhy", keptBy);
        // what held each round's collection back (below serializability: the first key not sealed, and why), or null
        String[] heldBack = new String[n];
        for (int i = 0; i < n; i++) heldBack[i] = run.rounds().get(i).gcNote();
        m.put("roundHeldBack", heldBack);
        return m;
    }

    /**
     * The round after whose collection the retained set was largest, when that round's collection says what held it back
     * (below serializability: the first key not sealed, and why); null otherwise.
     */
    private RoundResult peak() {
        RoundResult peak = null;
        for (RoundResult r : run.rounds()) if (peak == null || r.retained() > peak.retained()) peak = r;
        return peak == null || peak.retained() == 0 || peak.gcNote() == null ? null : peak;
    }

    private static long code(Verdict.Outcome o) { return o == Verdict.Outcome.ACCEPT ? 0 : o == Verdict.Outcome.REJECT ? 1 : 2; }

    String text() {
        String gcNote = null;
        for (RoundResult r : run.rounds()) if (r.gcNote() != null && r.collectedNow() == 0) gcNote = r.gcNote();
        StringBuilder found = new StringBuilder();
        List<org.cobraverify.report.JsonReport.Found> vs = violations();
        if (!vs.isEmpty()) {
            found.append(String.format("  violations: %d (first in round %d)%n", vs.size(), vs.get(0).round()));
            for (int i = 0; i < vs.size(); i++)
                found.append(String.format("    %d. round %d: %s: %s%n", i + 1, vs.get(i).round(), vs.get(i).certificate().kind().displayName(),
                        vs.get(i).certificate().summary()));
        }
        long uncheckedTotal = run.last().uncheckedTotal();
        if (uncheckedTotal > 0) {
            found.append(String.format("  unchecked: %d transaction(s) that follow no fence that follows the collected past (the verdict speaks of the rest):%n",
                    uncheckedTotal));
            int listed = 0;
            for (RoundResult r : run.rounds())
                for (org.cobraverify.rounds.Unchecked u : r.unchecked())
                    if (listed++ < 10) found.append(String.format("    round %d: %s: %s%n", r.round(), u.id(), u.reason()));
            if (listed > 10) found.append(String.format("    ... and %d more (--json lists them)%n", listed - 10));
        }
        double later = laterHalfCapacity();
        return found + String.format("  rounds: %d (%d fences); retained after GC: at most %d, %d after the last; %d collected; capacity %.0f txn/s%s%n",
                run.rounds().size(), run.fences(), run.retainedMax(), run.last().retained(), run.last().collectedTotal(), capacity(),
                later < 0 ? "" : String.format(" (%.0f over the later half)", later))
                + (cpuCapacity() < 0 ? "" : String.format("  of the rounds' %.1f s, the verifier's thread ran %.1f s (%.0f txn/s of its CPU time)%s%n",
                        run.totalMillis() / 1000, transactions / cpuCapacity(), cpuCapacity(),
                        collectorMillis() < 0 ? "" : String.format("; the JVM's collectors ran %.1f s", collectorMillis() / 1000.0)))
                + (run.last().collectedTotal() == 0 && gcNote != null ? "  note: nothing was collected: " + gcNote + "\n"
                   : peak() == null ? "" : String.format("  at its largest (%d, after round %d) the retained set was held back by: %s%n", peak().retained(),
                        peak().round(), peak().gcNote()));
    }
}
