package org.cobraverify.rounds;

import java.util.Random;
import org.cobraverify.checker.Checker;
import org.cobraverify.history.History;
import org.cobraverify.synth.SimulatedStore;

public class GcScratch {
    public static void main(String[] a) {
        Random rnd = new Random(Long.parseLong(a.length > 0 ? a[0] : "1"));
        int dis = 0, unk = 0, coll = 0, runs = 0;
        int rej = 0, staleRej = 0;
        for (int run = 0; run < Integer.parseInt(a.length > 1 ? a[1] : "400"); run++) {
            SimulatedStore.Isolation iso = SimulatedStore.Isolation.values()[run % 4];
            SimulatedStore.Workload w = new SimulatedStore.Workload(2 + rnd.nextInt(3), 10 + rnd.nextInt(20), 2 + rnd.nextInt(5), 3, 0.5, 0.05, 0.02);
            History h = SimulatedStore.run(iso, w, rnd, false, 2 + rnd.nextInt(3));
            var one = Checker.check(h);
            try (IncrementalVerifier v = new IncrementalVerifier(IncrementalVerifier.Settings.defaults(), new InMemoryCollectedWrites())) {
                HistoryRounds.Run r = HistoryRounds.run(h, 2 + rnd.nextInt(8), "EPOCH", v, null);
                var last = r.last();
                runs++;
                if (v.collectedCount() > 0) coll++;
                if (last.outcome() == org.cobraverify.checker.Verdict.Outcome.REJECT) { rej++; for (var rr : r.rounds()) if (rr.certificate() != null && rr.certificate().kind() == org.cobraverify.checker.AnomalyKind.STALE_READ) staleRej++; }
                if (last.outcome() != one.outcome()) {
                    if (last.outcome() == org.cobraverify.checker.Verdict.Outcome.UNKNOWN) { unk++; if (unk < 4) System.out.println("UNKNOWN " + iso + " run " + run + ": " + last.reason()); }
                    else { dis++; if (dis < 6) System.out.println("DISAGREE " + iso + " run " + run + " one=" + one.outcome() + " rounds=" + last.outcome() + ": " + last.reason() + " / " + (one.certificate() == null ? "" : one.certificate().summary())); }
                }
            }
        }
        System.out.println("rejects " + rej + " stale " + staleRej + " runs " + runs + " disagreements " + dis + " unknown " + unk + " withGC " + coll);
    }
}
