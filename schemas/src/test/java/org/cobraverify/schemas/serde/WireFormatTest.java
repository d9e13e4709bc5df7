package org.cobraverify.schemas.serde;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.Outcome;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

class WireFormatTest {
    final WireFormat wire = WireFormat.standalone();

    static Transaction txn() {
        return Transaction.newBuilder().setId("t1").setSession("c1").setStatus(TxnStatus.COMMITTED).setStart(1).setEnd(2)
                .setOps(List.of(new TxnOp(false, "x", null), new TxnOp(true, "x", "w1"))).setEpoch(3).setFence(false)
                .setSessionIndex(1).build();
    }

    @Test
    void roundTripsEveryTopLevelType() {
        Operation op = Operation.newBuilder().setSession("c1").setSeq(7).setTxn("t1").setKind(OpKind.READ).setKey("k").setValue(null).setTime(9).build();
        assertEquals(op, wire.decode(wire.encode(op), Operation.class));
        assertEquals(txn(), wire.decode(wire.encode(txn()), Transaction.class));
        Verdict v = Verdict.newBuilder().setRound(2).setOutcome(Outcome.REJECT).setReason("cycle").setRoundTxns(3).setCheckedTxns(10)
                .setPendingTxns(0).setFirstEpoch(0).setLastEpoch(1).setConstraints(4).setConstraintsAfterPruning(1).setBuildMs(1)
                .setConstructMs(1).setPruneMs(1).setSolveMs(1).setTotalMs(4).setVerifiedAt(5)
                .setCertificate(Certificate.newBuilder().setAnomaly("G-single").setSummary("s").setText("t")
                        .setCycle(List.of(new CycleEdge("a", "b", "wr", "x", null))).setTransactions(List.of()).build()).build();
        assertEquals(v, wire.decode(wire.encode(v), Verdict.class));
        assertEquals("org.cobraverify.schemas.Verdict", wire.typeOf(wire.encode(v)));
    }

    /** The bytes are a contract (Avro single-object encoding): Avro's own message encoder and decoder agree with ours. */
    @Test
    void bytesAreAvrosSingleObjectEncodingBothWays() throws Exception {
        SpecificData model = new SpecificData();
        BinaryMessageEncoder<Transaction> avroEnc = new BinaryMessageEncoder<>(model, Transaction.getClassSchema());
        BinaryMessageDecoder<Transaction> avroDec = new BinaryMessageDecoder<>(model, Transaction.getClassSchema());
        Transaction big = Transaction.newBuilder(txn()).setOps(IntStream.range(0, 500)
                .mapToObj(i -> new TxnOp(i % 2 == 0, "key-" + i, i % 3 == 0 ? null : "w" + i)).toList()).build();
        for (Transaction t : List.of(txn(), big, txn())) { // a small one after a big one: the reused buffer is reset
            byte[] ours = wire.encode(t);
            assertArrayEquals(avroEnc.encode(t).array(), ours);
            assertEquals(t, avroDec.decode(ours));
            assertEquals(t, wire.decode(avroEnc.encode(t).array(), Transaction.class));
        }
    }

    @Test
    void everyRecordCarriesItsSchemaFingerprint() {
        byte[] b = wire.encode(txn());
        assertEquals(0xC3, b[0] & 0xff);
        assertEquals(0x01, b[1]);
        assertEquals(SchemaCatalog.fingerprint(Transaction.getClassSchema()), WireFormat.fingerprint(b));
    }

    /** A version-1 producer (no epoch fields) is read by this build: the new fields take their defaults. */
    @Test
    void readsRecordsWrittenWithThePreviousVersion() throws Exception {
        Schema v1 = SchemaCatalog.bundledPrevious().stream().filter(s -> s.getName().equals("Transaction")).findFirst().orElseThrow();
        assertNotEquals(SchemaCatalog.fingerprint(v1), SchemaCatalog.fingerprint(Transaction.getClassSchema()));
        GenericRecord op = new GenericData.Record(v1.getField("ops").schema().getElementType());
        op.put("write", true);
        op.put("key", "x");
        op.put("value", "w9");
        GenericRecord t = new GenericData.Record(v1);
        t.put("id", "old-1");
        t.put("session", "c4");
        t.put("status", new GenericData.EnumSymbol(v1.getField("status").schema(), "ABORTED"));
        t.put("start", 10L);
        t.put("end", 20L);
        t.put("ops", List.of(op));
        Transaction read = wire.decode(singleObject(v1, t), Transaction.class);
        assertEquals("old-1", read.getId());
        assertEquals(TxnStatus.ABORTED, read.getStatus());
        assertEquals(List.of(new TxnOp(true, "x", "w9")), read.getOps());
        assertEquals(-1, read.getEpoch());
        assertEquals(-1, read.getSessionIndex());
        assertFalse(read.getFence());
    }

