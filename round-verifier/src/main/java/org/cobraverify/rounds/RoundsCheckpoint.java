package org.cobraverify.rounds;

import java.util.List;
import org.cobraverify.schemas.CarriedFact;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.VerifierCore;

/**
 * The state of a verifier in rounds as records ({@link IncrementalVerifier#checkpoint}, encoded by {@link CheckpointCodec}):
 * held transactions in admission order, the carried facts, the retained old transactions before the barrier (the three
 * that grow with the retained set), and the rest. docs/DESIGN.md §8.2.
 */
public record RoundsCheckpoint(List<HeldTxn> held, List<CarriedFact> carried, List<String> barrierBefore, VerifierCore core) {}
