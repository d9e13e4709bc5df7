package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * Built to expose snapshot isolation: pairs of keys (a few, times scale); each transaction reads both
 * keys of a pair and writes one of them (the on-call doctors). Under SI two such transactions can each
 * miss the other's write: write skew, a G2 cycle of two anti-dependencies.
 */
public final class WriteSkew implements Workload {
    private final int pairs;

    public WriteSkew(double scale) { pairs = Math.max(1, (int) (4 * scale)); }

    @Override
    public String name() { return "write-skew"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        int p = rnd.nextInt(pairs);
        c.begin();
        String a = c.read("doctor:" + p + ":a");
        String b = c.read("doctor:" + p + ":b");
        boolean first = rnd.nextBoolean();
        // each leaves only if the other is on call (here: always leaves; the point is what was read)
        c.write("doctor:" + p + (first ? ":a" : ":b"), (a == null ? "on" : "off") + (b == null ? "-on" : "-off") + rnd.nextInt(1000));
        c.commit();
    }
}
