package org.cobraverify.workloads;

import java.util.Random;
import org.cobraverify.collector.StoreException;

/**
 * A benchmark: runs one transaction at a time through a {@link Client}. {@link #runOne} begins,
 * operates and commits (or aborts) exactly one transaction; an {@link org.cobraverify.collector.AbortedException}
 * from the store propagates and is counted by the runner, which does not retry.
 */
public interface Workload {
    String name();

    /** Loads initial data, if the workload needs any, through one client before the clients start. */
    default void load(Client c, Random rnd) throws StoreException {}

    void runOne(Client c, Random rnd) throws StoreException;

    /** The operations a workload needs; implemented over the recorder's session or the bare store. */
    interface Client {
        void begin() throws StoreException;
        String read(String key) throws StoreException;
        void write(String key, String value) throws StoreException;
        void commit() throws StoreException;
        void abort() throws StoreException;
        /** The client is done: no more transactions. */
        default void close() throws StoreException {}
    }

    static Workload byName(String name, double scale) {
        return switch (name.toLowerCase()) {
            case "blindw-rm" -> new BlindW(0.9, scale);
            case "blindw-rw" -> new BlindW(0.5, scale);
            case "blindw-wm" -> new BlindW(0.1, scale);
            case "twitter", "c-twitter" -> new Twitter(scale);
            case "rubis", "c-rubis" -> new Rubis(scale);
            case "tpcc", "tpc-c" -> new Tpcc(scale);
            case "write-skew" -> new WriteSkew(scale);
            case "counter", "rmw-counter" -> new Counters(scale);
            case "dirty-read", "dirty" -> new DirtyReads(scale);
            case "order-entry", "orders" -> new OrderEntry(scale);
            default -> throw new IllegalArgumentException("unknown workload '" + name
                    + "' (known: blindw-rm, blindw-rw, blindw-wm, twitter, rubis, tpcc, order-entry, write-skew, counter, dirty-read)");
        };
    }
}
