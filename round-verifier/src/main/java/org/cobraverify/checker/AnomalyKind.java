package org.cobraverify.checker;

/** The named anomalies a certificate can carry (Adya's phenomena and the common names for them). */
public enum AnomalyKind {
    /** A read of a (key, value) that no operation wrote. */
    UNWRITTEN_READ("read of a never-written value"),
    /** G1a: a read of a write by an aborted transaction. */
    G1A("G1a (aborted read)"),
    /** G1b: a read of a write that its own transaction later overwrote. */
    G1B("G1b (intermediate read)"),
    /**
     * A read of a write that garbage collection had already found superseded: a later write of the key
     * precedes every transaction after the collected epochs (through the fence chain), so the reader would
     * have to come both after it and before it (G-single through the collected past).
     */
    STALE_READ("stale read of a collected (superseded) write"),
    /** A transaction that does not see its own write. */
    INTERNAL("internal inconsistency"),
    /** A transaction that read one key twice, with no write of its own between, and saw two versions (allowed at read committed only). */
    NON_REPEATABLE_READ("non-repeatable read"),
    /** Read committed: a read saw a version older than one its transaction had already seen, or than a write its session had made or seen. */
    NON_MONOTONIC_READ("non-monotonic read"),
    /** Read atomic: a transaction saw some of another's writes and missed others (an older version of a key that one wrote). */
    FRACTURED_READ("fractured read"),
    /** Causal: a transaction missed a write that its causal past (session order and reads, transitively) had seen. */
    CAUSALITY_VIOLATION("causality violation"),
    /** Two transactions read-modified-wrote the same version. */
    LOST_UPDATE("lost update"),
    /** List reads that disagree on a key's version order. */
    INCOMPATIBLE_ORDER("incompatible order"),
    /** G0: a cycle of write-write dependencies. */
    G0("G0 (write cycle)"),
    /** G1c: a cycle of write-write and write-read dependencies. */
    G1C("G1c (circular information flow)"),
    /** G-single: a cycle with exactly one anti-dependency (read skew). */
    G_SINGLE("G-single (read skew)"),
    /** G2 with two transactions and two anti-dependencies. */
    WRITE_SKEW("write skew (G2)"),
    /** G2: two writers, two readers who see them in opposite orders. */
    LONG_FORK("long fork (G2)"),
    /** G2: a cycle with two or more anti-dependencies. */
    G2("G2 (anti-dependency cycle)"),
    /** A cycle that needs session order to close (it would not be one without so edges). */
    SESSION_CYCLE("cycle through session order"),
    /** No serial order exists, proved by search; the certificate is a non-serializable sub-history. */
    UNSERIALIZABLE("not serializable (proved by search)"),
    /** No version order makes the history snapshot isolated, proved by search; the certificate lists the transactions involved. */
    NOT_SNAPSHOT_ISOLATED("not snapshot isolation (proved by search)");

    private final String title;

    AnomalyKind(String title) { this.title = title; }

    public String title() { return title; }
}
