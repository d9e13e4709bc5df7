package org.cobraverify.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.cobraverify.ops.kafka.PipelineAcls;
import org.cobraverify.schemas.kafka.KafkaConnection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cobra acls}: the ACLs each component needs (ops/ACLS.md), printed, or created through the Admin API. */
@Command(name = "acls", mixinStandardHelpOptions = true, header = "Prints, or creates, the least-privilege ACLs of each component of the pipeline.", footer = "Exit codes: 0 printed (or created), 2 could not run (bad options, the cluster unreachable or refusing).",
        description = {"Prints (or, with --create, creates through the Admin API) the least-privilege ACLs of each component:",
                "the collector writes cobra.ops; the topology reads its inputs, writes its outputs, owns its internal topics and group;",
                "the verifier reads cobra.rounds and writes verdicts and checkpoints with its transactional id; alerting reads verdicts.",
                "Run it as an administrator (--kafka-config with a super user's credentials)."})
public final class AclsCommand implements Callable<Integer> {
    @Mixin
    KafkaOptions kafkaOptions = new KafkaOptions();

    @Option(names = "--collector", paramLabel = "PRINCIPAL", description = "The interceptor's principal (User:name).")
    String collector;

    @Option(names = "--topology", paramLabel = "PRINCIPAL", description = "The topology's principal.")
    String topology;

    @Option(names = "--verifier", paramLabel = "PRINCIPAL", description = "The verifier's principal (also enough for cobra replay).")
    String verifier;

    @Option(names = "--alerting", paramLabel = "PRINCIPAL", description = "The principal of cobra verdicts (alerting, dashboards).")
    String alerting;

    @Option(names = "--application-id", description = "The topology's application id (default: ${DEFAULT-VALUE}).")
    String applicationId = "cobra-topology";

    @Option(names = "--verifier-group", description = "The verifier's consumer group (default: ${DEFAULT-VALUE}).")
    String verifierGroup = "cobra-verifier";

    @Option(names = "--verifier-id", description = "The verifier's transactional id, its --id (default: ${DEFAULT-VALUE}).")
    String verifierId = "cobra-verifier-0";

    @Option(names = "--create", description = "Create the ACLs on the cluster (default: only print them).")
    boolean create;

    @Option(names = "--scram-users", paramLabel = "FILE", description = "name=password lines: create or update these SCRAM-SHA-256 users first (needs --create).")
    Path scramUsers;

    @Override
    public Integer call() throws Exception {
        if (collector == null && topology == null && verifier == null && alerting == null) {
            System.err.println("cobra acls: name at least one principal (--collector, --topology, --verifier, --alerting)");
            return 2;
        }
        List<AclBinding> bindings;
        try {
            bindings = PipelineAcls.bindings(new PipelineAcls.Principals(collector, topology, verifier, alerting, applicationId, verifierGroup, verifierId));
        } catch (IllegalArgumentException e) {
            System.err.println("cobra acls: " + e.getMessage());
            return 2;
        }
        for (AclBinding b : bindings) System.out.println(PipelineAcls.line(b));
        if (!create) {
            if (scramUsers != null) System.err.println("cobra acls: --scram-users needs --create; nothing was changed");
            System.err.println("cobra acls: " + bindings.size() + " ACLs (printed only; --create creates them)");
            return 0;
        }
        KafkaConnection kafka = kafkaOptions.reachableConnection();
        try (Admin admin = Admin.create(kafka.properties())) {
            if (scramUsers != null) {
                List<UserScramCredentialAlteration> users = new ArrayList<>();
                Properties u = KafkaConnection.readProperties(scramUsers, "SCRAM users");
                for (String name : new TreeSet<>(u.stringPropertyNames()))
                    users.add(new UserScramCredentialUpsertion(name, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), u.getProperty(name)));
                admin.alterUserScramCredentials(users).all().get();
                System.err.println("cobra acls: SCRAM-SHA-256 credentials set for " + users.size() + " user(s) from " + scramUsers);
            }
            admin.createAcls(bindings).all().get();
        }
        System.err.println("cobra acls: " + bindings.size() + " ACLs created on " + kafka.bootstrap());
        return 0;
    }
}
