package org.cobraverify.collector;

/** The store aborted the transaction (serialization failure, deadlock, conflict): it did not commit. */
public class AbortedException extends StoreException {
    public AbortedException(String message, Throwable cause) { super(message, cause); }

    public AbortedException(String message) { super(message); }
}
