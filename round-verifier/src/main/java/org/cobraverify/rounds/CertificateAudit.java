package org.cobraverify.rounds;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.history.History;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;

/**
 * Holds a published certificate to the whole history it speaks of, for the differential ({@link RoundsOracle}): written from
 * the history's accessors and the certificate as published, sharing nothing with the checker that made it. A certificate is
 * valid when every transaction it names is in the history; its cycle, if it has one, is a cycle (each edge starts where the
 * last ended, and the last ends where the first started); each of its edges is justified by the history; and the anomaly it
 * names is the one its edges make (or, without a cycle, the history shows that anomaly in the transactions it names).
 *
 * <p>An edge is justified when: {@code so}, its two ends are of one session, in that order, and the first is not of unknown
 * outcome (docs/DESIGN.md §1.2); {@code wr(k)}, the second read {@code k} from the first's final write of it; {@code ww(k)},
 * both write {@code k}, and, unless the edge is derived (it says why), the first's version precedes the second's
 * ({@link #versionBefore}); {@code rw(k)}, the first read {@code k} and the second writes it, and, unless derived, the version
 * read precedes the second's; {@code rt}, the first has an end and is not of unknown outcome, the second has a
 * start, and the first ended more than the drift before the second began, or (a timed path, which says why) facts and
 * real-time order lead from the first to the second. A synthetic writer of the collected past is named
 * as the collected writer it stands for. Edges of the collected past ({@code past}, {@code path}, {@code settled}) stand for
 * facts of transactions the verifier no longer holds, which the history alone does not show: their ends must be in it.
 */
final class CertificateAudit {
    private final History h;
    private final long driftNanos;
    /** Whether real-time order is a fact (strict serializability): then {@link #follows} takes it too. */
    private final boolean strict;
    /**
     * Whether the level puts a read-modify-write's version right after the one it read (snapshot isolation and above): then
     * a reader of a version precedes the read-modify-writes of it, and {@link #follows} takes that too.
     */
    private final boolean chains;
    private final Map<String, Integer> byName = new HashMap<>(), keyByShown = new HashMap<>();
    /** Each write's operation by (key, value). */
    private final Map<Long, Integer> writeOp = new HashMap<>();

    CertificateAudit(History h, boolean strict, long driftNanos, boolean chains) {
        this.h = h;
        this.strict = strict;
        this.chains = chains;
        this.driftNanos = driftNanos;
        for (int t = 0; t < h.size(); t++) { byName.put(h.name(t), t); byName.putIfAbsent(h.label(t), t); }
        for (int k = 0; k < h.keyCount(); k++) keyByShown.put(History.show(h.keyName(k)), k);
        for (int op = 0; op < h.opCount(); op++) if (h.kind(op) == History.WRITE) writeOp.putIfAbsent(pair(h.key(op), h.value(op)), op);
    }

    private static long pair(int k, int v) { return (long) k << 32 | (v & 0xffffffffL); }

    /** The transaction a certificate's name stands for (a synthetic writer's, its collected writer), or null. */
    private Integer txn(String name) {
        int mark = name.indexOf(" [collected; its write of ");
        return byName.get(mark < 0 ? name : name.substring(0, mark));
    }

