package org.cobraverify.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.StoreException;
import org.cobraverify.history.History;
import org.cobraverify.io.HistoryReaders;
import org.cobraverify.report.HtmlReport;
import org.cobraverify.verifier.Verifier;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;

/**
 * What a database really gives: for each isolation level it offers, records the survey's workloads through the collector,
 * checks each recording at every level of the ladder ({@link Isolation#checkAll}), and sums up, per level, the strongest
 * rung every recording satisfied and every anomaly seen, with the page of one certificate each. A survey can show that an
 * anomaly happens, never that it cannot: a level with none says after how many transactions.
 */
final class Survey {
    /** The workloads, each built to provoke a class of anomaly: write skew, lost updates, dirty reads, fractured reads, and a general mix. */
    static final List<String> DEFAULT_WORKLOADS = List.of("write-skew", "counter", "dirty-read", "tpcc", "blindw-rw");

    /** One level the database offers: its SQL name, the JDBC level, and the rung its documentation promises (null: none). */
    record Offered(String sqlName, JdbcStore.Isolation jdbc, IsolationLevel promised) {}

    /** An anomaly seen: its kind, the weakest level it was first seen breaking, in how many recordings, and the page of one certificate. */
    record Seen(AnomalyKind kind, IsolationLevel breaks, int recordings, Path page) {
        String anomaly() { return kind.displayName(); }
    }

    /**
     * One row of the survey: a level, the database as it names itself, the transactions recorded, the strongest rung every
     * recording satisfied (null: none), the anomalies, and what stayed undecided.
     */
    record Row(Offered level, String database, long transactions, IsolationLevel strongest, List<Seen> anomalies, List<String> undecided) {
        /** The documentation promises a rung the recordings did not all satisfy. */
        boolean contradicts() { return level.promised != null && (strongest == null || !strongest.implies(level.promised)); }
    }

    /** The levels {@code db} offers, weakest first, with what each one's documentation promises. */
    static List<Offered> levelsOf(String db) {
        return switch (db) {
            // PostgreSQL: read uncommitted behaves as read committed; repeatable read is snapshot isolation (its manual, 13.2.2)
            case "postgres" -> List.of(new Offered("read uncommitted", JdbcStore.Isolation.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED),
                    new Offered("read committed", JdbcStore.Isolation.READ_COMMITTED, IsolationLevel.READ_COMMITTED),
                    new Offered("repeatable read", JdbcStore.Isolation.REPEATABLE_READ, IsolationLevel.SNAPSHOT_ISOLATION),
                    new Offered("serializable", JdbcStore.Isolation.SERIALIZABLE, IsolationLevel.SERIALIZABLE));
            // MariaDB (InnoDB): read uncommitted promises nothing; repeatable read reads one snapshot but writes the latest
            // version, which no rung of the ladder describes
            case "mariadb" -> List.of(new Offered("read uncommitted", JdbcStore.Isolation.READ_UNCOMMITTED, null),
                    new Offered("read committed", JdbcStore.Isolation.READ_COMMITTED, IsolationLevel.READ_COMMITTED),
                    new Offered("repeatable read", JdbcStore.Isolation.REPEATABLE_READ, null),
                    new Offered("serializable", JdbcStore.Isolation.SERIALIZABLE, IsolationLevel.SERIALIZABLE));
            // H2 (MVStore): read committed by default; its repeatable read keeps reads stable but names no rung
            case "h2" -> List.of(new Offered("read uncommitted", JdbcStore.Isolation.READ_UNCOMMITTED, null),
                    new Offered("read committed", JdbcStore.Isolation.READ_COMMITTED, IsolationLevel.READ_COMMITTED),
                    new Offered("repeatable read", JdbcStore.Isolation.REPEATABLE_READ, null),
                    new Offered("serializable", JdbcStore.Isolation.SERIALIZABLE, IsolationLevel.SERIALIZABLE));
            // SQLite: one writer at a time; read uncommitted matters only with a shared cache, which separate connections do not use
            case "sqlite" -> List.of(new Offered("read uncommitted", JdbcStore.Isolation.READ_UNCOMMITTED, null),
                    new Offered("serializable", JdbcStore.Isolation.SERIALIZABLE, IsolationLevel.SERIALIZABLE));
            // HSQLDB (two-phase locking by default, multiversion concurrency control on request) and Derby (locking) name all
            // four levels, and promise read committed and serializable by those names; what they make of the other two is
            // what the survey shows
            case "hsqldb", "hsqldb-mvcc", "derby" -> List.of(new Offered("read uncommitted", JdbcStore.Isolation.READ_UNCOMMITTED, null),
                    new Offered("read committed", JdbcStore.Isolation.READ_COMMITTED, IsolationLevel.READ_COMMITTED),
                    new Offered("repeatable read", JdbcStore.Isolation.REPEATABLE_READ, null),
                    new Offered("serializable", JdbcStore.Isolation.SERIALIZABLE, IsolationLevel.SERIALIZABLE));
            // RocksDB's transactions name no level for plain reads: the survey says what they give
            case "rocksdb", "rocksdb-optimistic" -> List.of(new Offered("transactions", JdbcStore.Isolation.SERIALIZABLE, null));
            default -> throw new IllegalArgumentException("unknown database " + db + " (" + String.join(", ", RecordCommand.STORES) + ")");
        };
    }

