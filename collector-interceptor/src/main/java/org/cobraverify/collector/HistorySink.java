package org.cobraverify.collector;

import java.io.IOException;

/**
 * Where recorded transactions go. Contract: {@link #record} is called once per transaction, in session
 * order for each session, possibly from several threads; when it returns, the record is accepted (a
 * later {@link #close} will not lose it); when it throws, the caller fails the transaction loudly.
 */
public interface HistorySink extends AutoCloseable {
    void record(TxnRecord txn) throws IOException;

    /** The session will record nothing more (sinks that stream may tell their readers so). */
    default void endSession(String session) throws IOException {}

    /** Flushes and releases; records accepted before are durable in the sink afterwards. */
    @Override
    void close() throws IOException;
}
