package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * Built to expose dirty reads: a few hot keys (times scale). Half the transactions write a key twice, a tentative value
 * and then the final one, reading another key in between, and a third of those roll back instead of committing; the
 * other half read two keys. A level that lets a reader see uncommitted data shows it as a read of a write that was
 * rolled back (G1a, aborted read) or of the tentative value (G1b, intermediate read).
 */
public final class DirtyReads implements Workload {
    private final int keys;

    public DirtyReads(double scale) { keys = Math.max(2, (int) (4 * scale)); }

    @Override
    public String name() { return "dirty-read"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        int k = rnd.nextInt(keys);
        int other = (k + 1 + rnd.nextInt(keys - 1)) % keys;
        c.begin();
        if (rnd.nextBoolean()) {
            c.write("dirty:" + k, "tentative");
            c.read("dirty:" + other);
            c.write("dirty:" + k, "final");
            if (rnd.nextInt(3) == 0) c.abort();
            else c.commit();
        } else {
            c.read("dirty:" + k);
            c.read("dirty:" + other);
            c.commit();
        }
    }
}
