package org.cobraverify.collector;

/**
 * The history sink could not take a transaction's record. The transaction may have committed in the
 * store; the application must treat this as a failure of the recording, never ignore it.
 */
public final class RecordingException extends RuntimeException {
    public RecordingException(String message, Throwable cause) { super(message, cause); }
}