    /** What is wrong with {@code c}, or null when it is valid. */
    String problem(Certificate c) {
        AnomalyKind kind = kindOf(c.getAnomaly());
        if (kind == null) return "names an anomaly no kind has: " + c.getAnomaly();
        for (CertTxn x : c.getTransactions())
            if (txn(x.getId()) == null) return "names " + x.getId() + ", which the history lacks";
        List<CycleEdge> cycle = c.getCycle();
        int rw = 0, wr = 0, ww = 0, derived = 0, past = 0;
        for (int i = 0; i < cycle.size(); i++) {
            CycleEdge e = cycle.get(i), next = cycle.get((i + 1) % cycle.size());
            if (!e.getTo().equals(next.getFrom())) return "its cycle breaks between " + e.getFrom() + " -> " + e.getTo() + " and " + next.getFrom();
            String bad = unjustified(e);
            if (bad != null) return "edge " + e.getFrom() + " -" + e.getKind() + (e.getKey() == null ? "" : "(" + e.getKey() + ")") + "-> " + e.getTo() + ": " + bad
                    + (e.getWhy() == null ? "" : " (it says: " + e.getWhy() + ")");
            switch (e.getKind()) {
                case "rw" -> rw++;
                case "wr" -> wr++;
                case "ww" -> ww++;
                case "past", "path", "settled" -> past++;
                default -> { }
            }
            if (e.getWhy() != null && !e.getKind().equals("rt")) derived++;
        }
        return cycle.isEmpty() ? unshown(kind, c) : misnamed(kind, cycle.size(), rw, wr, ww, derived, past);
    }

    private static AnomalyKind kindOf(String name) {
        for (AnomalyKind k : AnomalyKind.values()) if (k.displayName().equals(name)) return k;
        return null;
    }

    /** Why edge {@code e} is not justified by the history, or null. */
    private String unjustified(CycleEdge e) {
        Integer a = txn(e.getFrom()), b = txn(e.getTo());
        if (a == null || b == null) return "names a transaction the history lacks";
        boolean derivedEdge = e.getWhy() != null;
        Integer k = e.getKey() == null ? null : keyByShown.get(e.getKey());
        if (e.getKey() != null && k == null) return "names a key the history lacks";
        switch (e.getKind()) {
            case "so": return h.session(a) == h.session(b) && a < b && h.status(a) != History.UNKNOWN ? null
                    : "not session order (one session, that order, the first not of unknown outcome)";
            case "wr": return k != null && readsFrom(b, k, a) ? null : "the second did not read the key from the first's final write";
            case "ww":
                if (k == null || !writes(a, k) || !writes(b, k)) return "not both write the key";
                return derivedEdge || versionBefore(a, b, k) ? null : "not derived, and nothing orders the first's version before the second's";
            case "rw":
                if (k == null || !reads(a, k) || !writes(b, k)) return "the first does not read the key, or the second does not write it";
                return derivedEdge || readsOlder(a, b, k) ? null : "not derived, and nothing orders the version the first read before the second's";
            case "rt": {
                long end = h.status(a) == History.UNKNOWN ? History.NO_TIME : h.end(a), start = h.start(b);
                if (end != History.NO_TIME && start != History.NO_TIME && end + driftNanos < start) return null;
                // a timed path (it says why): facts and real-time order lead from the first to the second
                return derivedEdge && strict && follows(a, b) ? null : "the first did not end before the second began";
            }
            case "past": case "path": case "settled": return null; // facts of the collected past: the ends are in the history
            default: return "an edge of unknown kind";
        }
    }

    /** Whether the cycle's edges make the anomaly named, by the kinds they are: counts of each, of derived edges and of the past's. */
    private static String misnamed(AnomalyKind kind, int len, int rw, int wr, int ww, int derived, int past) {
        boolean ok = switch (kind) {
            case G0 -> rw == 0 && wr == 0 && ww > 0;
            case G1C -> rw == 0 && wr + ww > 0;
            case SESSION_CYCLE -> rw == 0 && wr == 0 && ww == 0;
            case G_SINGLE -> rw == 1;
            case WRITE_SKEW -> rw == 2 && len == 2;
            case LONG_FORK -> rw == 2 && wr == 2 && len == 4;
            case G2 -> rw >= 2;
            // the weaker levels' anomalies: a cycle their premises close, through an edge they derived (or the past's superseder)
            case NON_MONOTONIC_READ, READ_YOUR_WRITES, FRACTURED_READ, CAUSALITY_VIOLATION -> derived > 0;
            case STALE_READ -> rw >= 1 && past >= 1;
            default -> false;
        };
        return ok ? null : "its edges (" + len + ": " + rw + " rw, " + wr + " wr, " + ww + " ww, " + derived + " derived, " + past
                + " of the past) do not make " + kind.displayName();
    }

