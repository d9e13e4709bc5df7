package org.cobraverify.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cobraverify.history.History;

/** Entry point for reading a history file (or Cobra log directory) in any supported format. */
public final class HistoryReaders {
    private HistoryReaders() {}

    /** A parsed history with what the reader had to say about it (skipped records, dropped transactions). */
    public record Loaded(History history, HistoryFormat format, List<String> notes) {}

    /** Options that only some formats use. */
    public record Options(boolean cobraTimestamps) {
        public static final Options DEFAULT = new Options(false);
    }

    public static Loaded read(Path path, HistoryFormat format, Options options) throws IOException, MalformedHistoryException {
        if (!Files.exists(path)) throw new MalformedHistoryException(path.toString(), "", "no such file or directory");
        if (format == null) format = HistoryFormat.detect(path);
        List<String> notes = new ArrayList<>();
        try {
            History h = switch (format) {
                case COBRA_JSONL -> CobraJsonlReader.read(path);
                case COBRA_LOG -> CobraLogReader.read(path, options.cobraTimestamps(), notes);
                case DBCOP -> DbcopReader.read(path, notes);
                case POLYSI -> PolySiReader.read(path);
                case ELLE_EDN -> ElleReader.readEdn(path, notes);
                case ELLE_JSON -> ElleReader.readJson(path, notes);
            };
            return new Loaded(h, format, notes);
        } catch (NoSuchFileException e) {
            throw new MalformedHistoryException(path.toString(), "", "cannot open " + e.getFile());
        }
    }

    public static Loaded read(Path path) throws IOException, MalformedHistoryException {
        return read(path, null, Options.DEFAULT);
    }
}
