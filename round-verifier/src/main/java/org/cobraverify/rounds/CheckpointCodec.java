package org.cobraverify.rounds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.cobraverify.gc.CollectedPast;
import org.cobraverify.gc.CollectedWrites;
import org.cobraverify.gc.StaleReads;
import org.cobraverify.schemas.CarriedFact;
import org.cobraverify.schemas.FrontierWrite;
import org.cobraverify.schemas.HeldTxn;
import org.cobraverify.schemas.StaleReadRef;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnStatus;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.VerifierCore;

/**
 * A {@link VerifierState} as checkpoint records ({@link RoundsCheckpoint}: held transactions, carried
 * facts, the past's old transactions, and a {@link VerifierCore}) and back. {@link #decode} of {@link #encode} gives
 * an equal state, except for what a checkpoint does not carry: the reads judged in the last round (already judged).
 * docs/DESIGN.md §8.
 */
final class CheckpointCodec {
    private CheckpointCodec() {}

    /** Encodes {@code s}; {@code service} has its own layer's fields set already. Requires: no transaction in {@code s.incoming()}. */
    static RoundsCheckpoint encode(VerifierState s, VerifierCore.Builder service) {
        if (!s.incoming().isEmpty())
            throw new IllegalStateException("a checkpoint is taken between rounds, not with " + s.incoming().size() + " transactions added");
        HeldTransactions h = s.held();
        VerifierState.Counters n = s.counters();
        List<HeldTxn> held = new ArrayList<>(h.size());
        Map<String, Long> unknownSince = h.unknownSince(), waitingSince = h.waitingSince();
        for (Transaction t : h.retained()) held.add(new HeldTxn(t, -1L, unknownSince.getOrDefault(t.getId(), -1L), h.acknowledged(t) || t.getStatus() == TxnStatus.UNKNOWN,
                new ArrayList<>(h.openKeys(t.getId()))));
        for (Transaction t : h.waiting())
            held.add(new HeldTxn(t, waitingSince.getOrDefault(t.getId(), n.rounds()), unknownSince.getOrDefault(t.getId(), -1L),
                    h.acknowledged(t) || t.getStatus() == TxnStatus.UNKNOWN, new ArrayList<>()));
        CollectedPast p = s.past();
        List<CarriedFact> facts = new ArrayList<>(p.carried().size());
        for (CollectedPast.Carried e : p.carried()) facts.add(new CarriedFact(e.src(), e.dst(), e.kind(), e.key()));
        List<StaleReadRef> stale = new ArrayList<>();
        for (StaleReads.StaleRead r : s.stale().all())
            stale.add(new StaleReadRef(r.reader().getId(), r.op().getKey(), r.op().getValue(), r.entry().writer(),
                    r.entry().supersededBy(), r.entry().fate().name(), r.entry().round()));
        VerifierCore core = service
                .setRounds(n.rounds()).setChecked(n.checked()).setCollected(n.collected()).setSettled(n.settled())
                .setCollections(n.collections()).setDuplicates(n.duplicates()).setFrontierRecords(n.frontierRecords())
                .setTaintedKeys(h.tainted().sinceCopy()).setTaintedWriters(h.tainted().writersCopy())
                .setChosenSeals(h.chosen().sinceCopy()).setChosenSealsOverflow(h.chosen().overflowed())
                .setTaintOverflow(h.tainted().overflowBytes() == null ? null : java.nio.ByteBuffer.wrap(h.tainted().overflowBytes()))
                .setViolations(n.violations()).setFirstViolationRound(n.firstViolationRound()).setSetAside(n.setAside()).setUncheckedReads(n.uncheckedReads()).setUncheckedTxns(n.unchecked()).setHasBarrier(p.exists())
                .setBarrierAfter(new ArrayList<>(p.after()))
                .setOldMaxEnd(p.maxEnd()).setOldMaxStart(p.maxStart()).setBarrierEpoch(p.epoch()).setStaleReads(stale)
                .setEndedSince(new HashMap<>(s.endedSince())).setWithoutFenceSince(new HashMap<>(s.withoutFenceSince()))
                .setRejectedIn(s.rejectedIn()).setDroppedState(s.droppedState())
                .setFrontier(new ArrayList<>(p.frontier())).setLostProof(s.lostProof()).setUnincluded(new ArrayList<>(h.unincluded()))
                .setSupersededMarks(supersededMarks(h)).setRtBefore(new ArrayList<>(p.rtBefore())).setPastBeforeRealTime(p.pastBeforeRt()).build();
        return new RoundsCheckpoint(held, facts, new ArrayList<>(p.before()), core);
    }