    /** For a certificate without a cycle: why the history does not show {@code kind} in the transactions it names, or null. */
    private String unshown(AnomalyKind kind, Certificate c) {
        boolean shown = false;
        for (CertTxn x : c.getTransactions()) {
            Integer t = byName.get(x.getId());
            if (t == null) continue;
            shown |= switch (kind) {
                case G1A -> readOf(t, w -> h.status(w) == History.ABORTED);
                case G1B -> readOfIntermediate(t);
                case UNWRITTEN_READ -> readOfNobody(t);
                case INTERNAL -> internallyInconsistent(t);
                case NON_REPEATABLE_READ -> readTwiceDifferently(t);
                case LOST_UPDATE -> lostUpdateWithAnother(t, c);
                // the weaker levels' premise through the initial state, and refutations by search: the named transactions suffice
                case NON_MONOTONIC_READ, READ_YOUR_WRITES, FRACTURED_READ, CAUSALITY_VIOLATION, UNSERIALIZABLE, NOT_SNAPSHOT_ISOLATED,
                     INCOMPATIBLE_ORDER -> true;
                default -> false;
            };
        }
        return shown ? null : "none of the transactions it names shows " + kind.displayName();
    }

    // ---- what a transaction did, from the history alone

    /**
     * Whether a path of facts leads from {@code a} to {@code b}: session order (from a transaction not of unknown outcome to a
     * later one of its session), reads-from (from a writer to a reader of its final write), at snapshot isolation and above
     * the anti-dependency on a read-modify-write (from a reader of a version to a transaction that read the same version
     * and wrote the key) and on every writer of a key whose initial version it read, and in strict mode real-time order, through transactions that did not abort. Every commit order
     * of the history (at the level) orders {@code a} before {@code b} then.
     */
    private boolean follows(int a, int b) {
        if (a == b) return false;
        boolean[] seen = new boolean[h.size()];
        java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>();
        q.add(a);
        seen[a] = true;
        while (!q.isEmpty()) {
            int u = q.poll();
            for (int v : successors(u)) {
                if (v == b) return true;
                if (!seen[v]) { seen[v] = true; q.add(v); }
            }
        }
        return false;
    }

    /** {@code u}'s successors by one fact (see {@link #follows}); none for an aborted one. */
    private List<Integer> successors(int u) {
        List<Integer> out = new java.util.ArrayList<>();
        if (h.status(u) == History.ABORTED) return out;
        if (h.status(u) != History.UNKNOWN)
            for (int v = u + 1; v < h.size(); v++) if (h.session(v) == h.session(u) && h.status(v) != History.ABORTED) out.add(v);
        for (int v = 0; v < h.size(); v++) if (v != u && h.status(v) != History.ABORTED && readsFinalOf(v, u)) out.add(v);
        if (chains)
            for (int op = h.opStart(u); op < h.opEnd(u); op++) {
                if (h.kind(op) != History.READ) continue;
                for (int v = 0; v < h.size(); v++)
                    if (v != u && h.status(v) != History.ABORTED && (predecessorInChain(v, h.key(op)) == versionWriter(h.key(op), h.value(op))
                            || h.value(op) == History.NIL && writes(v, h.key(op)))) out.add(v);
            }
        if (strict && h.status(u) != History.UNKNOWN && h.end(u) != History.NO_TIME)
            for (int v = 0; v < h.size(); v++)
                if (v != u && h.status(v) != History.ABORTED && h.start(v) != History.NO_TIME && h.end(u) + driftNanos < h.start(v)) out.add(v);
        return out;
    }

    /** Whether {@code v} read some key from {@code u}'s final write of it. */
    private boolean readsFinalOf(int v, int u) {
        for (int op = h.opStart(v); op < h.opEnd(v); op++) {
            if (h.kind(op) != History.READ) continue;
            int wo = writeOf(h.key(op), h.value(op));
            if (wo >= 0 && txnOf(wo) == u && isFinalWrite(u, wo)) return true;
        }
        return false;
    }

