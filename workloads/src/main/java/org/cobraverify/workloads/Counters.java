package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * Read-modify-write counters on a few hot keys (times scale): each transaction increments one
 * counter. Under read committed (or MariaDB's repeatable read) two increments can read the same value
 * and both write: a lost update.
 */
public final class Counters implements Workload {
    private final int counters;

    public Counters(double scale) { counters = Math.max(1, (int) (4 * scale)); }

    @Override
    public String name() { return "counter"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        String k = "counter:" + rnd.nextInt(counters);
        c.begin();
        String v = c.read(k);
        c.write(k, Long.toString((v == null ? 0 : Long.parseLong(v)) + 1));
        c.commit();
    }
}
