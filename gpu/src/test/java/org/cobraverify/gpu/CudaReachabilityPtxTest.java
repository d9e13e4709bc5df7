package org.cobraverify.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checked-in PTX is what {@code nvcc} makes of {@code closure.cu} today (where nvcc is installed). */
class CudaReachabilityPtxTest {
    @TempDir
    Path dir;

    private static String body(String ptx) { // without the compiler's banner, and with the lowered .version line
        return ptx.lines().filter(l -> !l.startsWith("//")).map(l -> l.startsWith(".version ") ? ".version 7.0" : l)
                .collect(Collectors.joining("\n")).strip();
    }

    @Test
    void checkedInPtxMatchesTheSource() throws Exception {
        Path cu = Paths.get("src/main/cuda/closure.cu");
        Assumptions.assumeTrue(Files.exists(cu), "run from the gpu module directory");
        Process which = new ProcessBuilder("sh", "-c", "command -v nvcc").start();
        Assumptions.assumeTrue(which.waitFor() == 0, "nvcc is not installed here: the PTX cannot be rebuilt to compare");
        Path out = dir.resolve("closure.ptx");
        Process p = new ProcessBuilder(List.of("nvcc", "-ptx", "-arch=compute_75", "-o", out.toString(), cu.toString())).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), log);
        String checkedIn = new String(CudaReachability.ptx(), StandardCharsets.UTF_8).replace("\0", "");
        assertEquals(body(Files.readString(out)), body(checkedIn),
                "closure.ptx is stale: nvcc -ptx -arch=compute_75 -o src/main/resources/org/cobraverify/gpu/closure.ptx src/main/cuda/closure.cu, then lower .version to 7.0");
    }
}
