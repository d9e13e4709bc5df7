package org.cobraverify.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.cobraverify.ops.pipeline.TopicSetup;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docker-compose.yml and its secure overlay run the services with command lines this build must accept: every
 * {@code command:} there is parsed by the real command-line parser (without running it). The deployment's shape is
 * ops/config/cluster.env, which ops/cluster-chaos.sh runs: the compose file must agree with it (nodes, replication,
 * partitions, instances, the verifier's id). The compose file's YAML itself is checked by {@code docker compose
 * config} in .ci/run where the compose plugin exists.
 */
class DeploymentConfigTest {
    record Service(String name, List<String> args) {
        String option(String opt) {
            int i = args.indexOf(opt);
            return i < 0 || i + 1 >= args.size() ? null : args.get(i + 1);
        }
    }

    static List<Service> commands(Path compose) throws Exception {
        assertTrue(Files.exists(compose), compose + " at the repository root");
        List<Service> out = new ArrayList<>();
        for (String line : Files.readAllLines(compose)) {
            String t = line.trim();
            if (!t.startsWith("command: [")) continue;
            List<String> args = new ArrayList<>();
            try (JsonParser p = new JsonFactory().createParser(t.substring("command: ".length()))) {
                assertEquals(JsonToken.START_ARRAY, p.nextToken());
                while (p.nextToken() == JsonToken.VALUE_STRING) args.add(p.getText());
            }
            if (args.contains("/opt/registry/quarkus-run.jar")) { // the schema registry's server, as ops/registry.sh runs it
                out.add(new Service("registry", List.copyOf(args)));
                continue;
            }
            assertEquals(List.of("java", "-jar", "/opt/cobra/cobra.jar"), args.subList(0, 3));
            List<String> rest = args.subList(3, args.size());
            CommandLine.ParseResult r = new CommandLine(new CobraCommand()).parseArgs(rest.toArray(String[]::new));
            assertTrue(r.hasSubcommand(), "a subcommand: " + rest);
            out.add(new Service(r.subcommand().commandSpec().name(), List.copyOf(rest)));
        }
        return out;
    }

    static Properties cluster() throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("config", "cluster.env"))) {
            p.load(r);
        }
        return p;
    }

    static int count(List<Service> s, String name) { return (int) s.stream().filter(x -> x.name().equals(name)).count(); }

    @Test
    void everyServiceCommandLineInTheComposeFileParsesAndTheShapeIsTheCampaigns() throws Exception {
        List<Service> s = commands(Path.of("..", "docker-compose.yml"));
        Properties c = cluster();
        int nodes = Integer.parseInt(c.getProperty("NODES"));
        assertEquals(nodes, count(s, "broker"), "one broker service per node");
        assertEquals(Integer.parseInt(c.getProperty("TOPOLOGY_INSTANCES")), count(s, "topology"));
        assertEquals(Integer.parseInt(c.getProperty("VERIFIER_INSTANCES")), count(s, "verifier"));
        assertEquals(1, count(s, "verdicts"));
        for (Service b : s.stream().filter(x -> x.name().equals("broker")).toList())
            assertEquals(nodes, b.option("--quorum").split(",").length, "every node names the whole quorum: " + b.args());
        for (Service t : s.stream().filter(x -> x.name().equals("topology")).toList()) {
            assertEquals(c.getProperty("REPLICATION"), t.option("--replication"), t.args().toString());
            assertEquals(c.getProperty("PARTITIONS"), t.option("--partitions"), t.args().toString());
        }
        for (Service v : s.stream().filter(x -> x.name().equals("verifier")).toList())
        {
            assertEquals(c.getProperty("VERIFIER_ID"), v.option("--id"), "active and standby share one id: " + v.args());
            assertEquals(c.getProperty("CHECKPOINT_EVERY"), v.option("--checkpoint-every"), "what a takeover re-decides: " + v.args());
        }
        // one schema registry, and every component that reads or writes a topic uses it
        assertEquals(1, count(s, "registry"));
        assertTrue(s.stream().filter(x -> x.name().equals("registry")).findFirst().orElseThrow().args().contains("-Dquarkus.http.port=8080"));
        for (Service x : s)
            if (List.of("topology", "verifier", "verdicts").contains(x.name()))
                assertEquals("http://registry:8080/apis/ccompat/v7", x.option("--schema-registry"), x.args().toString());
        assertEquals(Integer.parseInt(c.getProperty("MIN_INSYNC")), TopicSetup.minInsyncReplicas(Short.parseShort(c.getProperty("REPLICATION"))),
                "the topics' min.insync.replicas for that replication");
    }

    @Test
    void theCampaignRunsTheSameShape() throws Exception {
        String script = Files.readString(Path.of("cluster-chaos.sh"));
        assertTrue(script.contains(". \"$HERE/config/cluster.env\""), "ops/cluster-chaos.sh reads ops/config/cluster.env");
        for (String v : List.of("$REPLICATION", "$PARTITIONS", "$VERIFIER_ID", "$NODES", "$CHECKPOINT_EVERY"))
            assertTrue(script.contains(v), "ops/cluster-chaos.sh uses " + v);
    }

    @Test
    void theSecureOverlayGivesEveryComponentItsSettingsAndTheBrokersTheirs() throws Exception {
        List<Service> base = commands(Path.of("..", "docker-compose.yml"));
        List<Service> secure = commands(Path.of("..", "docker-compose.secure.yml"));
        for (Service x : secure) {
            if (x.name().equals("broker")) {
                assertNotNull(x.option("--config"), "SASL and the authorizer: " + x.args());
                assertNotNull(x.option("--scram-users"), "the inter-broker user exists before the nodes start: " + x.args());
            } else {
                assertNotNull(x.option("--kafka-config"), "every client under its own principal: " + x.args());
            }
            assertFalse(String.join(" ", x.args()).toLowerCase().contains("password"), "no secret on a command line: " + x.args());
        }
        // the overlay secures every service of the deployment, with the same arguments otherwise
        for (Service b : base) {
            if (b.name().equals("registry")) continue; // not a client of the cluster
            long same = secure.stream().filter(x -> x.name().equals(b.name()) && x.args().containsAll(b.args())).count();
            assertTrue(same >= 1, "the overlay has " + b.args());
        }
        Service acls = secure.stream().filter(x -> x.name().equals("acls")).findFirst().orElseThrow();
        assertEquals(cluster().getProperty("VERIFIER_ID"), acls.option("--verifier-id"));
    }
}
