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
