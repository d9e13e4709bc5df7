package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * C-Twitter as key-value transactions: 1000 users (times scale), follow choices skewed towards popular
 * users; tweet (read-modify-write the author's tweet count, write the tweet), follow/unfollow
 * (read-modify-write the follow list), and timeline (read the follow list and the latest tweets of
 * up to 5 followed users, the common case).
 */
public final class Twitter implements Workload {
    private final int users;

    public Twitter(double scale) { this.users = Math.max(10, (int) (1000 * scale)); }

    @Override
    public String name() { return "twitter"; }

    private int skewed(Random rnd) {
        double x = rnd.nextDouble();
        return (int) (users * x * x * x); // popular users come first
    }

    @Override
    public void runOne(Client c, Random rnd) throws StoreException {
        int u = rnd.nextInt(users);
        double p = rnd.nextDouble();
        c.begin();
        if (p < 0.15) {
            String n = c.read("tweets:" + u);
            long count = n == null ? 0 : Long.parseLong(n);
            c.write("tweet:" + u + ":" + count, "t" + rnd.nextInt(1 << 20));
            c.write("tweets:" + u, Long.toString(count + 1));
        } else if (p < 0.25) {
            String f = c.read("follows:" + u);
            String other = Integer.toString(skewed(rnd));
            String list = f == null ? "" : f;
            if (!(" " + list + " ").contains(" " + other + " ")) list = (list.isEmpty() ? other : list + " " + other);
            else list = (" " + list + " ").replace(" " + other + " ", " ").trim();
            c.write("follows:" + u, list);
        } else {
            String f = c.read("follows:" + u);
            if (f != null && !f.isEmpty()) {
                String[] followed = f.split(" ");
                for (int i = 0; i < Math.min(5, followed.length); i++) {
                    String n = c.read("tweets:" + followed[i]);
                    if (n != null && Long.parseLong(n) > 0) c.read("tweet:" + followed[i] + ":" + (Long.parseLong(n) - 1));
                }
            }
        }
        c.commit();
    }
}
