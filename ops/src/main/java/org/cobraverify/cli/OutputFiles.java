package org.cobraverify.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Where a command may write a file it is told to write (a history, a page, a graph, a witness): a path that holds nothing
 * yet, or a file of the same kind that cobra wrote, which it replaces. Anything else there (a user's file, a history given
 * as the input, a page of another tool) is refused with one line, and left as it was: cobra never destroys what it did not
 * create. Each kind is recognised by how cobra begins it.
 */
final class OutputFiles {
    private OutputFiles() {}

    /** The kinds of file commands write, each with how cobra's own begin. */
    enum Kind {
        /** A cobra-jsonl history (record, export, plant): its header line. */
        HISTORY("a cobra-jsonl history"),
        /** A page (a certificate, a survey, a verdict): the generator mark in its head. */
        PAGE("a page cobra wrote"),
        /** A Graphviz certificate ({@code verify --dot}). */
        DOT("a certificate graph cobra wrote"),
        /** A witness order ({@code verify --witness}): one transaction id per line, nothing else. */
        WITNESS("a witness cobra wrote");

        private final String what;

        Kind(String what) { this.what = what; }
    }

    /** The mark every page cobra writes carries in its head. */
    static final String PAGE_MARK = org.cobraverify.report.HtmlReport.GENERATOR;

    /**
     * Null when {@code path} may be written as {@code kind}: nothing is there, an empty file, or {@code kind} as cobra writes
     * it; otherwise the one-line reason it may not (naming the path and what to do).
     */
    static String refusal(Path path, Kind kind) {
        if (path == null || !Files.exists(path)) return null;
        if (Files.isDirectory(path)) return path + " is a directory: name a file to write";
        try {
            if (Files.size(path) == 0 || ours(path, kind)) return null;
        } catch (IOException e) {
            return "cannot read " + path + " to see whether cobra wrote it: " + e.getMessage();
        }
        return path + " exists and is not " + kind.what + ": cobra does not overwrite a file it did not write; name another, or move it away first";
    }

    private static boolean ours(Path path, Kind kind) throws IOException {
        String head = head(path, kind == Kind.PAGE ? 4096 : 512);
        return switch (kind) {
            case HISTORY -> head.startsWith("{\"format\":\"cobra-jsonl\"");
            case PAGE -> head.contains(PAGE_MARK);
            case DOT -> head.startsWith("digraph certificate {");
            case WITNESS -> head.lines().allMatch(l -> !l.isEmpty() && l.chars().noneMatch(c -> c <= ' ' || c == '{' || c == '<' || c == '"' || c == ','));
        };
    }

    /** The first {@code n} bytes of the file as text (decompressed when it is gzip). */
    private static String head(Path path, int n) throws IOException {
        byte[] b;
        try (InputStream in = Files.newInputStream(path)) {
            b = in.readNBytes(n);
        }
        if (b.length >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(path))) {
                b = in.readNBytes(n);
            } catch (IOException e) {
                return "";
            }
        }
        String s = new String(b, StandardCharsets.UTF_8);
        // a witness's last line may be cut by the n bytes: judge the whole lines
        int cut = b.length == n ? s.lastIndexOf('\n') : -1;
        return cut > 0 ? s.substring(0, cut) : s;
    }
}
