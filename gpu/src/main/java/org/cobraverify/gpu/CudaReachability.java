package org.cobraverify.gpu;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.cobraverify.checker.ReachabilityEngine;
import org.cobraverify.solver.Budget;

/**
 * Pruning's reachability on an NVIDIA GPU, through JCuda's driver API: the PTX of {@code closure.cu} is
 * loaded once; each index uploads the graph's in-edges (CSR) and its topological levels, then, per pass of
 * up to {@code 32 * words} sources, sets each source's bit and launches {@code propagate} once per level; the
 * rows come back into the host index (one bit per vertex and source, at most {@link #MAX_INDEX_BYTES}, else
 * {@link TooLarge}). Device memory per pass: vertices × words × 4 bytes, under {@link #MAX_BITSET_BYTES}.
 *
 * <p>It never decides alone: answers are exact or an exception is thrown (a CUDA error is an {@link
 * IllegalStateException} naming the call), and {@code --gpu verify} checks every batch against the CPU.
 * {@link #open} fails with {@link Unavailable} (a reason, never a crash) where the library or a device is missing.
 */
public final class CudaReachability implements ReachabilityEngine, AutoCloseable {
    /** The largest bitset one pass keeps on the device. */
    static final long MAX_BITSET_BYTES = 256L << 20;
    private static final int THREADS = 256;

    /** No GPU path here, and why (no JCuda natives, no driver, no device). */
    public static final class Unavailable extends Exception {
        public Unavailable(String why) { super(why); }
    }

    private final CUcontext context;
    private final CUfunction propagate;
    private final String device;

    private CudaReachability(CUcontext context, CUfunction propagate, String device) {
        this.context = context;
        this.propagate = propagate;
        this.device = device;
    }

    /** The first CUDA device, with the kernel loaded; or {@link Unavailable} with the reason. */
    public static CudaReachability open() throws Unavailable {
        try {
            JCudaDriver.setExceptionsEnabled(true);
            cuInit(0);
            int[] count = new int[1];
            cuDeviceGetCount(count);
            if (count[0] == 0) throw new Unavailable("no CUDA device (the driver reports 0 devices)");
            CUdevice dev = new CUdevice();
            cuDeviceGet(dev, 0);
            byte[] name = new byte[256];
            cuDeviceGetName(name, name.length, dev);
            CUcontext ctx = new CUcontext();
            cuCtxCreate(ctx, 0, dev);
            CUmodule module = new CUmodule();
            cuModuleLoadData(module, ptx());
            CUfunction f = new CUfunction();
            cuModuleGetFunction(f, module, "propagate");
            String devName = new String(name, StandardCharsets.US_ASCII).trim().replace("\0", "");
            return new CudaReachability(ctx, f, devName);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            String m = String.valueOf(e.getMessage());
            throw new Unavailable("the JCuda native library does not load here (" + (m.contains("\n") ? m.substring(0, m.indexOf('\n')) : m) + ")");
        } catch (jcuda.CudaException e) {
            throw new Unavailable("CUDA: " + e.getMessage());
        } catch (IOException e) {
            throw new Unavailable("the kernel's PTX is missing from the jar: " + e.getMessage());
        }
    }

    static byte[] ptx() throws IOException {
        try (InputStream in = CudaReachability.class.getResourceAsStream("closure.ptx")) {
            if (in == null) throw new IOException("org/cobraverify/gpu/closure.ptx");
            byte[] b = in.readAllBytes();
            byte[] z = Arrays.copyOf(b, b.length + 1); // NUL-terminated for cuModuleLoadData
            return z;
        }
    }

    @Override
    public String name() { return "gpu (" + device + ")"; }

    public String device() { return device; }

    /** The results of one index, host side: a row of {@code words} words per vertex, bit j for source j. */
    static final long MAX_INDEX_BYTES = 1L << 30;