    /** Whether some version of {@code k} that {@code a} read precedes {@code b}'s ({@link #versionBefore}; the initial one always does). */
    private boolean readsOlder(int a, int b, int k) {
        for (int op = h.opStart(a); op < h.opEnd(a); op++) {
            if (h.kind(op) != History.READ || h.key(op) != k) continue;
            if (h.value(op) == History.NIL) return true;
            int wo = writeOf(k, h.value(op));
            if (wo >= 0 && txnOf(wo) != b && versionBefore(txnOf(wo), b, k)) return true;
        }
        return false;
    }

    /**
     * Whether {@code w}'s version of {@code k} precedes {@code b}'s in every order that puts a read-modify-write's version right
     * after the one it read (serializability and snapshot isolation, whose certificates draw such edges): {@code w} leads to
     * {@code b} by facts ({@link #follows}); or {@code w} leads by facts to a reader of {@code b}'s version; or {@code w} ends a
     * chain of read-modify-writes of {@code k} (each reading the one before) that {@code b} is not on, from a version that
     * precedes {@code b}'s so (the initial one always does): the chain's versions are consecutive.
     */
    private boolean versionBefore(int w, int b, int k) {
        if (precedes(w, b, k)) return true;
        java.util.Set<Integer> chain = new java.util.HashSet<>();
        chain.add(w);
        for (int p = predecessorInChain(w, k); ; p = predecessorInChain(p, k)) {
            if (p == NO_CHAIN || p == b) return false;
            if (p == INITIAL) return !chain.contains(b);
            if (!chain.add(p)) return false; // (a cycle of reads: no order)
            if (precedes(p, b, k)) return true;
        }
    }

    private static final int INITIAL = -1, NO_CHAIN = -2;

    /** By facts alone: {@code w} leads to {@code b}, or to a reader of {@code b}'s version of {@code k}. */
    private boolean precedes(int w, int b, int k) {
        if (follows(w, b)) return true;
        for (int r = 0; r < h.size(); r++) if (r != w && h.status(r) != History.ABORTED && readsFrom(r, k, b) && follows(w, r)) return true;
        return false;
    }

    /** The writer of version {@code v} of {@code k} ({@link #INITIAL} for the initial one), or {@link #NO_CHAIN} when none wrote it last. */
    private int versionWriter(int k, int v) {
        if (v == History.NIL) return INITIAL;
        int wo = writeOf(k, v);
        return wo < 0 || !isFinalWrite(txnOf(wo), wo) ? NO_CHAIN - 1 : txnOf(wo);
    }

    /** The writer whose version of {@code k} {@code t} read before writing {@code k} ({@link #INITIAL}: the initial one), or {@link #NO_CHAIN}. */
    private int predecessorInChain(int t, int k) {
        if (!writes(t, k) || !readFirstIsExternal(t, k)) return NO_CHAIN;
        int v = readFirst(t, k);
        if (v == History.NIL) return INITIAL;
        int wo = writeOf(k, v);
        return wo < 0 || txnOf(wo) == t || !isFinalWrite(txnOf(wo), wo) ? NO_CHAIN : txnOf(wo);
    }

