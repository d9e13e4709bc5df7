package org.cobraverify.solver;

import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * What {@link CdclSearch} asks of a theory (in the manner of MiniSat's and MonoSAT's theory interface).
 * Literals are {@code 2v} and {@code 2v+1} for variable v. A clause the theory returns is valid on its own
 * (it holds in every model of the theory), so the search may learn it.
 *
 * <p>Contract: {@link #assign} and {@link #retract} are called in stack order (a literal is retracted only
 * after every literal assigned after it). After {@code assign(l)} returns a conflict, {@code retract(l)} is
 * still called for it.
 */
interface Theory {
    /** Before search: false when no assignment can satisfy the theory (its fixed part is inconsistent). */
    boolean initialize();

    /** The phase to try first for a variable: true for its positive literal. */
    boolean preferPositive(int var);

    /** Literal {@code lit} became true: null, or a clause whose literals are all false now (a conflict). */
    int[] assign(int lit);

    /** Undoes {@link #assign} of {@code lit}. */
    void retract(int lit);

    /**
     * After {@code assign(lit)}: for unassigned literals that the theory now rules out (and {@code consider}
     * accepts), reports reason clauses with the implied literal first and every other literal false.
     */
    void propagate(int lit, IntPredicate consider, Consumer<int[]> implied);
}
