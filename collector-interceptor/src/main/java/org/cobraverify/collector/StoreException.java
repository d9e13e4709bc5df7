package org.cobraverify.collector;

/** The store failed; where it happened during commit, the transaction's outcome is unknown. */
public class StoreException extends Exception {
    public StoreException(String message, Throwable cause) { super(message, cause); }

    public StoreException(String message) { super(message); }
}
