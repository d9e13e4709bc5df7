package org.cobraverify.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The interner's ids against a {@link HashMap} that hands out the same dense ids (an independent implementation). */
class InternerTest {
    @Test
    void denseIdsAgreeWithAHashMapAndNamesComeBack() {
        for (long seed = 1; seed <= 10; seed++) {
            Random rnd = new Random(seed);
            Interner in = new Interner();
            Map<Object, Integer> reference = new HashMap<>();
            int space = 1 + rnd.nextInt(5_000);
            for (int step = 0; step < 30_000; step++) {
                int x = rnd.nextInt(space);
                Object name = rnd.nextBoolean() ? (Object) Long.valueOf(x) : new String("k" + x); // equal strings, new objects
                Integer expected = reference.computeIfAbsent(name, n -> reference.size());
                int id = name instanceof Long l ? in.of(l) : in.of((String) name);
                assertEquals(expected.intValue(), id, "seed " + seed + " step " + step + ": " + name);
                assertEquals(name, in.name(id));
            }
            assertEquals(reference.size(), in.size());
        }
    }

    /** {@code find} answers what {@code of} gave a string and -1 for one never interned, and adds nothing. */
    @Test
    void findAnswersWithoutAdding() {
        for (long seed = 1; seed <= 5; seed++) {
            Random rnd = new Random(seed);
            Interner in = new Interner();
            Map<String, Integer> reference = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                String name = new String("t" + rnd.nextInt(3_000));
                if (rnd.nextBoolean()) reference.put(name, in.of(name));
                int before = in.size();
                assertEquals(reference.getOrDefault(name, -1).intValue(), in.find(new String(name)), "seed " + seed + " step " + step + ": " + name);
                assertEquals(before, in.size(), "seed " + seed + " step " + step + ": find added a name");
            }
        }
    }

    /** A history builder's index of transaction ids: the i-th begun at i, a read-only map whose entries come in that order. */
    @Test
    void aBuildersIndexFindsEachTransactionByIdAndRefusesADuplicate() {
        HistoryBuilder b = new HistoryBuilder();
        Map<String, Integer> index = b.index();
        int s = b.session("s");
        for (int i = 0; i < 500; i++) {
            b.begin("t" + (i * 7919 % 500), s, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1);
            b.end();
            assertEquals(i + 1, index.size());
        }
        for (int i = 0; i < 500; i++) assertEquals(i, index.get(new String("t" + (i * 7919 % 500))).intValue());
        assertEquals(null, index.get("t500"));
        assertEquals(false, index.containsKey(7));
        int at = 0;
        for (Map.Entry<String, Integer> e : index.entrySet()) {
            assertEquals("t" + (at * 7919 % 500), e.getKey());
            assertEquals(at++, e.getValue().intValue());
        }
        assertEquals(500, at);
        IllegalArgumentException dup = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> b.begin(new String("t3"), s, History.COMMITTED, History.NO_TIME, History.NO_TIME, -1));
        org.junit.jupiter.api.Assertions.assertTrue(dup.getMessage().contains("duplicate transaction id t3"), dup.getMessage());
        assertEquals(500, b.size(), "a refused begin leaves the builder as it was");
        org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> index.put("x", 1));
    }

    @Test
    void integerAndStringNamesAreDifferentNames() {
        Interner in = new Interner();
        assertNotEquals(in.of(1L), in.of("1"));
        assertEquals(in.of("1"), in.of(new String("1")));
    }

    /** A fresh id keeps its name but is never what a lookup returns: an equal string interned before or after gets its own id. */
    @Test
    void aFreshIdIsNeverLookedUp() {
        Interner in = new Interner();
        int before = in.of("s");
        int fresh = in.fresh("s");
        int after = in.of(new String("s"));
        assertNotEquals(before, fresh);
        assertEquals(before, after);
        assertEquals("s", in.name(fresh));
        int second = in.fresh("s");
        assertNotEquals(fresh, second);
        assertEquals(3, in.size());
        assertEquals(3, in.of("t")); // ids stay dense
    }
}
