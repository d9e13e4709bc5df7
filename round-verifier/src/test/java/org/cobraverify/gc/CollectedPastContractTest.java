package org.cobraverify.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.cobraverify.checker.KnownGraph;
import org.junit.jupiter.api.Test;

/**
 * {@link CollectedPast#contract}: a transaction set aside after a violation leaves the collected past's facts, and every
 * path between the others that ran through it stays, as a carried path fact or as a side of the past.
 */
class CollectedPastContractTest {
    private static CollectedPast past(Set<String> before, Set<String> after, List<CollectedPast.Carried> carried) {
        CollectedPast p = new CollectedPast();
        p.restore(true, before, after, 0, 0, 3, carried, List.of());
        return p;
    }

    private static CollectedPast.Carried fact(String u, String v) { return new CollectedPast.Carried(u, v, KnownGraph.WW, "k"); }

    private static Set<String> edges(CollectedPast p) {
        Set<String> out = new HashSet<>();
        for (CollectedPast.Carried c : p.carried()) out.add(c.src() + ">" + c.dst());
        return out;
    }

    @Test
    void pathsThroughTheSetAsideTransactionStayBetweenTheOthers() {
        // a -> x -> b and c -> x (carried), p -so-> x -so-> s; x precedes the past
        CollectedPast p = past(new HashSet<>(Set.of("x")), new HashSet<>(Set.of("f")), new ArrayList<>(List.of(fact("a", "x"), fact("x", "b"), fact("c", "x"), fact("a", "b"))));
        assertTrue(p.contract("x", "p", java.util.List.of("s")));
        Set<String> e = edges(p);
        for (String gone : e) assertFalse(gone.contains("x"), "the set-aside transaction is named by no fact: " + e);
        // into x: a, c, p; out of x: b, s, the past
        assertEquals(Set.of("a>b", "c>b", "p>b", "a>s", "c>s"), e, "every way in joined to every way out (p -so-> s is session order)");
        assertEquals(Set.of("a", "c", "p"), p.before(), "what reached x now precedes the past itself");
        assertEquals(Set.of("f"), p.after());
        for (CollectedPast.Carried c : p.carried())
            if (!(c.src().equals("a") && c.dst().equals("b") && c.kind() == KnownGraph.WW)) assertEquals(KnownGraph.PATH, c.kind(), "a contracted fact is a path: " + c);
    }

    @Test
    void anEntryFenceSetAsideHandsThePastOnToWhatFollowedIt() {
        CollectedPast p = past(new HashSet<>(), new HashSet<>(Set.of("x", "g")), new ArrayList<>(List.of(fact("x", "b"))));
        assertTrue(p.contract("x", null, java.util.List.of("s")));
        assertEquals(Set.of("g", "b", "s"), p.after(), "the past precedes what x preceded");
        assertTrue(p.carried().isEmpty(), "no fact names x: " + p.carried());
    }

    @Test
    void aTransactionTheFactsDoNotNameChangesNothing() {
        CollectedPast p = past(new HashSet<>(Set.of("a")), new HashSet<>(Set.of("f")), new ArrayList<>(List.of(fact("a", "b"))));
        assertTrue(p.contract("x", "p", java.util.List.of("s")));
        assertEquals(Set.of("a>b"), edges(p), "session order alone needs no fact");
        assertEquals(Set.of("a"), p.before());
        assertEquals(Set.of("f"), p.after());
    }

    @Test
    void tooManyPathsAreRefusedAndNothingChanges() {
        List<CollectedPast.Carried> many = new ArrayList<>();
        for (int i = 0; i < 400; i++) { many.add(fact("in" + i, "x")); many.add(fact("x", "out" + i)); }
        CollectedPast p = past(new HashSet<>(), new HashSet<>(), many);
        assertFalse(p.contract("x", null, java.util.List.of()), "160,000 paths exceed the bound of " + CollectedPast.MAX_CONTRACTED_FACTS);
        assertEquals(800, p.carried().size(), "a refusal leaves the facts as they were");
    }
}
