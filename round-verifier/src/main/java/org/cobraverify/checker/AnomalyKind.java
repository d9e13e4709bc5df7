package org.cobraverify.checker;

import static org.cobraverify.checker.IsolationLevel.CAUSAL;
import static org.cobraverify.checker.IsolationLevel.READ_ATOMIC;
import static org.cobraverify.checker.IsolationLevel.READ_COMMITTED;
import static org.cobraverify.checker.IsolationLevel.SERIALIZABLE;
import static org.cobraverify.checker.IsolationLevel.SNAPSHOT_ISOLATION;
import static org.cobraverify.checker.IsolationLevel.STRONG_SESSION_READ_COMMITTED;

/**
 * The named anomalies a certificate can carry, and what each one is (docs/DESIGN.md §11.2): the name every report shows
 * ({@link #displayName}), its class in Adya's taxonomy ({@link #adyaClass}), the weakest level of the ladder it violates
 * ({@link #weakestViolated}), and what it means in one sentence ({@link #meaning}). Every report takes these from here.
 *
 * <p><b>Adya's classes.</b> G0, G1a, G1b, G1c, G-single, G2-item and G2 are Adya's phenomena. A cycle with one
 * anti-dependency is G-single whatever else it is, so the non-monotonic, non-repeatable and fractured reads, the causality
 * violation and the lost update are G-single too: the ladder (Biswas and Enea's) forbids some G-single shapes below
 * snapshot isolation. cobra reads items, never predicates: its write skews and long forks are G2-item. Where Adya has no
 * phenomenon (his model has no reads of values nobody wrote, no reads of a transaction's own writes, no list reads, no
 * session order, no garbage collection, no refutation by search), the class is cobra's own, written {@code cobra: ...}
 * ({@link #isAdyaClass} says which).
 *
 * <p><b>The weakest level violated</b> is the level that first forbids the anomaly: every history showing it is rejected
 * at that level and every stronger one, and a history showing it may satisfy every weaker one. A kind that breaks every
 * level names read committed. A cycle closed through real-time order (an {@code rt} edge) breaks strict serializability
 * only, whatever its kind: the certificate's summary says so. Snapshot isolation and the levels above it take a
 * read-modify-write's version to follow the version it read at once (they forbid lost updates); a G0, G1c or incompatible
 * order that their checks find in the version order this gives may break no weaker level.
 */
public enum AnomalyKind {
    /** A read of a (key, value) that no operation wrote. */
    UNWRITTEN_READ("read of a never-written value", "cobra: unwritten read", false, READ_COMMITTED,
            "A transaction read a value that no transaction ever wrote: the database returned data from nowhere."),
    /** G1a: a read of a write by an aborted transaction. */
    G1A("G1a (aborted read)", "G1a", true, READ_COMMITTED,
            "A transaction read a write of a transaction that aborted: it saw data that never existed (dirty read)."),
    /** G1b: a read of a write that its own transaction later overwrote. */
    G1B("G1b (intermediate read)", "G1b", true, READ_COMMITTED,
            "A transaction read a value that its writer later overwrote in the same transaction: it saw an intermediate state."),
    /**
     * A read of a write that garbage collection had already found superseded: a later write of the key precedes every
     * transaction after the collected epochs (through the fence chain), so the reader would have to come both after it and
     * before it, a cycle {@code reader -rw-> later writer -past-> reader} through the collected past (G-single when the
     * past's path holds no anti-dependency). Only verification in rounds, which decides serializability, reports it.
     */
    STALE_READ("stale read of a collected (superseded) write", "cobra: stale read", false, SERIALIZABLE,
            "A transaction read a value that had already been overwritten before it started: a stale read."),
    /** A transaction that does not see its own write. */
    INTERNAL("internal inconsistency", "cobra: internal inconsistency", false, READ_COMMITTED,
            "A transaction did not see its own write."),
    /** A transaction that read one key twice, with no write of its own between, and saw two versions (allowed at read committed only). */
    NON_REPEATABLE_READ("non-repeatable read", "G-single", true, READ_ATOMIC,
            "A transaction read one key twice and got two versions: allowed at read committed, at no level above it."),
    /** Read committed: a read saw a version older than one its transaction had already seen. */
    NON_MONOTONIC_READ("non-monotonic read", "G-single", true, READ_COMMITTED,
            "A read went back in time: it saw a version older than one its transaction had already seen."),
    /**
     * Read-your-writes broken: a read saw a version older than one its session had written in an earlier transaction. Read
     * committed allows it; every level from strong session read committed up forbids it.
     */
    READ_YOUR_WRITES("read-your-writes violation", "G-single", true, STRONG_SESSION_READ_COMMITTED,
            "A read missed its own session's earlier write: it saw a version older than one its session had already written."),
    /** Read atomic: a transaction saw some of another's writes and missed others (an older version of a key that one wrote). */
    FRACTURED_READ("fractured read", "G-single", true, READ_ATOMIC,
            "A transaction saw some of another transaction's writes and an older version of a key that one also wrote: it saw half of a transaction."),
    /** Causal: a transaction missed a write that its causal past (session order and reads, transitively) had seen. */
    CAUSALITY_VIOLATION("causality violation", "G-single", true, CAUSAL,
            "A transaction missed a write that its causal past (its session's earlier work and what it read, transitively) had already seen."),
    /** Two transactions read-modified-wrote the same version. */
    LOST_UPDATE("lost update", "G-single", true, SNAPSHOT_ISOLATION,
            "Two transactions read the same version of a key and both wrote it: one update was lost."),
    /** List reads that disagree on a key's version order. */
    INCOMPATIBLE_ORDER("incompatible order", "cobra: incompatible order", false, READ_COMMITTED,
            "Reads disagree on the order of a key's versions: no single history of that key explains them."),
    /** G0: a cycle of write-write dependencies. */
    G0("G0 (write cycle)", "G0", true, READ_COMMITTED,
            "Writes of two or more transactions interleave in a cycle: no order of the transactions explains the final values."),
    /** G1c: a cycle of write-write and write-read dependencies. */
    G1C("G1c (circular information flow)", "G1c", true, READ_COMMITTED,
            "Information flows in a circle: each transaction saw (or overwrote) the next one's effects."),
    /** G-single: a cycle with exactly one anti-dependency (read skew). */
    G_SINGLE("G-single (read skew)", "G-single", true, SNAPSHOT_ISOLATION,
            "A transaction saw some effects of another transaction but missed others (read skew)."),
    /** G2 with two transactions and two anti-dependencies. */
    WRITE_SKEW("write skew (G2)", "G2-item", true, SERIALIZABLE,
            "Two transactions each read what the other then changed, and both committed: together they broke what each checked."),
    /** G2: two writers, two readers who see them in opposite orders. */
    LONG_FORK("long fork (G2)", "G2-item", true, SNAPSHOT_ISOLATION,
            "Two readers saw two independent writes in opposite orders: the database forked."),
    /** G2: a cycle with two or more anti-dependencies (some, whose anti-dependencies never meet, break snapshot isolation too). */
    G2("G2 (anti-dependency cycle)", "G2", true, SERIALIZABLE,
            "A cycle of dependencies with anti-dependencies (a read followed by another's overwrite): no serial order exists."),
    /**
     * A cycle that needs session order to close (it would not be one without so edges): its other edges stand for paths
     * through collected transactions or orders settled by garbage collection, which only the serializability checks draw.
     */
    SESSION_CYCLE("cycle through session order", "cobra: session cycle", false, SERIALIZABLE,
            "The dependencies close a cycle through a session's own order: a client saw its own later work undone."),
    /** No serial order exists, proved by search; the certificate is a non-serializable sub-history. */
    UNSERIALIZABLE("not serializable (proved by search)", "cobra: no serial order", false, SERIALIZABLE,
            "No serial order of these transactions exists; proved by exhausting every order of the writes."),
    /** No version order makes the history snapshot isolated, proved by search; the certificate lists the transactions involved. */
    NOT_SNAPSHOT_ISOLATED("not snapshot isolation (proved by search)", "cobra: no snapshot order", false, SNAPSHOT_ISOLATION,
            "No order of the writes lets every transaction read from one snapshot with no two concurrent writers of a key; proved by exhausting them.");

