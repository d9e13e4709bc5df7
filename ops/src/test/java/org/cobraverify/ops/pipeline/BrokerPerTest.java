package org.cobraverify.ops.pipeline;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh in-process KRaft broker per test, in a temporary directory that is removed afterwards. */
abstract class BrokerPerTest {
    EmbeddedKafka kafka;
    Path dir;

    @BeforeEach
    void broker() throws Exception {
        dir = Files.createTempDirectory("cobra-pipeline-test");
        kafka = EmbeddedKafka.start(0, dir.resolve("kafka"));
    }

    @AfterEach
    void stop() throws Exception {
        if (kafka != null) kafka.close();
        if (dir != null) try (var w = Files.walk(dir)) {
            w.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }
}
