package org.cobraverify.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.cobraverify.collector.HistorySink;
import org.cobraverify.collector.JdbcStore;
import org.cobraverify.collector.JsonlSink;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.KvStore;
import org.cobraverify.collector.Recorder;
import org.cobraverify.collector.RocksDbStore;
import org.cobraverify.collector.StoreException;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.kafka.KafkaReach;
import org.cobraverify.topology.Topics;
import org.cobraverify.workloads.FaultyStore;
import org.cobraverify.workloads.Workload;
import org.cobraverify.workloads.WorkloadRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cobra record}: runs a workload with concurrent clients against a real store through the
 * collector, writes the history as cobra-jsonl, and reports throughput, latency percentiles and aborts.
 */
@Command(name = "record", mixinStandardHelpOptions = true, footer = "Exit codes: 0 recorded, 2 could not run (bad options, the store or the cluster unreachable, the run failed).",
        description = {"Runs a workload against a real store through the collector and records the history (cobra-jsonl).",
                "Then check it with: cobra verify FILE"})
public final class RecordCommand implements Callable<Integer> {
    @Option(names = "--db", description = "rocksdb (embedded, default), rocksdb-optimistic, postgres, mariadb, or the embedded h2, sqlite, hsqldb, hsqldb-mvcc, derby.")
    String db = "rocksdb";

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "Default: jdbc:postgresql://127.0.0.1:5432/test or jdbc:mariadb://127.0.0.1:3306/test.")
    String jdbcUrl;

    @Option(names = "--user", description = "Database user (default: postgres for PostgreSQL, root for MariaDB).")
    String user;

    @Option(names = "--password-env", paramLabel = "VAR", description = {"The environment variable that holds the database password",
            "(default: ${DEFAULT-VALUE}; unset: no password). A password never goes on a command line."})
    String passwordEnv = "COBRA_DB_PASSWORD";

    @Option(names = "--table", description = {"Table for keys and values, created by the record and marked as cobra's by one row",
            "(default: ${DEFAULT-VALUE}). An existing table is never dropped or changed, unless --recreate-table says so and cobra created it."})
    String table = "cobra_kv";

    @Option(names = "--recreate-table", description = "Replace the table if an earlier cobra run created it (a table without cobra's marker row is refused still).")
    boolean recreateTable;

    @Option(names = "--isolation", description = "serializable (default), repeatable-read, read-committed, read-uncommitted (JDBC only).")
    String isolation = "serializable";

    @Option(names = "--workload", description = "blindw-rm (default), blindw-rw, blindw-wm, twitter, rubis, tpcc, order-entry, write-skew, counter, dirty-read.")
    String workload = "blindw-rm"; // the same defaults as demo: workload, size and fault rate

    @Option(names = "--scale", description = "Scales the workload's key space (default: ${DEFAULT-VALUE}).")
    double scale = 1.0;

    @Option(names = "--clients", description = "Concurrent sessions (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--session-txns", paramLabel = "N", description = "Each client ends its session after N transactions and opens a new one (default: 0, one session per client).")
    long sessionTxns;

    @Option(names = "--txns", description = "Transactions to run in all, committed or not (default: ${DEFAULT-VALUE}).")
    long txns = 20_000;

    @Option(names = "--fence-every", description = "A fence transaction every N committed transactions per session; 0 for none (default: ${DEFAULT-VALUE}).")
    int fenceEvery = 20;

    @Option(names = "--max-fence-every", paramLabel = "N", description = {"While a session's fences cost more than 2%% of its time, its period grows",
            "up to N commits (and back when they get cheap); N = --fence-every: a fixed period (default: 10 times --fence-every)."})
    Integer maxFenceEvery;


    @Option(names = "--fault", paramLabel = "KIND", description = "Make the store misbehave: stale-read, lost-write or non-atomic.")
    String fault;

    @Option(names = "--fault-rate", description = "Probability of a fault per operation (default: ${DEFAULT-VALUE}).")
    double faultRate = 0.02;

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the history (default: ${DEFAULT-VALUE}; .gz compresses).")
    Path out = Path.of("history.jsonl");

    @Option(names = "--bootstrap", paramLabel = "SERVERS", description = "Publish the operations to Kafka (topic cobra.ops) at these servers instead of writing a file.")
    String kafka;

    /** The old spelling of {@link #kafka}: still accepted, with a line saying so. */
    @Option(names = "--kafka", paramLabel = "SERVERS", hidden = true)
    void deprecatedKafka(String servers) {
        System.err.println("cobra record: --kafka is deprecated and will go; say --bootstrap, as every other command does");
        kafka = servers;
    }

    @Option(names = "--kafka-config", paramLabel = "FILE", description = {"Kafka client settings for the collector's producer (security.protocol, sasl.*, ssl.*,",
            "any producer setting); implies --bootstrap, whose servers may also come from bootstrap.servers here."})
    Path kafkaConfig;

    @Option(names = "--schema-registry", paramLabel = "URL", description = {"With --bootstrap: records in the Confluent wire format, schemas in this registry",
            "(or schema.registry.url in --kafka-config; credentials: basic.auth.user.info there)."})
    String schemaRegistry;

    @Option(names = "--wait-for-ack", description = "With --bootstrap: each transaction returns only once Kafka acknowledged its operations.")
    boolean waitForAck;

    @Option(names = "--bare", description = "Run the workload without the collector (no ids, fences or recording): the overhead baseline.")
    boolean bare;

    @Option(names = "--rate", paramLabel = "TXN/S", description = "Offer at most this many transactions per second (default: as fast as the clients go).")
    double rate;

    @Option(names = "--seed", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Override
    public Integer call() throws Exception {
        Workload w;
        FaultyStore.Fault f = null;
        try {
            w = Workload.byName(workload, scale);
            if (fault != null) f = FaultyStore.Fault.parse(fault);
        } catch (IllegalArgumentException e) {
            System.err.println("cobra record: " + e.getMessage());
            return 2;
        }
        KafkaConnection connection;
        try {
            connection = kafka == null && kafkaConfig == null ? null : KafkaOptions.withRegistry(KafkaConnection.of(kafka, kafkaConfig), schemaRegistry);
            if (connection != null && !bare) KafkaReach.require(connection, KafkaReach.DEFAULT_WAIT);
            if (connection == null && schemaRegistry != null) throw new IllegalArgumentException("--schema-registry needs --bootstrap (a file has no wire format)");
        } catch (IllegalArgumentException e) {
            System.err.println("cobra record: " + e.getMessage());
            return 2;
        }
        String refused = connection != null || bare ? null : OutputFiles.refusal(out, OutputFiles.Kind.HISTORY);
        if (refused != null) {
            System.err.println("cobra record: " + refused);
            return 2;
        }
        Path rocksDir = db.startsWith("rocksdb") || db.equals("sqlite") ? Files.createTempDirectory("cobra-" + db) : null;
        KvStore store;
        try {
            String password = System.getenv(passwordEnv) == null ? "" : System.getenv(passwordEnv);
            store = openStore(db, rocksDir, jdbcUrl, user, password, table, JdbcStore.Isolation.parse(isolation),
                    recreateTable ? JdbcStore.Table.RECREATE_OWN : JdbcStore.Table.CREATE);
        } catch (IllegalArgumentException | StoreException e) {
            System.err.println("cobra record: " + e.getMessage());
            if (rocksDir != null) deleteTree(rocksDir);
            return 2;
        }
        if (f != null) store = new FaultyStore(store, f, faultRate, seed);
        try (KvStore s = store) {
            HistorySink sink = bare ? null : connection != null
                    ? new KafkaSink(connection, Topics.OPS, waitForAck, true, new Properties())
                    : new JsonlSink(out);
            Recorder rec = bare ? null : new Recorder(s, sink, Recorder.Options.adaptive(fenceEvery, maxFenceEvery));
            String where = connection != null ? "Kafka " + connection + " (cobra.ops)" : out.toString();
            System.err.printf("cobra record: %s on %s, %d clients, %d transactions%s%n", w.name(), s.name(), clients, txns,
                    bare ? " (bare: not recorded)" : " -> " + where);
            WorkloadRunner.Result r;
            try {
                r = WorkloadRunner.runWithProgress(w, s, rec, clients, txns, seed, rate, sessionTxns,
                        p -> System.err.printf("  %d committed, %d aborted, %d unknown%n", p.committed.get(), p.aborted.get(), p.unknown.get()));
            } catch (Exception e) {
                System.err.println("cobra record: the run failed: " + e.getMessage());
                return 2;
            } finally {
                if (rec != null) rec.close(); // whatever was recorded reaches the file, even after a failure
            }
            System.out.printf("%s on %s: %d committed, %d aborted, %d unknown in %.1f s: %.0f txn/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
                    w.name(), s.name(), r.committed(), r.aborted(), r.unknown(), r.elapsedNanos() / 1e9, r.throughput(),
                    r.percentileMillis(50), r.percentileMillis(90), r.percentileMillis(99));
            if (!bare) System.out.printf("recorded to %s (%d fence transactions; the collector added %.1f bytes per transaction)%n",
                    where, r.fences(), r.addedBytes() / (double) Math.max(1, r.committed() + r.aborted()));
        } finally {
            if (rocksDir != null) deleteTree(rocksDir);
        }
        return 0;
    }

    /**
     * Opens a store by name: {@code rocksdb}, {@code rocksdb-optimistic} (in {@code dir}), {@code postgres}
     * or {@code mariadb} (the local servers unless {@code jdbcUrl} says otherwise; the table created as {@code use} says).
     */
    static KvStore openStore(String db, Path dir, String jdbcUrl, String user, String password, String table, JdbcStore.Isolation iso,
                             JdbcStore.Table use) throws StoreException {
        return switch (db) {
            case "rocksdb", "rocksdb-optimistic" -> new RocksDbStore(dir.resolve("db").toString(), db.equals("rocksdb-optimistic"));
            case "postgres" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:postgresql://127.0.0.1:5432/test",
                    user != null ? user : "postgres", password, table, iso, use);
            case "mariadb" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:mariadb://127.0.0.1:3306/test",
                    user != null ? user : "root", password, table, iso, use);
            // embedded, in this JVM's memory, for as long as the process runs
            case "h2" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:h2:mem:cobra;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=500",
                    user != null ? user : "sa", password, table, iso, use);
            // embedded, a database file in dir
            case "sqlite" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:sqlite:" + dir.resolve("cobra.db"), user, password, table, iso, use);
            // embedded, in memory: HSQLDB's default two-phase locking, or its multiversion concurrency control
            case "hsqldb" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:hsqldb:mem:cobra2pl", user != null ? user : "SA", password, table, iso, use);
            case "hsqldb-mvcc" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:hsqldb:mem:cobramvcc;hsqldb.tx=mvcc",
                    user != null ? user : "SA", password, table, iso, use);
            // embedded, in memory
            case "derby" -> new JdbcStore(jdbcUrl != null ? jdbcUrl : "jdbc:derby:memory:cobra;create=true", user, password, table, iso, use);
            default -> throw new IllegalArgumentException("unknown store " + db + " (" + String.join(", ", STORES) + ")");
        };
    }

    /** The stores {@link #openStore} knows. */
    static final List<String> STORES = List.of("rocksdb", "rocksdb-optimistic", "postgres", "mariadb", "h2", "sqlite", "hsqldb", "hsqldb-mvcc", "derby");

    static void deleteTree(Path dir) {
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory; best effort
        }
    }
}
