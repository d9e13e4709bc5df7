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
 * A relational database as a key-value store: one table {@code (k primary key, v)}, created by the project and marked
 * as its own by one row ({@link Table}: a table it did not create is never dropped or changed), one connection per
 * thread, at a chosen isolation level. Tested on PostgreSQL, MariaDB, and the embedded H2, SQLite, HSQLDB and Apache
 * Derby ({@link Dialect}). Serialization failures, deadlocks and lock timeouts (SQLSTATE class 40, MariaDB's lock wait
 * timeouts, H2's lock timeouts and concurrent updates, SQLite's busy and locked results) are aborts; a connection
 * failure during commit leaves the outcome unknown.
 */
public final class JdbcStore implements KvStore {
    static {
        // the MariaDB driver logs every deadlock it reports; aborts are expected here and counted instead
        if (System.getProperty("mariadb.logging.disable") == null) System.setProperty("mariadb.logging.disable", "true");
        // embedded Derby writes derby.log into the working directory unless told otherwise: it goes nowhere here
        if (System.getProperty("derby.stream.error.field") == null && System.getProperty("derby.stream.error.file") == null)
            System.setProperty("derby.stream.error.field", JdbcStore.class.getName() + ".DERBY_LOG");
    }

    /** Where embedded Derby's log goes (nowhere): named by {@code derby.stream.error.field}, so it must be public. */
    public static final java.io.OutputStream DERBY_LOG = java.io.OutputStream.nullOutputStream();

