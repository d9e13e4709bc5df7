package org.cobraverify.ops.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.List;
import java.util.Properties;
import org.cobraverify.collector.KafkaSink;
import org.cobraverify.collector.TxnRecord;
import org.cobraverify.ops.kafka.EmbeddedKafka;
import org.cobraverify.ops.pipeline.TopicSetup;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.OperationBatch;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.topology.Topics;
import org.junit.jupiter.api.Test;

/** The interceptor's Kafka sink on a real broker: what it publishes, and that a lost send fails loudly. */
class KafkaSinkTest {
    static TxnRecord txn(String id) {
        return new TxnRecord(id, "c1", TxnRecord.Status.COMMITTED, 1, 2, List.of(new TxnRecord.Op(false, "x", null), new TxnRecord.Op(true, "x", "w-" + id)));
    }

    @Test
    void publishesEveryOperationKeyedBySessionInOrder() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0, null)) {
            TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1);
            WireFormat wire = WireFormat.standalone();
            try (KafkaSink batched = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, true, true, new Properties())) {
                batched.record(txn("t1"));
            }
            try (KafkaSink single = new KafkaSink(kafka.bootstrapServers(), Topics.TXNS, true, false, new Properties())) {
                single.record(txn("t2"));
                single.endSession("c1");
            }
            var ops = Topic.readAll(kafka.bootstrapServers(), Topics.OPS);
            assertEquals(1, ops.size());
            assertEquals("c1", ops.get(0).key());
            OperationBatch b = wire.decode(ops.get(0).value(), OperationBatch.class);
            assertEquals(List.of(OpKind.BEGIN, OpKind.READ, OpKind.WRITE, OpKind.COMMIT), b.getOps().stream().map(Operation::getKind).toList());
            assertEquals(List.of(1L, 2L, 3L, 4L), b.getOps().stream().map(Operation::getSeq).toList());
            assertEquals("w-t1", b.getOps().get(2).getValue());
            var one = Topic.readAll(kafka.bootstrapServers(), Topics.TXNS);
            assertEquals(5, one.size(), "four operations and the session's end, one record each");
            assertEquals(OpKind.END, wire.decode(one.get(4).value(), Operation.class).getKind());
            assertEquals(5L, wire.decode(one.get(4).value(), Operation.class).getSeq());
        }
    }

    @Test
    void aSendTheBrokerNeverAcknowledgesFailsTheTransactionLoudly() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start(0, null);
        Properties fast = new Properties();
        fast.put("delivery.timeout.ms", "3000");
        fast.put("request.timeout.ms", "1000");
        fast.put("linger.ms", "0");
        fast.put("max.block.ms", "3000");
        KafkaSink sink;
        try {
            TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1);
            sink = new KafkaSink(kafka.bootstrapServers(), Topics.OPS, true, true, fast);
            sink.record(txn("t1"));
        } finally {
            kafka.close(); // the broker goes away
        }
        IOException e = assertThrows(IOException.class, () -> sink.record(txn("t2")));
        assertTrue(e.getMessage().contains("t2"), e.getMessage());
        IOException again = assertThrows(IOException.class, () -> sink.record(txn("t3")));
        assertTrue(again.getMessage().contains("an earlier send failed") && again.getMessage().contains("t2"), again.getMessage());
        assertThrows(IOException.class, sink::close);
    }
}