    @Override
    public synchronized Index index(Dag dag, int[] sources, Budget budget) {
        int n = dag.vertices(), s = sources.length;
        int[] sourceIndex = new int[n];
        Arrays.fill(sourceIndex, -1);
        for (int j = 0; j < s; j++) sourceIndex[sources[j]] = j;
        int allWords = Math.max(1, (s + 31) / 32);
        if ((long) n * allWords * Sizeof.INT > MAX_INDEX_BYTES)
            throw new TooLarge("a GPU reachability index of " + n + " vertices x " + s + " sources would not fit in " + (MAX_INDEX_BYTES >> 20) + " MiB");
        int[] all = new int[n * allWords];
        if (s == 0) return (x, t) -> x == t;
        cuCtxSetCurrent(context);
        // in-edges and topological levels
        int[][] rev = dag.reverse();
        int[] inStart = rev[0], inSource = rev[1];
        int[] level = new int[n];
        int levels = 0;
        for (int v : dag.topo()) {
            int l = 0;
            for (int p = inStart[v]; p < inStart[v + 1]; p++) l = Math.max(l, level[inSource[p]] + 1);
            level[v] = l;
            levels = Math.max(levels, l + 1);
        }
        int[] levelStart = new int[levels + 1];
        for (int v : dag.topo()) levelStart[level[v] + 1]++;
        for (int l = 0; l < levels; l++) levelStart[l + 1] += levelStart[l];
        int[] byLevel = new int[dag.topo().length];
        int[] fill = Arrays.copyOf(levelStart, levels);
        for (int v : dag.topo()) byLevel[fill[level[v]]++] = v;

        int words = (int) Math.max(1, Math.min(allWords, MAX_BITSET_BYTES / 4 / Math.max(1, n)));
        CUdeviceptr dInStart = upload(inStart), dInSource = upload(inSource.length == 0 ? new int[1] : inSource), dByLevel = upload(byLevel.length == 0 ? new int[1] : byLevel);
        CUdeviceptr dBits = new CUdeviceptr();
        long bitsBytes = (long) n * words * Sizeof.INT;
        cuMemAlloc(dBits, Math.max(4, bitsBytes));
        try {
            int[] bits = new int[n * words];
            for (int first = 0; first < s; first += 32 * words) { // one pass: sources first .. first + 32·words − 1
                budget.check();
                int last = Math.min(s, first + 32 * words);
                Arrays.fill(bits, 0);
                for (int j = first; j < last; j++) bits[sources[j] * words + (j - first) / 32] |= 1 << ((j - first) % 32);
                cuMemcpyHtoD(dBits, Pointer.to(bits), bitsBytes);
                for (int l = 1; l < levels; l++) { // level 0 has no in-edges
                    int count = levelStart[l + 1] - levelStart[l];
                    long threads = (long) count * words;
                    Pointer params = Pointer.to(Pointer.to(dByLevel.withByteOffset((long) levelStart[l] * Sizeof.INT)), Pointer.to(new int[] {count}),
                            Pointer.to(dInStart), Pointer.to(dInSource), Pointer.to(dBits), Pointer.to(new int[] {words}));
                    cuLaunchKernel(propagate, (int) ((threads + THREADS - 1) / THREADS), 1, 1, THREADS, 1, 1, 0, null, params, null);
                    if ((l & 1023) == 0) budget.check();
                }
                cuCtxSynchronize();
                cuMemcpyDtoH(Pointer.to(bits), dBits, bitsBytes);
                int w0 = first / 32; // passes start on word boundaries
                for (int v = 0; v < n; v++) System.arraycopy(bits, v * words, all, v * allWords + w0, Math.min(words, allWords - w0));
            }
        } finally {
            cuMemFree(dBits);
            cuMemFree(dInStart);
            cuMemFree(dInSource);
            cuMemFree(dByLevel);
        }
        int aw = allWords;
        return (x, t) -> {
            int j = sourceIndex[x];
            if (j < 0) throw new IllegalArgumentException(x + " is not a source of this index");
            return (all[t * aw + j / 32] >>> (j % 32) & 1) != 0;
        };
    }

    private static CUdeviceptr upload(int[] a) {
        CUdeviceptr p = new CUdeviceptr();
        cuMemAlloc(p, (long) Math.max(1, a.length) * Sizeof.INT);
        cuMemcpyHtoD(p, Pointer.to(a), (long) a.length * Sizeof.INT);
        return p;
    }

    @Override
    public synchronized void close() { cuCtxDestroy(context); }
}
