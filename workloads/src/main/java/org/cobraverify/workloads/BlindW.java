package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * The paper's BlindW: 10k keys (times scale); read-only and write-only transactions of 8 operations;
 * the read-only share is 90% (RM), 50% (RW) or 10% (WM). Blind writes are what leaves write orders open.
 */
public final class BlindW implements Workload {
    private final double readOnly;
    private final int keys;

    public BlindW(double readOnly, double scale) {
        this.readOnly = readOnly;
        this.keys = Math.max(8, (int) (10_000 * scale));
    }

    @Override
    public String name() { return readOnly >= 0.9 ? "blindw-rm" : readOnly >= 0.5 ? "blindw-rw" : "blindw-wm"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        boolean reader = rnd.nextDouble() < readOnly;
        c.begin();
        for (int i = 0; i < 8; i++) {
            String k = "k" + rnd.nextInt(keys);
            if (reader) c.read(k);
            else c.write(k, Integer.toString(rnd.nextInt(1_000_000)));
        }
        c.commit();
    }
}
