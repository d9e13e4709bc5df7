package org.cobraverify.ops.pipeline;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.cobraverify.schemas.Verdict;

/**
 * What the pipeline holds and what a record costs, read off a running one-JVM pipeline: the heap after a
 * full collection (everything in the process: broker, topology, verifier, workload), the topology's
 * per-record processing time (Kafka Streams' {@code process-latency-avg}: a poll's processing time over its
 * records, averaged over the threads), the keys in each of its state stores (counted), and
 * the verifier's check time per transaction since the previous probe, with its retained and collected
 * counts. The full collection pauses the process: a probe is for measuring flatness, not for every run.
 */
public final class StateProbe {
    /** One reading; {@code stores}: store name to estimated keys, summed over tasks. */
    public record Reading(long transactions, double heapMb, double topologyMsPerRecord, double topologyRecordsPerSecond,
                          Map<String, Long> stores, long fenceGaps, double verifierMsPerTxn, long retained, long collected, int rounds) {
        public long storeKeys() { return stores.values().stream().mapToLong(Long::longValue).sum(); }

        /** One line for a person. */
        public String line() {
            return String.format("at %,d transactions: heap after GC %.0f MB; topology %.3f ms/record (%.0f records/s), %,d keys in its stores %s, "
                            + "%d fence gaps bridged; verifier %.3f ms/txn over the last %d rounds, %,d retained, %,d collected",
                    transactions, heapMb, topologyMsPerRecord, topologyRecordsPerSecond, storeKeys(), stores, fenceGaps, verifierMsPerTxn, rounds, retained, collected);
        }
    }

    private final Pipeline pipeline;
    private int verdictsSeen;

    public StateProbe(Pipeline pipeline) { this.pipeline = pipeline; }

    /** Reads the figures now; {@code transactions}: how many the workload has recorded (the reading's label). */
    public Reading read(long transactions) {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        double heap = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
        double latencySum = 0, rate = 0;
        int threads = 0;
        Map<String, Long> stores = new TreeMap<>(pipeline.topologyStoreSizes());
        for (Map.Entry<MetricName, ? extends Metric> e : pipeline.topologyMetrics().entrySet()) {
            MetricName n = e.getKey();
            Object v = e.getValue().metricValue();
            if (!(v instanceof Number num) || Double.isNaN(num.doubleValue())) continue;
            if (n.group().equals("stream-thread-metrics") && n.name().equals("process-latency-avg")) { latencySum += num.doubleValue(); threads++; }
            else if (n.group().equals("stream-thread-metrics") && n.name().equals("process-rate")) rate += num.doubleValue();
        }
        List<Verdict> vs = pipeline.verdicts();
        int upTo = vs.size();
        long ms = 0, txns = 0;
        for (int i = verdictsSeen; i < upTo; i++) { ms += vs.get(i).getTotalMs(); txns += vs.get(i).getRoundTxns(); }
        int rounds = upTo - verdictsSeen;
        verdictsSeen = upTo;
        Verdict last = upTo == 0 ? null : vs.get(upTo - 1);
        return new Reading(transactions, heap, threads == 0 ? Double.NaN : latencySum / threads, rate, stores, pipeline.fenceGapsBridged(),
                txns == 0 ? Double.NaN : ms / (double) txns, last == null ? 0 : last.getRetainedTxns(), last == null ? 0 : last.getCollectedTxns(), rounds);
    }
}
