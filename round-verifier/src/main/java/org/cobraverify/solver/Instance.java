package org.cobraverify.solver;

/**
 * One SAT-modulo-acyclicity problem: a directed graph on vertices 0..n-1 whose fixed edges are acyclic,
 * and variables 0..V-1, each choosing one of two edge sets. Literal {@code 2v} (variable v true) switches
 * on side A of v, literal {@code 2v+1} side B. A solution picks a side of every variable so that the
 * fixed edges plus the chosen sides form an acyclic graph.
 *
 * <p>Layout: the edges of literal {@code l} are {@code (litSrc[i], litDst[i])} for
 * {@code litStart[l] <= i < litStart[l+1]}. {@code priority[v]}, if present, is a guess of each vertex's
 * place in a serial order (smaller first), used for initial phases.
 */
public final class Instance {
    public final int vertices;
    public final int[] fixedSrc, fixedDst;
    public final int variables;
    public final int[] litStart, litSrc, litDst;
    public final long[] priority;

    public Instance(int vertices, int[] fixedSrc, int[] fixedDst, int variables, int[] litStart, int[] litSrc, int[] litDst, long[] priority) {
        if (litStart.length != 2 * variables + 1) throw new IllegalArgumentException("litStart must have 2*variables+1 entries");
        this.vertices = vertices;
        this.fixedSrc = fixedSrc;
        this.fixedDst = fixedDst;
        this.variables = variables;
        this.litStart = litStart;
        this.litSrc = litSrc;
        this.litDst = litDst;
        this.priority = priority;
    }
}
