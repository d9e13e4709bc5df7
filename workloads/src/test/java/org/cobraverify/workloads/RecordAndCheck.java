package org.cobraverify.workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.io.HistoryReaders;

/** Test helper: the same code path as {@code cobra record}, then the checker on the file it wrote. */
final class RecordAndCheck {
    static final String PG = "jdbc:postgresql://127.0.0.1:5432/test", MARIADB = "jdbc:mariadb://127.0.0.1:3306/test";

    private RecordAndCheck() {}

    record Outcome(Verdict verdict, WorkloadRunner.Result run, Path file) {}

    static Outcome run(KvStore store, Workload w, int clients, long txns, long seed, Path dir) throws Exception {
        Path file = Files.createTempFile(dir, w.name(), ".jsonl");
        WorkloadRunner.Result r;
        try (Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.defaults())) {
            r = WorkloadRunner.run(w, store, rec, clients, txns, seed, new WorkloadRunner.Progress());
        }
        Verdict v = Checker.check(HistoryReaders.read(file).history());
        return new Outcome(v, r, file);
    }

    /** Why a database cannot be used here, or null when it answers. */
    static String unavailable(String url, String user) {
        try (Connection c = DriverManager.getConnection(url, user, "")) {
            return c.isValid(2) ? null : url + " does not answer";
        } catch (Exception e) {
            return url + " is not reachable (.ci/run starts PostgreSQL and MariaDB; start them by hand elsewhere): " + e.getMessage();
        }
    }

    static JdbcStore jdbc(String url, String table, JdbcStore.Isolation iso) throws Exception {
        return new JdbcStore(url, url.contains("mariadb") ? "root" : "postgres", "", table, iso, JdbcStore.Table.RECREATE_OWN);
    }
}