    /** How to reach the database: {@code jdbcUrl}, {@code user} and {@code password} may be null (the local servers). */
    record Target(String db, String jdbcUrl, String user, String password) {}

    private final Target target;
    private final int clients;
    private final long seed;
    private final Path out;
    private final CheckOptions options;
    private final Consumer<String> progress;

    Survey(Target target, int clients, long seed, Path out, CheckOptions options, Consumer<String> progress) {
        this.target = target;
        this.clients = clients;
        this.seed = seed;
        this.out = out;
        this.options = options;
        this.progress = progress;
    }

    /** Surveys one level with {@code txns} transactions, split evenly among {@code workloads}. */
    Row survey(Offered level, List<String> workloads, long txns) throws IOException, StoreException, Exception {
        String slug = level.sqlName().replace(' ', '-');
        Path dir = Files.createDirectories(out.resolve(slug));
        long each = Math.max(1, txns / workloads.size());
        Map<AnomalyKind, Seen> seen = new LinkedHashMap<>(); // the first sighting of each anomaly: the level it broke, its page
        Map<AnomalyKind, Set<String>> seenIn = new LinkedHashMap<>(); // the recordings (workloads) each anomaly was seen in
        String database = "";
        IsolationLevel strongest = IsolationLevel.STRICT_SERIALIZABLE;
        boolean none = false;
        long total = 0;
        List<String> undecided = new ArrayList<>();
        for (String name : workloads) {
            Workload w = Workload.byName(name, 1.0);
            Path file = dir.resolve(name + ".jsonl");
            String refused = OutputFiles.refusal(file, OutputFiles.Kind.HISTORY);
            if (refused != null) throw new IOException(refused);
            database = record(w, level, file, each);
            History h = HistoryReaders.read(file).history();
            total += h.size();
            Isolation.Ladder ladder = Verifier.checkAll(h, options);
            IsolationLevel s = ladder.strongest();
            if (s == null) none = true;
            else if (!s.implies(strongest)) strongest = s;
            for (Map.Entry<IsolationLevel, Verdict> e : ladder.verdicts().entrySet()) {
                Verdict v = e.getValue();
                if (v.outcome() == Verdict.Outcome.UNKNOWN) undecided.add(name + " at " + e.getKey().longName() + ": " + v.unknownReason());
                if (v.outcome() != Verdict.Outcome.REJECT) continue;
                AnomalyKind anomaly = v.certificate().kind();
                seenIn.computeIfAbsent(anomaly, a -> new LinkedHashSet<>()).add(name);
                if (seen.containsKey(anomaly)) continue;
                Path page = dir.resolve(name + "-" + e.getKey().shortName() + ".html");
                refused = OutputFiles.refusal(page, OutputFiles.Kind.PAGE);
                if (refused != null) throw new IOException(refused);
                Files.writeString(page, HtmlReport.render(v.certificate(), file.toString(), e.getKey(), ladder.weakestViolated()), StandardCharsets.UTF_8);
                seen.put(anomaly, new Seen(anomaly, e.getKey(), 0, page));
            }
            progress.accept(String.format(Locale.ROOT, "  %s, %s: %d transactions, strongest %s", level.sqlName(), name, h.size(),
                    s == null ? "none" : s.longName()));
        }
        List<Seen> anomalies = new ArrayList<>();
        for (Seen a : seen.values()) anomalies.add(new Seen(a.kind(), a.breaks(), seenIn.get(a.kind()).size(), a.page()));
        return new Row(level, database, total, none ? null : strongest, anomalies, undecided);
    }

