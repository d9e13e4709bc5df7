package org.cobraverify.checker;

import java.util.Locale;

/**
 * The ladder of isolation levels the checker decides, weakest first (docs/DESIGN.md §11 defines each one). Every level
 * implies every level before it: a history that satisfies a level satisfies all weaker ones.
 */
public enum IsolationLevel {
    /** Biswas–Enea read committed: no read sees a version older than one its transaction already saw (docs/DESIGN.md §11.1). */
    READ_COMMITTED("read-committed", "rc"),
    /**
     * Read committed strengthened by session order (as Elle's strong session variants strengthen theirs): a transaction also
     * sees its session's earlier writes (read-your-writes), docs/DESIGN.md §11.1.
     */
    STRONG_SESSION_READ_COMMITTED("strong-session-read-committed", "ssrc"),
    /** Read atomic: a transaction that sees another's write sees all of its writes (no fractured read). */
    READ_ATOMIC("read-atomic", "ra"),
    /** Transactional causal consistency: a transaction sees every write its causal past saw. */
    CAUSAL("causal", "cc"),
    /** Snapshot isolation: each transaction reads one consistent snapshot, and concurrent transactions write disjoint keys. */
    SNAPSHOT_ISOLATION("snapshot-isolation", "si"),
    /** Serializability with session order. */
    SERIALIZABLE("serializable", "ser"),
    /** Serializability that also respects real time: a transaction that ended before another began comes first. */
    STRICT_SERIALIZABLE("strict-serializable", "strict-ser");

    private final String longName, shortName;

    IsolationLevel(String longName, String shortName) { this.longName = longName; this.shortName = shortName; }

    public String longName() { return longName; }

    public String shortName() { return shortName; }

    /** Whether a history satisfying this level satisfies {@code other} too (every level implies itself). */
    public boolean implies(IsolationLevel other) { return other.ordinal() <= ordinal(); }

    /** A level by its long or short name (case-insensitive; {@code _} and {@code -} alike), or an error listing the names. */
    public static IsolationLevel parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (IsolationLevel l : values()) if (l.longName.equals(n) || l.shortName.equals(n)) return l;
        if (n.equals("strict") || n.equals("strict-serializability")) return STRICT_SERIALIZABLE;
        if (n.equals("serializability")) return SERIALIZABLE;
        StringBuilder sb = new StringBuilder();
        for (IsolationLevel l : values()) sb.append(sb.length() == 0 ? "" : ", ").append(l.longName).append(" (").append(l.shortName).append(')');
        throw new IllegalArgumentException("unknown isolation level '" + name + "': the levels are " + sb);
    }

    @Override
    public String toString() { return longName; }
}
