package org.cobraverify.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.cobraverify.schemas.Certificate;
import org.junit.jupiter.api.Test;

/**
 * A round that finds many violations publishes a verdict that must fit in one Kafka message (1 MB by default): its
 * certificates go in, in order, while they fit in {@link RoundVerifier#CERTIFICATE_CHARS}; the first always does.
 */
class VerdictSizeTest {
    private static Certificate of(int chars) {
        return Certificate.newBuilder().setAnomaly("G2").setSummary("").setCycle(new ArrayList<>()).setTransactions(new ArrayList<>())
                .setText("x".repeat(chars)).build();
    }

    @Test
    void certificatesGoInWhileTheyFitAndTheFirstAlways() {
        List<Certificate> many = new ArrayList<>();
        for (int i = 0; i < 256; i++) many.add(of(10_000));
        assertEquals(RoundVerifier.CERTIFICATE_CHARS / 10_000, RoundVerifier.fitting(many));
        assertEquals(3, RoundVerifier.fitting(List.of(of(100), of(100), of(100))));
        assertEquals(1, RoundVerifier.fitting(List.of(of(2 * RoundVerifier.CERTIFICATE_CHARS), of(10))), "the first, however large");
        assertEquals(0, RoundVerifier.fitting(List.of()));
    }
}
