package org.cobraverify.schemas.serde;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Properties;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.Verdict;
import org.junit.jupiter.api.Test;

/** The Confluent framing's parts that need no registry: subjects, headers, and what a reader without one says. */
class RegistryFramingTest {
    static RegistryFraming framing(String naming) {
        Properties p = new Properties();
        p.put("schema.registry.url", "http://127.0.0.1:1");
        if (naming != null) p.put("value.subject.name.strategy", naming);
        return RegistryFraming.of(p);
    }

    @Test
    void subjectsFollowConfluentsStrategiesAndGiveEachTypeOfAMixedTopicItsOwn() {
        RegistryFraming topic = framing(null);
        assertEquals(RegistryFraming.Naming.TOPIC, topic.naming());
        assertEquals("cobra.verdicts-value", topic.subject("cobra.verdicts", Verdict.getClassSchema()));
        assertEquals("my-verdicts-value", topic.subject("my-verdicts", Verdict.getClassSchema()), "a topic not in the table carries one type");
        assertEquals("cobra.ops-org.cobraverify.schemas.Operation", topic.subject("cobra.ops", Operation.getClassSchema()),
                "cobra.ops carries several types: one subject each");
        assertEquals("org.cobraverify.schemas.Verdict", framing("io.confluent.kafka.serializers.subject.RecordNameStrategy")
                .subject("cobra.verdicts", Verdict.getClassSchema()));
        assertEquals("cobra.verdicts-org.cobraverify.schemas.Verdict", framing("topic-record").subject("cobra.verdicts", Verdict.getClassSchema()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> framing("by-size"));
        assertTrue(e.getMessage().contains("value.subject.name.strategy=by-size"), e.getMessage());
        assertNull(RegistryFraming.of(new Properties()), "no URL, no registry");
    }

    @Test
    void theHeaderIsMagicZeroAndTheIdBigEndian() {
        assertArrayEquals(new byte[] {0, 0, 1, 2, 3}, RegistryFraming.header(0x010203));
        assertEquals(5, WireFormat.headerLength(new byte[] {0, 0, 0, 0, 7, 42}));
        assertEquals(WireFormat.HEADER, WireFormat.headerLength(WireFormat.standalone().encode("t", Operation.newBuilder().setSession("c1").setSeq(1).setTxn("t1").setKind(org.cobraverify.schemas.OpKind.READ).setKey("k").setValue(null).setTime(1).build())),
                "without a registry, a topic's records stay single-object encoded");
    }

    @Test
    void aReaderWithoutARegistrySaysWhatItMet() {
        MalformedRecordException e = assertThrows(MalformedRecordException.class,
                () -> WireFormat.standalone().decode(new byte[] {0, 0, 0, 0, 7, 42, 1}, Verdict.class));
        assertTrue(e.getMessage().contains("schema registry id 7") && e.getMessage().contains("--schema-registry"), e.getMessage());
        MalformedRecordException shortOne = assertThrows(MalformedRecordException.class, () -> WireFormat.standalone().decode(new byte[] {0, 1}, Verdict.class));
        assertTrue(shortOne.getMessage().contains("no schema id"), shortOne.getMessage());
    }
}
