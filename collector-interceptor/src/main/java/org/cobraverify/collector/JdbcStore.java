package org.cobraverify.collector;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A relational database as a key-value store: one table {@code (k primary key, v)}, one connection per
 * thread, at a chosen isolation level. Tested on PostgreSQL, MariaDB, H2 and SQLite (both embedded). Serialization
 * failures and deadlocks (SQLSTATE 40001, 40P01, MariaDB lock wait timeouts, H2 lock timeouts and concurrent updates,
 * SQLite's busy and locked results) are aborts; a connection failure during commit leaves the outcome unknown.
 */
public final class JdbcStore implements KvStore {
    static {
        // the MariaDB driver logs every deadlock it reports; aborts are expected here and counted instead
        if (System.getProperty("mariadb.logging.disable") == null) System.setProperty("mariadb.logging.disable", "true");
    }

    public enum Isolation {
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE), REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED), READ_UNCOMMITTED(Connection.TRANSACTION_READ_UNCOMMITTED);

        final int level;

        Isolation(int level) { this.level = level; }

        public static Isolation parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT).replace(' ', '_').replace('-', '_'));
        }
    }

    private final String url, user, password, table;
    private final Isolation isolation;
    private final boolean mysql, h2, sqlite;
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();
    private final List<Connection> all = new ArrayList<>();

    public JdbcStore(String url, String user, String password, String table, Isolation isolation, boolean createTable) throws StoreException {
        this.url = url;
        this.user = user;
        this.password = password;
        this.table = table;
        this.isolation = isolation;
        this.mysql = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
        this.h2 = url.startsWith("jdbc:h2:");
        this.sqlite = url.startsWith("jdbc:sqlite:");
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new StoreException("bad table name " + table);
        if (createTable) {
            try (Connection c = open(); Statement s = c.createStatement()) {
                s.executeUpdate("DROP TABLE IF EXISTS " + table);
                s.executeUpdate("CREATE TABLE " + table + " (k VARCHAR(255) PRIMARY KEY, v " + (h2 ? "VARCHAR" : "TEXT") + " NOT NULL)");
                if (!c.getAutoCommit()) c.commit();
            } catch (SQLException e) {
                throw new StoreException("cannot create table " + table + " at " + url + ": " + e.getMessage(), e);
            }
        }
    }

    private Connection open() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    @Override
    public String name() { return (mysql ? "mariadb " : h2 ? "h2 " : sqlite ? "sqlite " : "postgres ") + isolation; }

    /** Drops the table (tests clean up after themselves). */
    public void dropTable() throws StoreException {
        try (Connection c = open(); Statement s = c.createStatement()) {
            s.executeUpdate("DROP TABLE IF EXISTS " + table);
        } catch (SQLException e) {
            throw new StoreException("cannot drop " + table + ": " + e.getMessage(), e);
        }
    }

    private Connection connection() throws StoreException {
        Connection c = connection.get();
        try {
            if (c == null || c.isClosed()) {
                c = open();
                c.setAutoCommit(false);
                c.setTransactionIsolation(isolation.level);
                connection.set(c);
                synchronized (all) { all.add(c); }
            }
            return c;
        } catch (SQLException e) {
            throw new StoreException("cannot connect to " + url + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void connectThread() throws StoreException { connection(); }

    @Override
    public KvTransaction begin() throws StoreException {
        return new Txn(connection());
    }

    /**
     * PostgreSQL: one statement, in its own read-committed transaction, sent in one round trip: the
     * sub-select locks the row and reads its latest committed value (a concurrent swap waits for the lock,
     * then sees what that one wrote), and the update replaces it. A single-row read-modify-write under a
     * row lock is serializable at any isolation level; read committed makes a concurrent one wait instead
     * of failing (under SERIALIZABLE every concurrent fence aborted and retried). MariaDB has no
     * UPDATE ... RETURNING: null (the transactional fence).
     */
    @Override
    public String swap(String key, String value) throws StoreException {
        if (mysql || h2 || sqlite || !swapEnabled) return null;
        return oneRowStatement("UPDATE " + table + " x SET v = " + literal(value) + " FROM (SELECT k, v FROM " + table
                + " WHERE k = " + literal(key) + " FOR UPDATE) y WHERE x.k = y.k RETURNING y.v", "swap");
    }

    /**
     * PostgreSQL: {@code INSERT ... ON CONFLICT DO NOTHING RETURNING}, in its own read-committed transaction, one round
     * trip: a concurrent insert of the key waits for the first to commit and then does nothing (the unique key decides).
     */
    @Override
    public boolean createIfAbsent(String key, String value) throws StoreException {
        if (mysql || h2 || sqlite || !swapEnabled) return false;
        return oneRowStatement("INSERT INTO " + table + " (k, v) VALUES (" + literal(key) + ", " + literal(value) + ") ON CONFLICT (k) DO NOTHING RETURNING v",
                "create") != null;
    }

    /** Runs {@code sql} alone in a read-committed transaction (committed asynchronously, see {@link #syncFence}); its one returned value, or null. */
    private String oneRowStatement(String statement, String what) throws StoreException {
        Connection c = connection();
        String sql = "BEGIN ISOLATION LEVEL READ COMMITTED; " + (syncFence ? "" : "SET LOCAL synchronous_commit TO OFF; ") + statement + "; COMMIT";
        try {
            c.setAutoCommit(true); // no transaction of the driver's around ours
            try (Statement st = c.createStatement()) {
                boolean rs = st.execute(sql);
                String prev = null;
                boolean found = false;
                while (true) {
                    if (rs) {
                        try (ResultSet r = st.getResultSet()) {
                            if (r.next()) { prev = r.getString(1); found = true; }
                        }
                    } else if (st.getUpdateCount() == -1) break;
                    rs = st.getMoreResults();
                }
                return found ? prev : null;
            } catch (SQLException e) {
                // a failed statement leaves our explicit transaction open and aborted: end it
                try (Statement r = c.createStatement()) { r.execute("ROLLBACK"); } catch (SQLException ignored) { /* the connection is gone */ }
                throw e;
            } finally {
                c.setAutoCommit(false);
            }
        } catch (SQLException e) {
            if (isAbort(e)) throw new AbortedException(name() + " " + what + ": " + e.getMessage(), e);
            throw new StoreException(name() + " " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * The swap commits without waiting for its WAL flush (PostgreSQL's asynchronous commit, for this transaction
     * only): the fence's commit is visible at once and becomes durable with the next flush, at the latest with
     * the next synchronous commit, whose flush covers everything before it in the WAL. So a fence that anything
     * durable read or followed is durable; a crash of the database can lose only fences nothing durable depends
     * on, and if their write was read (by a fence that was lost too) the next fence reads an older value: a lost
     * update, which the checker reports, as it should (committed work was lost). {@code -Dcobra.syncFence=true}:
     * fences wait for the flush like any transaction.
     */
    private final boolean syncFence = Boolean.getBoolean("cobra.syncFence");

    /** Off: fences are serializable read-modify-write transactions like any other (the before figure). */
    private final boolean swapEnabled = !Boolean.getBoolean("cobra.noSwapFence");

    /** An SQL string literal (standard_conforming_strings: only quotes are doubled). */
    private static String literal(String s) { return "'" + s.replace("'", "''") + "'"; }

    static boolean isAbort(SQLException e) {
        String state = e.getSQLState();
        if (state != null && (state.equals("40001") || state.equals("40P01") || state.startsWith("40"))) return true;
        int code = e.getErrorCode();
        return code == 1213 || code == 1205 // MariaDB deadlock, lock wait timeout
                || code == 50200 || code == 90131; // H2 lock timeout, concurrent update of a row
    }

    /** An abort here: {@link #isAbort}, or SQLite's busy and locked results (another connection holds the database's lock). */
    private boolean aborts(SQLException e) {
        return isAbort(e) || (sqlite && ((e.getErrorCode() & 0xff) == 5 || (e.getErrorCode() & 0xff) == 6));
    }

    private StoreException map(SQLException e, String during, Connection c) {
        if (aborts(e)) {
            try { c.rollback(); } catch (SQLException ignored) { /* already failed */ }
            return new AbortedException(name() + " " + during + ": " + e.getMessage(), e);
        }
        return new StoreException(name() + " " + during + ": " + e.getMessage(), e);
    }

    private final class Txn implements KvTransaction {
        private final Connection c;

        Txn(Connection c) { this.c = c; }

        @Override
        public String get(String key) throws StoreException { return select(key, ""); }

        // getForUpdate stays a plain read: measured with fences, SELECT ... FOR UPDATE made eight sessions queue
        // on the fence row (20% lower throughput on PostgreSQL), while plain reads let conflicts abort and retry

        private String select(String key, String suffix) throws StoreException {
            try (PreparedStatement ps = c.prepareStatement("SELECT v FROM " + table + " WHERE k = ?" + suffix)) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            } catch (SQLException e) {
                throw map(e, "read", c);
            }
        }

        @Override
        public void put(String key, String value) throws StoreException {
            String sql = mysql ? "INSERT INTO " + table + " (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)"
                       : h2 ? "MERGE INTO " + table + " (k, v) KEY (k) VALUES (?, ?)"
                       : "INSERT INTO " + table + " (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, key);
                ps.setString(2, value);
                ps.executeUpdate();
            } catch (SQLException e) {
                throw map(e, "write", c);
            }
        }

        @Override
        public void commit() throws StoreException {
            try {
                c.commit();
            } catch (SQLException e) {
                throw map(e, "commit", c);
            }
        }

        @Override
        public void rollback() throws StoreException {
            try {
                c.rollback();
            } catch (SQLException e) {
                throw new StoreException(name() + " rollback: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        synchronized (all) {
            for (Connection c : all) {
                try { c.close(); } catch (SQLException ignored) { /* closing anyway */ }
            }
            all.clear();
        }
    }
}
