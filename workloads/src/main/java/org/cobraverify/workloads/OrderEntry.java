package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * An insert-heavy order-entry workload: most OLTP schemas insert rows that are never written again (orders, order
 * lines, history, events), so every inserting transaction writes the latest value of some key for ever. 1,000
 * customers (times scale), each with an order counter. Transactions:
 * <ul>
 *   <li>new order (50%): read-modify-write the customer's counter, insert the order row and two order lines
 *       (three fresh keys);</li>
 *   <li>order status (30%): read the counter, the latest order and its lines (recent rows);</li>
 *   <li>order history (20%): read the counter and one of the customer's earlier orders, uniformly (old rows).</li>
 * </ul>
 * Serializable stores give serializable histories; the key space grows by three keys per new order.
 */
public final class OrderEntry implements Workload {
    private final int customers;

    public OrderEntry(double scale) { this.customers = Math.max(10, (int) (1000 * scale)); }

    @Override
    public String name() { return "order-entry"; }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        int cust = rnd.nextInt(customers);
        double p = rnd.nextDouble();
        c.begin();
        String n = c.read("next_order:" + cust);
        long next = n == null ? 0 : Long.parseLong(n);
        if (p < 0.5) {
            c.write("next_order:" + cust, Long.toString(next + 1));
            String order = "order:" + cust + ":" + next;
            c.write(order, "o" + rnd.nextInt(1 << 20));
            for (int line = 0; line < 2; line++) c.write(order + ":line" + line, "item" + rnd.nextInt(100_000));
        } else if (next > 0) {
            long which = p < 0.8 ? next - 1 : (long) (rnd.nextDouble() * next);
            String order = "order:" + cust + ":" + which;
            c.read(order);
            if (p < 0.8) for (int line = 0; line < 2; line++) c.read(order + ":line" + line);
        }
        c.commit();
    }
}