    /** A verdict written by a version-2 verifier (no restart count) is read by this build: the count takes its default. */
    @Test
    void readsVerdictsOfThePreviousVersion() throws Exception {
        Schema v2 = SchemaCatalog.bundledPrevious().stream()
                .filter(s -> s.getName().equals("Verdict") && s.getField("gcMs") != null && s.getField("verifierRestarts") == null)
                .findFirst().orElseThrow();
        GenericRecordBuilder b = new GenericRecordBuilder(v2);
        b.set("round", 7L).set("outcome", new GenericData.EnumSymbol(v2.getField("outcome").schema(), "ACCEPT")).set("reason", "ok")
                .set("roundTxns", 3).set("checkedTxns", 30L).set("pendingTxns", 0L).set("firstEpoch", 1L).set("lastEpoch", 2L)
                .set("constraints", 0L).set("constraintsAfterPruning", 0L).set("buildMs", 0L).set("constructMs", 0L).set("pruneMs", 0L)
                .set("solveMs", 0L).set("totalMs", 5L).set("verifiedAt", 99L).set("retainedTxns", 12L);
        Verdict read = wire.decode(singleObject(v2, b.build()), Verdict.class);
        assertEquals(7L, read.getRound());
        assertEquals(12L, read.getRetainedTxns());
        assertEquals(0L, read.getVerifierRestarts());
    }

    /** A newer producer's schema (an extra field) is unknown to this build: found through the catalog's fallback. */
    @Test
    void readsRecordsWrittenWithANewerVersionThroughTheCatalog() throws Exception {
        String json = Operation.getClassSchema().toString().replace("\"fields\":[",
                "\"fields\":[{\"name\":\"host\",\"type\":\"string\",\"default\":\"\"},");
        Schema v3 = new Schema.Parser().parse(json);
        GenericRecord r = new GenericData.Record(v3);
        r.put("host", "app-7");
        r.put("session", "c1");
        r.put("seq", 1L);
        r.put("txn", "t");
        r.put("kind", new GenericData.EnumSymbol(v3.getField("kind").schema(), "BEGIN"));
        r.put("key", null);
        r.put("value", null);
        r.put("time", 5L);
        byte[] bytes = singleObject(v3, r);
        MalformedRecordException e = assertThrows(MalformedRecordException.class, () -> wire.decode(bytes, Operation.class));
        assertTrue(e.getMessage().contains("unknown writer schema"), e.getMessage());

        SchemaCatalog catalog = new SchemaCatalog();
        int[] asked = {0};
        catalog.fallback(fp -> { asked[0]++; return fp == SchemaCatalog.fingerprint(v3) ? v3 : null; });
        WireFormat connected = new WireFormat(catalog);
        Operation op = connected.decode(bytes, Operation.class);
        assertEquals(OpKind.BEGIN, op.getKind());
        assertEquals(5L, op.getTime());
        connected.decode(bytes, Operation.class);
        assertEquals(1, asked[0], "a schema found once is cached");
    }

    @Test
    void malformedBytesSayWhy() {
        assertTrue(assertThrows(MalformedRecordException.class, () -> wire.decode(new byte[] {1, 2, 3}, Operation.class))
                .getMessage().contains("not Avro single-object encoding"));
        assertTrue(assertThrows(MalformedRecordException.class, () -> wire.decode("{\"json\":1}".getBytes(), Operation.class))
                .getMessage().contains("header"));
        byte[] t = wire.encode(txn());
        assertTrue(assertThrows(MalformedRecordException.class, () -> wire.decode(t, Operation.class))
                .getMessage().contains("expected a org.cobraverify.schemas.Operation, found a org.cobraverify.schemas.Transaction"));
        byte[] truncated = Arrays.copyOf(t, t.length - 3);
        assertTrue(assertThrows(MalformedRecordException.class, () -> wire.decode(truncated, Transaction.class))
                .getMessage().startsWith("bad org.cobraverify.schemas.Transaction body"));
        assertThrows(MalformedRecordException.class, () -> wire.decode(null, Transaction.class));
    }

    static byte[] singleObject(Schema schema, GenericRecord r) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xC3);
        out.write(0x01);
        out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(SchemaCatalog.fingerprint(schema)).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(r, enc);
        enc.flush();
        return out.toByteArray();
    }
}
