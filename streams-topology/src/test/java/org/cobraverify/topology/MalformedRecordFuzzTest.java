package org.cobraverify.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.OpKind;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.testkit.Seeds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Broken records on the operations topic, through the serde and the topology: each one that does not decode
 * reaches the dead-letter topic with its bytes and offset intact, and the topology goes on (the records
 * after it are processed). The breakage (one to eight bit flips, truncations and inserted bytes) is drawn from a
 * seed: 60 seeded cases ({@link Seeds}: a failure names its seed, {@code -Dcobra.seed=N} reruns it).
 */
class MalformedRecordFuzzTest {
    static final WireFormat WIRE = WireFormat.standalone();

    record Break(int kind, int at, int value) {
        byte[] apply(byte[] in) {
            int n = in.length, a = Math.floorMod(at, n);
            return switch (Math.floorMod(kind, 3)) {
                case 0 -> { byte[] o = in.clone(); o[a] ^= (byte) (1 << Math.floorMod(value, 8)); yield o; }
                case 1 -> Arrays.copyOf(in, a);
                default -> {
                    byte[] o = new byte[n + 1];
                    System.arraycopy(in, 0, o, 0, a);
                    o[a] = (byte) value;
                    System.arraycopy(in, a, o, a + 1, n - a);
                    yield o;
                }
            };
        }
    }

    /** The breaks of {@code seed}: one to eight, each of any kind, place and value. */
    static List<Break> breaks(long seed) {
        Random rnd = new Random(seed);
        List<Break> breaks = new ArrayList<>();
        for (int k = 1 + rnd.nextInt(8); k > 0; k--) breaks.add(new Break(rnd.nextInt(), rnd.nextInt(), rnd.nextInt()));
        return breaks;
    }

    static LongStream seeds() { return Seeds.of(60); }

    @ParameterizedTest(name = Seeds.NAME)
    @MethodSource("seeds")
    void everyUndecodableRecordIsDeadLetteredAndNothingStops(long seed) throws Exception {
        List<Break> breaks = breaks(seed);
        String ctx = Seeds.rerun(seed) + ", breaks " + breaks;
        Path state = Files.createTempDirectory("fuzz");
        Properties p = PipelineTopology.config("fuzz", "unused:9092", state.toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(PipelineTopology.build(TopologySettings.defaults(), WIRE), p, Instant.ofEpochMilli(1_000_000))) {
            TestInputTopic<String, byte[]> ops = driver.createInputTopic(Topics.OPS, new StringSerializer(), new ByteArraySerializer());
            TestOutputTopic<String, byte[]> dead = driver.createOutputTopic(Topics.DEAD_LETTERS, new StringDeserializer(), new ByteArrayDeserializer());
            TestOutputTopic<String, byte[]> txns = driver.createOutputTopic(Topics.TXNS, new StringDeserializer(), new ByteArrayDeserializer());
            List<byte[]> undecodable = new ArrayList<>();
            List<Long> offsets = new ArrayList<>();
            long offset = 0;
            // each broken record is a copy of a valid BEGIN of another session, so a decodable one is harmless
            byte[] valid = WIRE.encode(new Operation("z", 1L, "z-t1", OpKind.BEGIN, null, null, 0L));
            for (Break b : breaks) {
                byte[] bad = b.apply(valid);
                boolean decodes;
                try {
                    WIRE.decode(bad, Operation.class);
                    decodes = true;
                } catch (RuntimeException e) {
                    decodes = false;
                }
                ops.pipeInput("z", bad);
                if (!decodes) { undecodable.add(bad); offsets.add(offset); }
                offset++;
            }
            // a whole transaction after the garbage still comes out
            ops.pipeInput("a", WIRE.encode(new Operation("a", 1L, "a-t1", OpKind.BEGIN, null, null, 1000L)));
            ops.pipeInput("a", WIRE.encode(new Operation("a", 2L, "a-t1", OpKind.WRITE, "x", "1", 2000L)));
            ops.pipeInput("a", WIRE.encode(new Operation("a", 3L, "a-t1", OpKind.COMMIT, null, null, 3000L)));
            ops.pipeInput("a", WIRE.encode(new Operation("a", 4L, "", OpKind.END, null, null, 4000L))); // releases what it held
            List<DeadLetter> letters = dead.readValuesToList().stream().map(v -> WIRE.decode(v, DeadLetter.class)).toList();
            List<DeadLetter> undecoded = letters.stream().filter(d -> d.getReason().startsWith("undecodable")).toList();
            assertEquals(undecodable.size(), undecoded.size(), ctx + ": " + letters.stream().map(DeadLetter::getReason).toList());
            for (int i = 0; i < undecoded.size(); i++) {
                assertEquals((long) offsets.get(i), undecoded.get(i).getOffset(), ctx);
                assertEquals(Topics.OPS, undecoded.get(i).getTopic(), ctx);
                byte[] kept = new byte[undecoded.get(i).getValue().remaining()];
                undecoded.get(i).getValue().duplicate().get(kept);
                assertArrayEquals(undecodable.get(i), kept, ctx + ": the dead letter keeps the record's bytes");
            }
            List<String> out = txns.readValuesToList().stream().map(WIRE::typeOf).toList();
            assertEquals(1, out.stream().filter(t -> t.endsWith(".Transaction")).count(), ctx + ": " + out + " " + letters.stream().map(DeadLetter::getReason).toList());
        } finally {
            try (var w = Files.walk(state)) {
                w.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
            }
        }
    }
}
