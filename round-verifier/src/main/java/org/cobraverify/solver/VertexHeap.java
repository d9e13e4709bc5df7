package org.cobraverify.solver;

/**
 * A binary min-heap of vertex ids ordered by a priority array (ties: smaller id first), for Kahn's
 * algorithm with a preferred order: the topological order that follows a guessed serial order.
 */
public final class VertexHeap {
    private final int[] heap;
    private final long[] prio;
    private int size;

    public VertexHeap(int capacity, long[] prio) {
        heap = new int[Math.max(1, capacity)];
        this.prio = prio;
    }

    public boolean isEmpty() { return size == 0; }

    private boolean less(int a, int b) { return prio[a] < prio[b] || (prio[a] == prio[b] && a < b); }

    public void push(int v) {
        int i = size++;
        heap[i] = v;
        while (i > 0) {
            int p = (i - 1) >> 1;
            if (!less(heap[i], heap[p])) break;
            int t = heap[i]; heap[i] = heap[p]; heap[p] = t;
            i = p;
        }
    }

    public int pop() {
        int top = heap[0];
        heap[0] = heap[--size];
        int i = 0;
        while (true) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < size && less(heap[l], heap[m])) m = l;
            if (r < size && less(heap[r], heap[m])) m = r;
            if (m == i) break;
            int t = heap[i]; heap[i] = heap[m]; heap[m] = t;
            i = m;
        }
        return top;
    }
}
