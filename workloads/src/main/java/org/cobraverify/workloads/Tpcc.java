package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * TPC-C as key-value transactions: one warehouse, 10 districts, 3000 customers per district (30k in
 * all, times scale), 100k items. New order 45% (read-modify-write the district's next order id and the
 * stock of 5–15 items, write the order), payment 43% (read-modify-write warehouse, district and customer
 * balances), order status 4%, delivery 4%, stock level 4% (reads). Every write is a read-modify-write,
 * so write combining orders the whole history.
 */
public final class Tpcc implements Workload {
    private final int customers, items;

    public Tpcc(double scale) {
        customers = Math.max(10, (int) (3000 * scale));
        items = Math.max(20, (int) (100_000 * scale));
    }

    @Override
    public String name() { return "tpcc"; }

    private static long num(String v) { return v == null ? 0 : Long.parseLong(v); }

    private void rmw(Client c, String key, long delta) throws StoreException {
        c.write(key, Long.toString(num(c.read(key)) + delta));
    }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        int d = rnd.nextInt(10);
        int cust = rnd.nextInt(customers);
        double p = rnd.nextDouble();
        c.begin();
        if (p < 0.45) {
            String key = "d:" + d + ":next_o";
            long o = num(c.read(key));
            c.write(key, Long.toString(o + 1));
            int lines = 5 + rnd.nextInt(11);
            StringBuilder order = new StringBuilder();
            for (int i = 0; i < lines; i++) {
                int item = rnd.nextInt(items);
                rmw(c, "s:" + item, -1);
                order.append(item).append(' ');
            }
            c.write("o:" + d + ":" + o, cust + ":" + order.toString().trim());
            c.write("c:" + d + ":" + cust + ":last_o", Long.toString(o));
        } else if (p < 0.88) {
            long amount = 1 + rnd.nextInt(5000);
            rmw(c, "w:ytd", amount);
            rmw(c, "d:" + d + ":ytd", amount);
            rmw(c, "c:" + d + ":" + cust + ":balance", -amount);
        } else if (p < 0.92) {
            c.read("c:" + d + ":" + cust + ":balance");
            String o = c.read("c:" + d + ":" + cust + ":last_o");
            if (o != null) c.read("o:" + d + ":" + o);
        } else if (p < 0.96) {
            String key = "d:" + d + ":delivered";
            long next = num(c.read(key));
            long placed = num(c.read("d:" + d + ":next_o"));
            if (next < placed) {
                c.read("o:" + d + ":" + next);
                c.write(key, Long.toString(next + 1));
            }
        } else {
            c.read("d:" + d + ":next_o");
            for (int i = 0; i < 10; i++) c.read("s:" + rnd.nextInt(items));
        }
        c.commit();
    }
}