    /** How long a recording may make no progress at all before the survey gives up on the level. */
    static final int STALL_SECONDS = 30;

    /**
     * Runs the workload on its own thread and watches it: when a client dies of an error inside the database (HSQLDB 2.7's
     * deadlock check overflows the stack under two-phase locking, leaving its locks held), or no transaction has ended for
     * {@link #STALL_SECONDS} (a deadlock the database did not detect; HSQLDB waits for a lock without a timeout), the level
     * fails with that said, rather than the survey waiting for ever.
     */
    private void runWatched(Workload w, KvStore store, Recorder rec, long txns) throws Exception {
        WorkloadRunner.Progress p = new WorkloadRunner.Progress();
        Throwable[] failed = new Throwable[1]; // read after the thread ended (join: happens-before)
        Thread run = new Thread(() -> {
            try {
                WorkloadRunner.run(w, store, rec, clients, txns, seed, 0, 0, p);
            } catch (Throwable e) { // an error (the heap running out) too: the level did not run
                failed[0] = e;
            }
        }, "cobra-survey-" + w.name());
        run.setDaemon(true);
        run.start();
        long last = -1, since = System.nanoTime();
        while (run.isAlive()) {
            run.join(1000);
            long ended = p.committed.get() + p.aborted.get() + p.unknown.get();
            Throwable died = p.failure.get();
            if (died != null && run.isAlive()) {
                // a client ended with an error inside the database (its locks may be held for ever): the others may never end
                StackTraceElement at = where(died);
                throw new Stalled(String.format(Locale.ROOT, "%s: a client failed inside the database after %d transactions: %s%s", store.name(), ended,
                        died, at == null ? "" : " in " + at.getClassName() + "." + at.getMethodName()));
            }
            if (ended != last) {
                last = ended;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > STALL_SECONDS * 1_000_000_000L) {
                throw new Stalled(String.format(Locale.ROOT, "%s made no progress for %d s after %d transactions (%d clients waiting): "
                        + "a deadlock the database did not detect", store.name(), STALL_SECONDS, ended, clients));
            }
        }
        if (failed[0] instanceof Exception e) throw e;
        if (failed[0] instanceof Error e) throw e;
    }

    /** Where {@code e} happened: its first frame, or for a stack overflow the frame that recursed (the most frequent one). */
    private static StackTraceElement where(Throwable e) {
        StackTraceElement[] t = e.getStackTrace();
        if (t.length == 0) return null;
        if (!(e instanceof StackOverflowError)) return t[0];
        Map<StackTraceElement, Integer> n = new java.util.HashMap<>();
        StackTraceElement most = t[0];
        for (StackTraceElement f : t) if (n.merge(f, 1, Integer::sum) > n.getOrDefault(most, 0)) most = f;
        return most;
    }

    /** Runs {@code w} against a fresh table at {@code level}, records the history to {@code file}; the database's name and version. */
    private String record(Workload w, Offered level, Path file, long txns) throws Exception {
        Path rocksDir = target.db().startsWith("rocksdb") || target.db().equals("sqlite") ? Files.createTempDirectory("cobra-survey") : null;
        KvStore store = RecordCommand.openStore(target.db(), rocksDir, target.jdbcUrl(), target.user(),
                target.password() == null ? "" : target.password(), "cobra_survey", level.jdbc(), JdbcStore.Table.RECREATE_OWN);
        boolean stalled = false;
        try {
            Recorder rec = new Recorder(store, new JsonlSink(file), Recorder.Options.adaptive(20, 200));
            try {
                runWatched(w, store, rec, txns);
            } catch (Stalled e) {
                stalled = true;
                throw e;
            } finally {
                if (!stalled) rec.close();
            }
            return store.version();
        } finally {
            // a stalled store is left as it is: closing it would wait on the very locks its clients wait on
            if (!stalled) store.close();
            if (rocksDir != null && !stalled) RecordCommand.deleteTree(rocksDir);
        }
    }

    /** The database stopped making progress ({@link #runWatched}). */
    static final class Stalled extends StoreException {
        Stalled(String message) { super(message); }
    }
}
