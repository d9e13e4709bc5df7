package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cobraverify.schemas.Transaction;
import org.junit.jupiter.api.Test;

/**
 * The open-addressing {@link WriterIndex} against a plain {@link HashMap} of the same pairs (an independent
 * implementation): random puts (first write wins), removals (backward shift; also only when a given transaction wrote
 * the pair), lookups of present and absent pairs,
 * copies and clears, over a small key space so that probe runs collide and wrap around the table's end.
 */
class WriterIndexTest {
    @Test
    void agreesWithAHashMapUnderRandomPutsRemovalsAndCopies() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            WriterIndex index = new WriterIndex();
            Map<String, Transaction> reference = new HashMap<>();
            List<Transaction> txns = new ArrayList<>();
            for (int i = 0; i < 50; i++) txns.add(new Transaction());
            int keys = 1 + rnd.nextInt(200), values = 1 + rnd.nextInt(40);
            for (int step = 0; step < 20_000; step++) {
                // new String objects each time: equal strings, not the same references, as decoded records are
                String k = new String("k" + rnd.nextInt(keys)), v = new String("r1." + Integer.toString(rnd.nextInt(values), 36));
                String pair = k + "\0" + v;
                int op = rnd.nextInt(10);
                if (op < 5) {
                    Transaction t = txns.get(rnd.nextInt(txns.size()));
                    index.putIfAbsent(k, v, t);
                    reference.putIfAbsent(pair, t);
                } else if (op < 7) {
                    index.remove(k, v);
                    reference.remove(pair);
                } else if (op < 8) { // removed only if written by t
                    Transaction t = txns.get(rnd.nextInt(txns.size()));
                    boolean was = reference.get(pair) == t;
                    assertEquals(was, index.removeIfWrittenBy(k, v, t), "seed " + seed + " step " + step);
                    if (was) reference.remove(pair);
                } else if (op == 8 && rnd.nextInt(200) == 0) {
                    WriterIndex copy = index.copy();
                    index.clear();
                    assertEquals(0, index.size());
                    index.replaceWith(copy);
                } else if (op == 8 && rnd.nextInt(1000) == 0) {
                    index.clear();
                    reference.clear();
                }
                assertSame(reference.get(pair), index.get(k, v), "seed " + seed + " step " + step + ": " + k + " = " + v);
                assertEquals(reference.size(), index.size(), "seed " + seed + " step " + step);
            }
            // every pair, present or not, at the end
            for (int k = 0; k < keys; k++)
                for (int v = 0; v < values; v++) {
                    String ks = "k" + k, vs = "r1." + Integer.toString(v, 36);
                    assertSame(reference.get(ks + "\0" + vs), index.get(ks, vs), "seed " + seed + ": " + ks + " = " + vs);
                }
        }
    }
}