    /**
     * The state in a checkpoint; the stale reads' entries are stamped with {@code incarnation}. Throws
     * {@link IllegalArgumentException} when the checkpoint contradicts itself (a stale read its reader does not make).
     */
    static VerifierState decode(RoundsCheckpoint c, long incarnation) {
        VerifierCore k = c.core();
        HeldTransactions h = new HeldTransactions();
        for (Map.Entry<? extends CharSequence, ? extends Map<? extends CharSequence, ? extends CharSequence>> e : k.getSupersededMarks().entrySet()) {
            Map<String, String> m = new HashMap<>();
            for (Map.Entry<? extends CharSequence, ? extends CharSequence> x : e.getValue().entrySet()) m.put(x.getKey().toString(), x.getValue().toString());
            h.restoreMarks(e.getKey().toString(), m);
        }
        // (a marked key's writes were collected, §7.9: they stay out of the writer index)
        for (HeldTxn x : c.held()) h.restoreHeld(x.getTxn(), x.getPendingSince(), x.getUnknownSince(), x.getAcknowledged(), x.getOpenKeys());
        List<String> unincluded = new ArrayList<>();
        for (CharSequence x : k.getUnincluded()) unincluded.add(x.toString());
        h.finishRestore(unincluded);
        Map<String, Long> taintedKeys = new HashMap<>();
        for (Map.Entry<? extends CharSequence, Long> e : k.getTaintedKeys().entrySet()) taintedKeys.put(e.getKey().toString(), e.getValue());
        Map<String, Set<String>> taintedWriters = new HashMap<>();
        for (Map.Entry<? extends CharSequence, ? extends List<? extends CharSequence>> e : k.getTaintedWriters().entrySet()) {
            Set<String> w = new HashSet<>();
            for (CharSequence x : e.getValue()) w.add(x.toString());
            taintedWriters.put(e.getKey().toString(), w);
        }
        byte[] overflow = null;
        if (k.getTaintOverflow() != null) {
            java.nio.ByteBuffer b = k.getTaintOverflow().duplicate();
            overflow = new byte[b.remaining()];
            b.get(overflow);
        }
        h.tainted().restore(taintedKeys, taintedWriters, overflow);
        Map<String, Long> chosen = new HashMap<>();
        for (Map.Entry<? extends CharSequence, Long> e : k.getChosenSeals().entrySet()) chosen.put(e.getKey().toString(), e.getValue());
        h.chosen().restore(chosen, k.getChosenSealsOverflow());
        StaleReads stale = new StaleReads();
        for (StaleReadRef r : k.getStaleReads()) {
            Transaction reader = h.get(r.getReader().toString());
            if (reader == null) continue;
            // the reader's own operation: admission matches a waiting reader's stale reads by identity
            String key = r.getKey().toString(), value = r.getValue() == null ? null : r.getValue().toString();
            TxnOp op = null;
            for (TxnOp o : reader.getOps()) if (!o.getWrite() && o.getKey().equals(key) && Objects.equals(o.getValue(), value)) { op = o; break; }
            if (op == null) throw new IllegalArgumentException("checkpoint: " + reader.getId() + " has no read of " + key + " = " + value);
            CollectedWrites.Entry e = new CollectedWrites.Entry(r.getWriter().toString(), r.getSupersededBy() == null ? null : r.getSupersededBy().toString(),
                    CollectedWrites.Fate.valueOf(r.getFate().toString()), r.getCollectedIn(), incarnation);
            stale.restore(new StaleReads.StaleRead(reader, op, e), h.isRetained(reader.getId()));
        }
        List<CollectedPast.Carried> carried = new ArrayList<>();
        for (CarriedFact f : c.carried())
            carried.add(new CollectedPast.Carried(f.getSrc().toString(), f.getDst().toString(), f.getKind(), f.getKey() == null ? null : f.getKey().toString()));
        Set<String> after = new HashSet<>();
        for (CharSequence x : k.getBarrierAfter()) after.add(x.toString());
        CollectedPast past = new CollectedPast();
        past.restore(k.getHasBarrier(), new HashSet<>(c.barrierBefore()), after, k.getOldMaxEnd(), k.getOldMaxStart(), k.getBarrierEpoch(),
                carried, new ArrayList<FrontierWrite>(k.getFrontier()));
        Set<String> rtBefore = new HashSet<>();
        for (CharSequence x : k.getRtBefore()) rtBefore.add(x.toString());
        past.restoreRealTime(rtBefore, k.getPastBeforeRealTime());
        Map<String, Long> endedSince = new HashMap<>();
        for (Map.Entry<? extends CharSequence, Long> e : k.getEndedSince().entrySet()) endedSince.put(e.getKey().toString(), e.getValue());
        VerifierState.Counters n = new VerifierState.Counters(k.getRounds(), k.getChecked(), k.getCollected(), k.getSettled(), k.getCollections(),
                k.getDuplicates(), k.getFrontierRecords(), k.getViolations(), k.getFirstViolationRound(), k.getSetAside(), k.getUncheckedReads(),
                k.getUncheckedTxns());
        Map<String, Long> withoutFence = new HashMap<>();
        for (Map.Entry<? extends CharSequence, Long> e : k.getWithoutFenceSince().entrySet()) withoutFence.put(e.getKey().toString(), e.getValue());
        return new VerifierState(h, stale, past, endedSince, withoutFence, n, str(k.getRejectedIn()), str(k.getDroppedState()), str(k.getLostProof()),
                List.of());
    }

    private static Map<String, Map<String, String>> supersededMarks(HeldTransactions h) {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (Map.Entry<String, Map<String, String>> e : h.supersededMarks().entrySet()) out.put(e.getKey(), new HashMap<>(e.getValue()));
        return out;
    }

    private static String str(CharSequence s) { return s == null ? null : s.toString(); }
}
