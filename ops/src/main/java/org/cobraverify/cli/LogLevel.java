package org.cobraverify.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The level of cobra's own log messages (SLF4J's simple binding, configured in {@code simplelogger.properties}): from the
 * environment ({@code COBRA_LOG_LEVEL}) or {@code --log-level LEVEL} anywhere on the command line (which wins), set before
 * the first logger is made. Libraries keep their own, quieter levels.
 */
final class LogLevel {
    private LogLevel() {}

    static final Set<String> LEVELS = Set.of("error", "warn", "info", "debug", "trace", "off");

    /** The property SLF4J's simple binding reads for cobra's loggers. */
    static final String PROPERTY = "org.slf4j.simpleLogger.log.org.cobraverify";

    /** {@code args} without {@code --log-level LEVEL}, the level applied; null (after saying why) when the level is not one. */
    static String[] apply(String[] args, String fromEnvironment) {
        String level = fromEnvironment == null || fromEnvironment.isBlank() ? null : fromEnvironment.trim();
        String where = "COBRA_LOG_LEVEL";
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--log-level") && i + 1 < args.length) { level = args[++i]; where = "--log-level"; }
            else if (args[i].startsWith("--log-level=")) { level = args[i].substring("--log-level=".length()); where = "--log-level"; }
            else rest.add(args[i]);
        }
        if (level == null) return args;
        String l = level.toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(l)) {
            System.err.println("cobra: " + where + " " + level + ": not a level (error, warn, info, debug, trace or off)");
            return null;
        }
        System.setProperty(PROPERTY, l);
        return rest.toArray(new String[0]);
    }
}
