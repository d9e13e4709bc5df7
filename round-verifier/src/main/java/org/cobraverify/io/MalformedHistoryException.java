package org.cobraverify.io;

/**
 * The input could not be read as a history. The message names the source, the place in it (line,
 * record or byte offset) and the problem; it never carries a verdict.
 */
public final class MalformedHistoryException extends Exception {
    private final String source;
    private final String place;
    private final String problem;

    public MalformedHistoryException(String source, String place, String problem) {
        super(source + (place == null || place.isEmpty() ? "" : ": " + place) + ": " + problem);
        this.source = source;
        this.place = place;
        this.problem = problem;
    }

    public String source() { return source; }
    public String place() { return place; }
    public String problem() { return problem; }
}
