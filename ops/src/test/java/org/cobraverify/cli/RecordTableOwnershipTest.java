package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.cobraverify.collector.JdbcStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code cobra record --db postgres|mariadb --table T} never drops or changes a table cobra did not create: a user's table
 * with rows is refused (exit 2, one line naming the table and what to do) and keeps its rows, with or without
 * {@code --recreate-table}; a table an earlier record created (its marker row) is refused without the flag and replaced
 * with it. The real servers of the machine (.ci/run starts them); skipped, saying why, where one is down.
 */
class RecordTableOwnershipTest {
    @TempDir
    Path dir;

    private static String url(String db) {
        return db.equals("postgres") ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/test";
    }

    private static Connection connect(String db) throws Exception {
        return DriverManager.getConnection(url(db), db.equals("postgres") ? "postgres" : "root", "");
    }

    private static void assumeUp(String db) {
        boolean up;
        try (Connection c = connect(db)) {
            up = c.isValid(2);
        } catch (Exception e) {
            up = false;
        }
        assumeTrue(up, db + " is not reachable at " + url(db) + " (.ci/run starts it)");
    }

    private VerifyCommandTest.Run record(String db, String table, String... more) {
        String[] base = {"record", "--db", db, "--table", table, "--workload", "blindw-rm", "--scale", "0.01", "--txns", "50", "--clients", "2",
                "--out", dir.resolve(table + ".jsonl").toString()};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return VerifyCommandTest.cobra(all);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb"})
    void aUsersTableIsRefusedAndKeepsItsRows(String db) throws Exception {
        assumeUp(db);
        String table = "cobra_users_orders_test";
        try (Connection c = connect(db); Statement s = c.createStatement()) {
            s.executeUpdate("DROP TABLE IF EXISTS " + table);
            s.executeUpdate("CREATE TABLE " + table + " (id INT PRIMARY KEY, item VARCHAR(40))");
            s.executeUpdate("INSERT INTO " + table + " VALUES (1, 'a user''s row')");
        }
        try {
            for (String[] flags : new String[][] {{}, {"--recreate-table"}}) {
                VerifyCommandTest.Run r = record(db, table, flags);
                assertEquals(2, r.exit(), r.out() + r.err());
                String err = r.err().strip();
                assertFalse(err.contains("\n"), "one line: " + err);
                assertTrue(err.contains("table " + table + " already exists") && err.contains("cobra did not create it") && err.contains("--table"), err);
                try (Connection c = connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, item FROM " + table)) {
                    assertTrue(rs.next(), "the user's row is gone");
                    assertEquals("a user's row", rs.getString(2));
                    assertFalse(rs.next());
                }
            }
            // the same with a (k, v) table that looks like cobra's but carries no marker
            try (Connection c = connect(db); Statement s = c.createStatement()) {
                s.executeUpdate("DROP TABLE " + table);
                s.executeUpdate("CREATE TABLE " + table + " (k VARCHAR(255) PRIMARY KEY, v TEXT NOT NULL)");
                s.executeUpdate("INSERT INTO " + table + " VALUES ('x', 'kept')");
            }
            assertEquals(2, record(db, table, "--recreate-table").exit());
            try (Connection c = connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE k = 'x'")) {
                assertTrue(rs.next() && rs.getString(1).equals("kept"));
            }
        } finally {
            try (Connection c = connect(db); Statement s = c.createStatement()) {
                s.executeUpdate("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb"})
    void itsOwnTableIsReplacedOnlyWhenAsked(String db) throws Exception {
        assumeUp(db);
        String table = "cobra_own_table_test";
        new JdbcStore(url(db), db.equals("postgres") ? "postgres" : "root", "", table, JdbcStore.Isolation.SERIALIZABLE, JdbcStore.Table.EXISTING).dropTable();
        try {
            assertEquals(0, record(db, table).exit());
            VerifyCommandTest.Run again = record(db, table);
            assertEquals(2, again.exit(), again.out());
            assertTrue(again.err().contains("created by an earlier cobra run") && again.err().contains("--recreate-table"), again.err());
            VerifyCommandTest.Run replaced = record(db, table, "--recreate-table");
            assertEquals(0, replaced.exit(), replaced.err());
            try (Connection c = connect(db); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE k = '" + JdbcStore.MARKER_KEY + "'")) {
                assertTrue(rs.next(), "the replaced table carries the marker again");
            }
        } finally {
            new JdbcStore(url(db), db.equals("postgres") ? "postgres" : "root", "", table, JdbcStore.Isolation.SERIALIZABLE, JdbcStore.Table.EXISTING).dropTable();
        }
    }
}
