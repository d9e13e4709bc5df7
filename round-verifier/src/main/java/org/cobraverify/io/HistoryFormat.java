package org.cobraverify.io;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/** The history formats the checker reads, and detection of a file's format from its name and first bytes. */
public enum HistoryFormat {
    COBRA_JSONL("cobra-jsonl"),
    COBRA_LOG("cobra-log"),
    DBCOP("dbcop"),
    POLYSI("polysi"),
    ELLE_EDN("elle-edn"),
    ELLE_JSON("elle-json");

    private final String cliName;

    HistoryFormat(String cliName) { this.cliName = cliName; }

    public String cliName() { return cliName; }

    public static HistoryFormat fromCliName(String s) {
        for (HistoryFormat f : values()) if (f.cliName.equalsIgnoreCase(s)) return f;
        throw new IllegalArgumentException("unknown format '" + s + "' (known: cobra-jsonl, cobra-log, dbcop, polysi, elle-edn, elle-json)");
    }

    /** Guesses the format of {@code path}: a directory is a Cobra log; otherwise by extension, then by content. */
    public static HistoryFormat detect(Path path) throws IOException, MalformedHistoryException {
        if (Files.isDirectory(path)) return COBRA_LOG;
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".bincode")) return DBCOP;
        if (name.endsWith(".edn")) return ELLE_EDN;
        if (name.endsWith(".jsonl") || name.endsWith(".jsonl.gz")) return COBRA_JSONL;
        byte[] head = new byte[4096];
        int len;
        try (InputStream in = open(path)) {
            len = in.readNBytes(head, 0, head.length);
        }
        String text = new String(head, 0, len, StandardCharsets.UTF_8);
        String t = text.stripLeading();
        if (t.startsWith("[")) return ELLE_JSON;
        if (t.startsWith("{:") || (t.startsWith("{") && t.contains(":type"))) return ELLE_EDN;
        if (t.startsWith("{")) {
            String firstLine = t.lines().findFirst().orElse("");
            if (firstLine.contains("\"type\"") && (firstLine.contains("\"value\"") || firstLine.contains("\"f\""))
                    && !firstLine.contains("\"ops\"")) return ELLE_JSON;
            return COBRA_JSONL;
        }
        if (t.startsWith("r(") || t.startsWith("w(")) return POLYSI;
        if (name.endsWith(".json")) return ELLE_JSON;
        for (int i = 0; i < len; i++) if (head[i] == 0) return DBCOP;
        throw new MalformedHistoryException(path.toString(), "", "cannot tell the history format from the content; use --format");
    }

    /** Opens a file for reading, transparently decompressing gzip (by magic number, not by name). */
    public static InputStream open(Path path) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        in.mark(2);
        int b1 = in.read(), b2 = in.read();
        in.reset();
        if (b1 == 0x1f && b2 == 0x8b) return new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
        return in;
    }
}