    public enum Isolation {
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE), REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED), READ_UNCOMMITTED(Connection.TRANSACTION_READ_UNCOMMITTED);

        final int level;

        Isolation(int level) { this.level = level; }

        public static Isolation parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT).replace(' ', '_').replace('-', '_'));
        }
    }

    /** What differs between the databases: the upsert, the value column's type, what counts as an abort. */
    enum Dialect {
        POSTGRES("postgres", "TEXT"), MARIADB("mariadb", "TEXT"), H2("h2", "VARCHAR"), SQLITE("sqlite", "TEXT"),
        HSQLDB("hsqldb", "VARCHAR(32672)"), DERBY("derby", "VARCHAR(32672)");

        final String name, valueType;

        Dialect(String name, String valueType) {
            this.name = name;
            this.valueType = valueType;
        }

        static Dialect of(String url) {
            if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) return MARIADB;
            if (url.startsWith("jdbc:h2:")) return H2;
            if (url.startsWith("jdbc:sqlite:")) return SQLITE;
            if (url.startsWith("jdbc:hsqldb:")) return HSQLDB;
            if (url.startsWith("jdbc:derby:")) return DERBY;
            return POSTGRES;
        }

        /** One statement that inserts or replaces a key's value (parameters: key, value); null: update, then insert if no row. */
        String upsert(String table) {
            return switch (this) {
                case MARIADB -> "INSERT INTO " + table + " (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)";
                case H2 -> "MERGE INTO " + table + " (k, v) KEY (k) VALUES (?, ?)";
                case POSTGRES, SQLITE -> "INSERT INTO " + table + " (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v";
                case HSQLDB, DERBY -> null;
            };
        }

        /** Whether the failure ended the transaction as an abort (the database rolled it back, or will on rollback). */
        boolean aborts(SQLException e) {
            String state = e.getSQLState();
            if (state != null && state.startsWith("40")) return true; // serialization failure, deadlock, Derby's lock timeouts
            int code = e.getErrorCode();
            return switch (this) {
                case MARIADB -> code == 1213 || code == 1205; // deadlock, lock wait timeout
                case H2 -> code == 50200 || code == 90131; // lock timeout, concurrent update of a row
                case SQLITE -> (code & 0xff) == 5 || (code & 0xff) == 6; // busy, locked: another connection holds the database's lock
                default -> false;
            };
        }
    }

    private final String url, user, password, table;
    private final Isolation isolation;
    private final Dialect dialect;
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();
    private final List<Connection> all = new ArrayList<>();

    /**
     * What a store does with its table when it opens. The project creates its tables and marks each with one row
     * ({@link #MARKER_KEY}); it never drops, empties or changes a table that lacks that row (a table it did not create).
     */
    public enum Table {
        /** Use the table as it is: create nothing, drop nothing. */
        EXISTING,
        /** Create the table; refuse, with a {@link StoreException}, when one of that name exists already. */
        CREATE,
        /** Create the table; replace one of that name only if the project created it (it carries the marker row). */
        RECREATE_OWN
    }

    /** The key of the row that marks a table the project created (never a key any workload reads or writes). */
    public static final String MARKER_KEY = "cobra:created-this-table";
    /** The marker row's value (what a person who finds the row reads). */
    static final String MARKER_VALUE = "created by cobra record; cobra may drop and recreate this table (record --recreate-table)";

    public JdbcStore(String url, String user, String password, String table, Isolation isolation, Table use) throws StoreException {
        this.url = url;
        this.user = user;
        this.password = password;
        this.table = table;
        this.isolation = isolation;
        this.dialect = Dialect.of(url);
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new StoreException("bad table name " + table);
        if (use == Table.EXISTING) return;
        try (Connection c = open(); Statement s = c.createStatement()) {
            Ownership o = ownership(c);
            if (o != Ownership.ABSENT) {
                if (o == Ownership.FOREIGN)
                    throw new StoreException("table " + table + " already exists at " + url + " and cobra did not create it (it has no cobra marker row):"
                            + " cobra never drops or changes a table it did not create; name another with --table");
                if (use != Table.RECREATE_OWN)
                    throw new StoreException("table " + table + " already exists at " + url + ", created by an earlier cobra run:"
                            + " add --recreate-table to replace it, or name another with --table");
                drop(s);
            }
            s.executeUpdate("CREATE TABLE " + table + " (k VARCHAR(255) PRIMARY KEY, v " + dialect.valueType + " NOT NULL)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (k, v) VALUES (?, ?)")) {
                ps.setString(1, MARKER_KEY);
                ps.setString(2, MARKER_VALUE);
                ps.executeUpdate();
            }
            if (dialect == Dialect.DERBY) {
                // Derby waits 20 s before it looks for a deadlock and 60 s for a lock: here it looks at once and waits 2 s at most
                s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.deadlockTimeout', '0')");
                s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '2')");
            }
            if (!c.getAutoCommit()) c.commit();
        } catch (SQLException e) {
            throw new StoreException("cannot create table " + table + " at " + url + ": " + e.getMessage(), e);
        }
    }

    /** Whether the table is there, and whether the project created it. */
    private enum Ownership { ABSENT, OWN, FOREIGN }

    /**
     * Whether a table of this name exists in the connection's current schema (names compared without case: unquoted names
     * are folded by every dialect here), and if so whether it carries the marker row.
     */
    private Ownership ownership(Connection c) throws SQLException {
        boolean exists = false;
        String schema;
        try {
            schema = c.getSchema();
        } catch (SQLException | AbstractMethodError e) {
            schema = null;
        }
        try (ResultSet r = c.getMetaData().getTables(c.getCatalog(), schema, null, new String[] {"TABLE"})) {
            while (r.next() && !exists) exists = table.equalsIgnoreCase(r.getString("TABLE_NAME"));
        }
        if (!exists) return Ownership.ABSENT;
        try (PreparedStatement ps = c.prepareStatement("SELECT v FROM " + table + " WHERE k = ?")) {
            ps.setString(1, MARKER_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && MARKER_VALUE.equals(rs.getString(1)) ? Ownership.OWN : Ownership.FOREIGN;
            }
        } catch (SQLException e) {
            return Ownership.FOREIGN; // no columns k and v: not a table of ours
        } finally {
            if (!c.getAutoCommit()) c.rollback(); // (a failed select leaves PostgreSQL's transaction aborted)
        }
    }

    /** Drops the table if it exists (Derby has no {@code IF EXISTS}: its "no such table" is ignored). */
    private void drop(Statement s) throws SQLException {
        if (dialect != Dialect.DERBY) {
            s.executeUpdate("DROP TABLE IF EXISTS " + table);
            return;
        }
        try {
            s.executeUpdate("DROP TABLE " + table);
        } catch (SQLException e) {
            if (!"42Y55".equals(e.getSQLState())) throw e;
        }
    }

    private Connection open() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    @Override
    public String name() { return dialect.name + " " + isolation; }

    @Override
    public String version() throws StoreException {
        try {
            java.sql.DatabaseMetaData m = connection().getMetaData();
            return m.getDatabaseProductName() + " " + m.getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new StoreException("cannot read the version of " + url + ": " + e.getMessage(), e);
        }
    }

    /** Drops the table if the project created it (tests clean up after themselves); a table without the marker row stays. */
    public void dropTable() throws StoreException {
        try (Connection c = open(); Statement s = c.createStatement()) {
            Ownership o = ownership(c);
            if (o == Ownership.FOREIGN) throw new StoreException("table " + table + " at " + url + " was not created by cobra: it is left as it is");
            if (o == Ownership.OWN) drop(s);
            if (!c.getAutoCommit()) c.commit();
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
        if (dialect != Dialect.POSTGRES || !swapEnabled) return null;
        return oneRowStatement("UPDATE " + table + " x SET v = " + literal(value) + " FROM (SELECT k, v FROM " + table
                + " WHERE k = " + literal(key) + " FOR UPDATE) y WHERE x.k = y.k RETURNING y.v", "swap");
    }

    /**
     * PostgreSQL: {@code INSERT ... ON CONFLICT DO NOTHING RETURNING}, in its own read-committed transaction, one round
     * trip: a concurrent insert of the key waits for the first to commit and then does nothing (the unique key decides).
     */
    @Override
    public boolean createIfAbsent(String key, String value) throws StoreException {
        if (dialect != Dialect.POSTGRES || !swapEnabled) return false;
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
            if (dialect.aborts(e)) throw new AbortedException(name() + " " + what + ": " + e.getMessage(), e);
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

    private StoreException map(SQLException e, String during, Connection c) {
        if (dialect.aborts(e)) {
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
            String upsert = dialect.upsert(table);
            try {
                if (upsert != null) {
                    try (PreparedStatement ps = c.prepareStatement(upsert)) {
                        ps.setString(1, key);
                        ps.setString(2, value);
                        ps.executeUpdate();
                    }
                } else if (update(key, value) == 0) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (k, v) VALUES (?, ?)")) {
                        ps.setString(1, key);
                        ps.setString(2, value);
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        // a concurrent transaction inserted the key first and committed: the row is there to update now
                        if (!"23505".equals(e.getSQLState()) || update(key, value) == 0) throw e;
                    }
                }
            } catch (SQLException e) {
                throw map(e, "write", c);
            }
        }

        private int update(String key, String value) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET v = ? WHERE k = ?")) {
                ps.setString(1, value);
                ps.setString(2, key);
                return ps.executeUpdate();
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
