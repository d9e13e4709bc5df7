package org.cobraverify.gc;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Set;
import org.cobraverify.checker.AnomalyKind;
import org.cobraverify.checker.Certificate;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.testkit.Txns;
import org.junit.jupiter.api.Test;

/**
 * {@link StaleReads#violationsOf}: what the reads of collected writes by transactions about to be set aside for another
 * violation show on their own (docs/DESIGN.md §7.11): a read of an aborted or intermediate write always, a read of a
 * superseded one only where the level makes it a violation; one certificate per reader; nothing for an aborted reader, a
 * reader not being set aside, or a read the sealed past cannot judge.
 */
class StaleReadsViolationsOfTest {
    private static StaleReads.StaleRead read(Transaction reader, CollectedWrites.Fate fate, String writer, String by) {
        return new StaleReads.StaleRead(reader, reader.getOps().get(0), new CollectedWrites.Entry(writer, by, fate, 3, 1), by == null ? null : "9");
    }

    @Test
    void eachReaderBeingSetAsideGetsItsFirstViolatingRead() {
        Transaction a = Txns.txn("A", "s1", 5, 2, false, "r x 1", "r y 2", "w x 3");
        Transaction b = Txns.txn("B", "s2", 5, 2, false, "r z 4");
        Transaction c = Txns.txn("C", "s3", 5, 2, false, "r x 5");
        Transaction d = Transaction.newBuilder(Txns.txn("D", "s4", 5, 2, false, "r x 6")).setStatus(TxnStatus.ABORTED).build();
        Transaction e = Txns.txn("E", "s5", 5, 2, false, "r q 7");
        List<StaleReads.StaleRead> stale = List.of(
                read(a, CollectedWrites.Fate.UNORDERED, "W0", "L"),       // not judgeable: no certificate
                read(a, CollectedWrites.Fate.SUPERSEDED, "W1", "L"),      // a stale read where superseded reads violate
                read(a, CollectedWrites.Fate.ABORTED, "W2", null),        // A's second violation: one certificate per reader
                read(b, CollectedWrites.Fate.INTERMEDIATE, "W3", null),   // G1b at every level
                read(c, CollectedWrites.Fate.ABORTED, "W4", null),        // C is not being set aside
                read(d, CollectedWrites.Fate.ABORTED, "W5", null),        // an aborted reader's read is nothing
                read(e, CollectedWrites.Fate.FRONTIER, "W6", null));      // the key's sealed version: nothing to report
        Set<String> settingAside = Set.of("A", "B", "D", "E");

        List<Certificate> strong = StaleReads.violationsOf(stale, settingAside, null, id -> null);
        assertEquals(List.of(AnomalyKind.STALE_READ, AnomalyKind.G1B), strong.stream().map(Certificate::kind).toList(), strong.toString());
        assertTrue(strong.get(0).summary().contains("A read x = 1, written by W1, which L had superseded"), strong.get(0).summary());

        // read committed and read atomic: a superseded version may be read, so A's first violation is its read of an aborted write
        List<Certificate> weak = StaleReads.violationsOf(stale, settingAside, "read-committed", id -> null);
        assertEquals(List.of(AnomalyKind.G1A, AnomalyKind.G1B), weak.stream().map(Certificate::kind).toList(), weak.toString());
        assertTrue(weak.get(0).summary().contains("written by W2, which aborted"), weak.get(0).summary());

        assertEquals(List.of(), StaleReads.violationsOf(stale, Set.of("C2"), null, id -> null));
    }
}
