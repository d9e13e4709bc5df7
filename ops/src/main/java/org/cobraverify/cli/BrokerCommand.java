package org.cobraverify.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cobra broker}: a real single-node KRaft Kafka broker for local use, until interrupted. */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = "Runs a single-node Kafka broker (KRaft, from the Kafka jars) on loopback until interrupted.")
public final class BrokerCommand implements Callable<Integer> {
    @Option(names = "--port", description = "Client port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port = 9092;

    @Option(names = "--dir", paramLabel = "DIR", description = "Data directory, kept across runs (default: a temporary one, deleted at exit).")
    Path dir;

    @Override
    public Integer call() throws Exception {
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(port, dir);
        } catch (Exception e) {
            System.err.println("cobra broker: cannot start: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "cobra-broker-shutdown"));
        System.out.println("cobra broker: ready at " + kafka.bootstrapServers() + " (data in " + kafka.dataDir() + "); Ctrl-C stops it");
        stopped.await();
        return 0;
    }
}
