// Reachability by topological levels, on bitsets: pruning's question "which sources reach which vertices".
//
// bits holds `words` 32-bit words per vertex; bit j of vertex v's row is set iff source j of this pass
// reaches v. The host sets each source's own bit, then launches `propagate` once per topological level,
// in increasing order, over the vertices of that level: every in-neighbour of a level-L vertex lies on a
// level below L, so its row is final when level L runs. One thread per (vertex, word).
//
// Compiled to PTX, checked in as src/main/resources/org/cobraverify/gpu/closure.ptx by:
//   nvcc -ptx -arch=compute_75 -o src/main/resources/org/cobraverify/gpu/closure.ptx src/main/cuda/closure.cu
// then its ".version" line lowered to 7.0 (CUDA 11.0), which is all this code needs, so that older drivers JIT it too.
// (CudaReachabilityPtxTest recompiles and compares where nvcc is installed.)

extern "C" __global__ void propagate(const int* __restrict__ levelVertices, int count,
                                     const int* __restrict__ inStart, const int* __restrict__ inSource,
                                     unsigned int* bits, int words) {
    long long idx = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long) count * words) return;
    int v = levelVertices[idx / words];
    int w = (int) (idx % words);
    unsigned int acc = bits[(long long) v * words + w];
    for (int p = inStart[v]; p < inStart[v + 1]; p++) acc |= bits[(long long) inSource[p] * words + w];
    bits[(long long) v * words + w] = acc;
}
