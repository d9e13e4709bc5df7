package org.cobraverify.cli;

import java.nio.file.Path;

/**
 * Where a long-running command keeps state across restarts by default: a directory of the user's, never the shared and
 * periodically cleaned {@code /tmp}. {@code $COBRA_STATE_DIR/NAME} when set, else {@code $XDG_STATE_HOME/cobra/NAME}, else
 * {@code ~/.local/state/cobra/NAME} (the XDG base-directory convention). {@code --state-dir} overrides it.
 */
final class StateDirectory {
    private StateDirectory() {}

    static Path of(String name) {
        String cobra = System.getenv("COBRA_STATE_DIR");
        if (cobra != null && !cobra.isBlank()) return Path.of(cobra, name);
        String xdg = System.getenv("XDG_STATE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "cobra", name);
        return Path.of(System.getProperty("user.home"), ".local", "state", "cobra", name);
    }
}
