package org.cobraverify.checker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cobraverify.history.History;
import org.cobraverify.history.HistoryBuilder;

/**
 * Every independent violation of a history, one certificate each, as Elle reports every anomaly it finds: after a
 * reject, the violation's transactions are set aside (taken out, with every read of their writes) and the rest is
 * checked again, until it is accepted, the budget runs out, or {@code max} violations were found. The transactions set
 * aside are those at fault ({@link Certificate#atFault}: a read anomaly's reader, a lost update's two overwriters, every
 * transaction of a cycle), so each certificate after the first blames only transactions no earlier one set aside, and
 * holds in the history less the earlier ones' (so it is a violation of its own, not a consequence of another). The
 * rounds verifier continues past violations the same
 * way (docs/DESIGN.md §7.10).
 *
 * <p>Pure: history in, certificates out. Register histories only (a list history is checked once).
 */
public final class AllViolations {
    private AllViolations() {}

    /**
     * What the search found: the certificates in order ({@code first} is the first), and why it stopped: {@code rest} is
     * the verdict on what was left (accept: no more; unknown: the budget ran out), or null when it stopped at {@code max}.
     */
    public record Result(List<Certificate> certificates, Verdict rest, String note) {}

    /**
     * The violations of {@code h} after {@code first} (the certificate of its reject), within {@code seconds} (0: none) and
     * {@code max} in all.
     */
    public static Result after(History h, Certificate first, CheckOptions options, double seconds, int max) {
        List<Certificate> found = new ArrayList<>();
        found.add(first);
        if (h.hasLists()) return new Result(found, null, "a history with list reads is checked once: only its first violation is reported");
        Map<String, Integer> byName = new HashMap<>();
        for (int t = 0; t < h.size(); t++) { byName.putIfAbsent(h.name(t), t); byName.putIfAbsent(h.label(t), t); }
        boolean[] aside = new boolean[h.size()];
        long deadline = seconds > 0 ? System.nanoTime() + (long) (seconds * 1e9) : Long.MAX_VALUE;
        Certificate c = first;
        while (true) {
            boolean any = false;
            for (String id : c.atFault()) {
                Integer t = byName.get(id);
                if (t != null && !aside[t]) { aside[t] = true; any = true; }
            }
            if (!any) return new Result(found, null, "a certificate named no transaction of the history; the search stopped");
            if (found.size() >= max) return new Result(found, null, "stopped after " + max + " violations");
            double left = (deadline - System.nanoTime()) / 1e9;
            if (left <= 0.05) return new Result(found, null, "the budget ran out after " + found.size() + " violations");
            Verdict v = Checker.check(without(h, aside), seconds > 0 ? options.withTimeout(options.timeoutSeconds() > 0 ? Math.min(left, options.timeoutSeconds()) : left) : options);
            if (v.outcome() != Verdict.Outcome.REJECT) return new Result(found, v, null);
            c = v.certificate();
            found.add(c);
        }
    }

    /** {@code h} without the transactions {@code aside} marks, and without every read of one of their writes. */
    public static History without(History h, boolean[] aside) {
        Set<Long> asideWrites = new HashSet<>();
        for (int t = 0; t < h.size(); t++)
            if (aside[t]) for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.WRITE) asideWrites.add(((long) h.key(op) << 32) | h.value(op));
        HistoryBuilder b = new HistoryBuilder();
        for (int t = 0; t < h.size(); t++) {
            if (aside[t]) continue;
            b.begin(h.name(t), b.session(h.sessionName(h.session(t))), h.status(t), h.start(t), h.end(t), h.line(t));
            for (int op = h.opStart(t); op < h.opEnd(t); op++) {
                int k = b.key(h.keyName(h.key(op)));
                int v = h.value(op);
                if (h.kind(op) == History.READ && v != History.NIL && asideWrites.contains(((long) h.key(op) << 32) | v)) continue;
                int bv = v == History.NIL ? History.NIL : b.value(h.valueName(v));
                if (h.kind(op) == History.WRITE) b.write(k, bv);
                else b.read(k, bv);
            }
            b.end();
        }
        return b.build();
    }
}
