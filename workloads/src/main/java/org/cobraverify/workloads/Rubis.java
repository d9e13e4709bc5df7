package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * C-RUBiS (eBay-like bidding) as key-value transactions: 20k users and 200k items in the paper (times
 * scale here, items drawn from a hot set); place a bid (read-modify-write the item's top bid and bid
 * count, write the bid), view an item (read its top bid and count), register a user (blind write),
 * view a user (read).
 */
public final class Rubis implements Workload {
    private final int users, items;

    public Rubis(double scale) {
        users = Math.max(10, (int) (20_000 * scale));
        items = Math.max(10, (int) (200_000 * scale));
    }

    @Override
    public String name() { return "rubis"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        double p = rnd.nextDouble();
        int item = rnd.nextInt(Math.max(10, items / 100)); // bidding concentrates on open auctions
        c.begin();
        if (p < 0.3) {
            String top = c.read("item:" + item + ":top");
            String n = c.read("item:" + item + ":bids");
            long price = top == null ? 0 : Long.parseLong(top);
            long bids = n == null ? 0 : Long.parseLong(n);
            long bid = price + 1 + rnd.nextInt(10);
            c.write("bid:" + item + ":" + bids, rnd.nextInt(users) + "@" + bid);
            c.write("item:" + item + ":top", Long.toString(bid));
            c.write("item:" + item + ":bids", Long.toString(bids + 1));
        } else if (p < 0.8) {
            c.read("item:" + item + ":top");
            c.read("item:" + item + ":bids");
        } else if (p < 0.9) {
            c.write("user:" + rnd.nextInt(users), "profile" + rnd.nextInt(1000));
        } else {
            c.read("user:" + rnd.nextInt(users));
        }
        c.commit();
    }
}