    private final String displayName, adyaClass, meaning;
    private final boolean adya;
    private final IsolationLevel weakestViolated;

    AnomalyKind(String displayName, String adyaClass, boolean adya, IsolationLevel weakestViolated, String meaning) {
        this.displayName = displayName;
        this.adyaClass = adyaClass;
        this.adya = adya;
        this.weakestViolated = weakestViolated;
        this.meaning = meaning;
    }

    /** The name reports show, and verdicts carry as the certificate's {@code anomaly}: a published string, never changed. */
    public String displayName() { return displayName; }

    /** Adya's phenomenon ({@code G0}, {@code G1a}, {@code G-single}, {@code G2-item}, ...), or {@code cobra: ...} where Adya has none. */
    public String adyaClass() { return adyaClass; }

    /** Whether {@link #adyaClass} is one of Adya's phenomena (false: a class of cobra's own). */
    public boolean isAdyaClass() { return adya; }

    /** The weakest level of the ladder that forbids this anomaly (see the class comment). */
    public IsolationLevel weakestViolated() { return weakestViolated; }

    /** What the anomaly means, in one sentence for a person reading a report. */
    public String meaning() { return meaning; }

    /** Which of a certificate's transactions are at fault: the ones set aside after it (docs/DESIGN.md §7.10). */
    public enum Blame {
        /** Every transaction the certificate names (a cycle, or a sub-history refuted by search): together they are the violation. */
        EVERY,
        /**
         * The reader alone, of a read that should not have been possible (an aborted, intermediate or never-written value, an
         * internal inconsistency, a non-repeatable read, a stale read of a collected write): the certificate's last
         * transaction, a stale read's first.
         */
        READER,
        /** The two transactions that read one version and both overwrote it: the certificate's last two (the version's writer, first, did nothing wrong). */
        OVERWRITERS
    }

    /** Which of a certificate of this kind's transactions are at fault. */
    public Blame blame() {
        return switch (this) {
            case G1A, G1B, UNWRITTEN_READ, INTERNAL, NON_REPEATABLE_READ, STALE_READ -> Blame.READER;
            case LOST_UPDATE -> Blame.OVERWRITERS;
            default -> Blame.EVERY;
        };
    }

    /** The positions, in a certificate of this kind listing {@code n} transactions, of those at fault ({@link #blame}). */
    public int[] blamed(int n) {
        if (n == 0) return new int[0];
        return switch (blame()) {
            case READER -> new int[] {this == STALE_READ ? 0 : n - 1};
            case OVERWRITERS -> n < 2 ? new int[] {0} : new int[] {n - 2, n - 1};
            case EVERY -> java.util.stream.IntStream.range(0, n).toArray();
        };
    }

    /** The kind named {@code name}: its {@link #displayName} (as verdicts carry it) or its constant's name; null when none is. */
    public static AnomalyKind named(String name) {
        for (AnomalyKind k : values()) if (k.displayName.equals(name) || k.name().equals(name)) return k;
        return null;
    }
}