    /** The value {@code t}'s first read of {@code k} returned, or a value no read returns when it has none. */
    private int readFirst(int t, int k) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.READ && h.key(op) == k) return h.value(op);
        return Integer.MIN_VALUE;
    }

    /** Whether {@code t} reads {@code k} before it writes it. */
    private boolean readFirstIsExternal(int t, int k) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (h.key(op) != k) continue;
            return h.kind(op) == History.READ;
        }
        return false;
    }


    private boolean writes(int t, int k) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.WRITE && h.key(op) == k) return true;
        return false;
    }

    private boolean reads(int t, int k) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) if (h.kind(op) == History.READ && h.key(op) == k) return true;
        return false;
    }

    /** The operation that wrote {@code (k, v)}, or -1. */
    private int writeOf(int k, int v) {
        if (v == History.NIL) return -1;
        Integer op = writeOp.get(pair(k, v));
        return op == null ? -1 : op;
    }

    private int txnOf(int op) {
        int lo = 0, hi = h.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (h.opStart(mid) <= op) lo = mid; else hi = mid - 1;
        }
        return lo;
    }

    private boolean isFinalWrite(int t, int op) {
        for (int o = op + 1; o < h.opEnd(t); o++) if (h.kind(o) == History.WRITE && h.key(o) == h.key(op)) return false;
        return true;
    }

    /** Whether {@code t} read {@code k} from {@code w}'s final write of it. */
    private boolean readsFrom(int t, int k, int w) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (h.kind(op) != History.READ || h.key(op) != k) continue;
            int wo = writeOf(k, h.value(op));
            if (wo >= 0 && txnOf(wo) == w && w != t && isFinalWrite(w, wo)) return true;
        }
        return false;
    }

    /** Whether some read of {@code k} by {@code a} and some by {@code b} returned the same version. */
    private boolean readsSameVersion(int a, int b, int k) {
        for (int x = h.opStart(a); x < h.opEnd(a); x++)
            for (int y = h.opStart(b); y < h.opEnd(b); y++)
                if (h.kind(x) == History.READ && h.kind(y) == History.READ && h.key(x) == k && h.key(y) == k && h.value(x) == h.value(y)) return true;
        return false;
    }

    private boolean readOf(int t, java.util.function.IntPredicate writer) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (h.kind(op) != History.READ) continue;
            int wo = writeOf(h.key(op), h.value(op));
            if (wo >= 0 && txnOf(wo) != t && writer.test(txnOf(wo))) return true;
        }
        return false;
    }

    private boolean readOfIntermediate(int t) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (h.kind(op) != History.READ) continue;
            int wo = writeOf(h.key(op), h.value(op));
            if (wo >= 0 && txnOf(wo) != t && !isFinalWrite(txnOf(wo), wo)) return true;
        }
        return false;
    }

    private boolean readOfNobody(int t) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++)
            if (h.kind(op) == History.READ && h.value(op) != History.NIL && writeOf(h.key(op), h.value(op)) < 0) return true;
        return false;
    }

    /** A read after an own write of the key that returns another value, or a read of a value it writes only later. */
    private boolean internallyInconsistent(int t) {
        for (int op = h.opStart(t); op < h.opEnd(t); op++) {
            if (h.kind(op) != History.READ) continue;
            int own = History.NIL;
            boolean wrote = false;
            for (int o = h.opStart(t); o < op; o++) if (h.kind(o) == History.WRITE && h.key(o) == h.key(op)) { wrote = true; own = h.value(o); }
            if (wrote && own != h.value(op)) return true;
            int wo = writeOf(h.key(op), h.value(op));
            if (!wrote && wo > op && txnOf(wo) == t) return true;
        }
        return false;
    }

    /** Two reads of one key, with no own write between, that returned different versions. */
    private boolean readTwiceDifferently(int t) {
        for (int x = h.opStart(t); x < h.opEnd(t); x++)
            for (int y = x + 1; y < h.opEnd(t); y++) {
                if (h.kind(x) != History.READ || h.kind(y) != History.READ || h.key(x) != h.key(y) || h.value(x) == h.value(y)) continue;
                boolean between = false;
                for (int o = h.opStart(t); o < y; o++) between |= h.kind(o) == History.WRITE && h.key(o) == h.key(x);
                if (!between) return true;
            }
        return false;
    }

    /** Whether {@code t} and another transaction {@code c} names both read one version of a key and both write the key. */
    private boolean lostUpdateWithAnother(int t, Certificate c) {
        for (CertTxn x : c.getTransactions()) {
            Integer u = byName.get(x.getId());
            if (u == null || u == t) continue;
            for (int k = 0; k < h.keyCount(); k++) if (writes(t, k) && writes(u, k) && readsSameVersion(t, u, k)) return true;
        }
        return false;
    }
}
