package org.cobraverify.cli;

import static org.cobraverify.cli.VerifyCommandTest.cobra;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka-facing command pointed at an address where no broker answers says so, naming the address, and exits 2 within
 * its 10 s probe ({@link org.cobraverify.schemas.kafka.KafkaReach}) rather than after its clients' minute of retries; a
 * name that does not resolve is said at once. The address is a port this test holds closed: nothing listens on it.
 */
class KafkaUnreachableTest {
    @TempDir
    Path dir;

    /** A loopback port nothing listens on (bound, then released). */
    private static String deadAddress() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.SECONDS)
    void verdictsSaysTheClusterDidNotAnswer() throws Exception {
        String at = deadAddress();
        VerifyCommandTest.Run r = cobra("verdicts", "--bootstrap", at);
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("cobra verdicts: Kafka at " + at + " did not answer within 10 s"), r.err());
        assertFalse(r.err().contains("Exception"), "a sentence, not a stack trace: " + r.err());
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.SECONDS)
    void recordSaysSoBeforeRunningAnyTransaction() throws Exception {
        String at = deadAddress();
        VerifyCommandTest.Run r = cobra("record", "--bootstrap", at, "--txns", "10", "--out", dir.resolve("h.jsonl").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("Kafka at " + at + " did not answer"), r.err());
        assertTrue(r.out().isEmpty(), "no workload ran: " + r.out());
    }

    @Test
    void aNameThatDoesNotResolveIsSaidAtOnce() {
        VerifyCommandTest.Run r = cobra("topics", "--bootstrap", "no-such-broker.invalid:9092");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("cannot reach Kafka at no-such-broker.invalid:9092"), r.err());
    }

    @Test
    void theOldSpellingOfRecordsServersStillWorksAndSaysItIsDeprecated() {
        VerifyCommandTest.Run r = cobra("record", "--kafka", "no-such-broker.invalid:9092", "--txns", "10", "--out", dir.resolve("h.jsonl").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--kafka is deprecated and will go; say --bootstrap"), r.err());
        assertTrue(r.err().contains("cannot reach Kafka at no-such-broker.invalid:9092"), "the servers reached --bootstrap's field: " + r.err());
    }
}
