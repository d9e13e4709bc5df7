package org.cobraverify.ops;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A real schema registry for a test class: Apicurio Registry's server from Maven Central, started by ops/registry.sh
 * (the extracted server shared under ops/target/registry, this instance's pid and log in a directory of its own).
 * {@link #start} skips the calling test class, saying why, where no Java 21+ or no server can be had.
 */
public final class RegistryServer implements AutoCloseable {
    private final Path run;
    private final String url;

    private RegistryServer(Path run, String url) {
        this.run = run;
        this.url = url;
    }

    /** Its Confluent-compatible API, such as {@code http://127.0.0.1:P/apis/ccompat/v7}. */
    public String url() { return url; }

    /** The server's process id. */
    public long pid() throws IOException { return Long.parseLong(Files.readString(run.resolve("pid")).trim()); }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Start attempts, each on ports free when it begins (another process may take one before the server binds it). */
    static final int ATTEMPTS = 3;

    /**
     * Starts one (minutes the first time: the server is fetched through Maven). Skips the class, saying why, only where
     * none can be had (ops/registry.sh exits 2: no Java 21, no server from Maven Central); a server that stopped or was
     * not ready in time (exit 3) is tried again on other ports, and after {@link #ATTEMPTS} the class fails: a registry
     * that can be had here must not drop out of a run unnoticed, as a skip would let it.
     */
    public static RegistryServer start() throws Exception {
        Path run = Files.createTempDirectory("cobra-registry-run");
        StringBuilder tries = new StringBuilder();
        String out = "";
        int rc = -1;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            int port = freePort();
            while (port >= 65535) port = freePort(); // its management port is the next one
            Process p = script(run, "start", Integer.toString(port)).start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            rc = p.waitFor();
            if (rc != 3) break;
            tries.append("\nattempt ").append(attempt).append(" (port ").append(port).append("): ").append(out);
        }
        Assumptions.assumeTrue(rc != 2, "no schema registry can be had here (ops/registry.sh: " + out + ")");
        if (rc != 0) throw new IllegalStateException("ops/registry.sh start failed (exit " + rc + ")" + (tries.length() == 0 ? ": " + out : tries));
        // the URL is the script's last word on stdout (Maven's own output, when it fetches, comes on stderr, merged here)
        Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:\\d+/apis/ccompat/v7").matcher(out);
        String found = null;
        while (m.find()) found = m.group();
        assertNotNull(found, "ops/registry.sh printed its URL: " + out);
        return new RegistryServer(run, found);
    }

    private static ProcessBuilder script(Path run, String... args) {
        String[] cmd = new String[args.length + 2];
        cmd[0] = "bash";
        cmd[1] = "registry.sh";
        System.arraycopy(args, 0, cmd, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(Path.of(".").toFile());
        pb.environment().put("COBRA_REGISTRY_DIR", Path.of("target", "registry").toAbsolutePath().toString());
        pb.environment().put("COBRA_REGISTRY_RUN", run.toString());
        pb.redirectErrorStream(true);
        return pb;
    }

    /** Stops it (SIGSTOP/SIGCONT in tests: {@link #pause}, {@link #resume}). */
    @Override
    public void close() throws Exception {
        resume();
        script(run, "stop").start().waitFor(30, TimeUnit.SECONDS);
    }

    /** Freezes the server's process: it accepts connections and answers nothing (a registry gone away). */
    public void pause() throws Exception { signal("STOP"); }

    /** Lets it run again. */
    public void resume() throws Exception { signal("CONT"); }

    private void signal(String sig) throws Exception {
        if (!Files.exists(run.resolve("pid"))) return;
        new ProcessBuilder("kill", "-" + sig, Long.toString(pid())).start().waitFor(10, TimeUnit.SECONDS);
    }
}
