package org.cobraverify.verifier;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.cobraverify.checker.AllViolations;
import org.cobraverify.checker.Certificate;
import org.cobraverify.checker.CheckOptions;
import org.cobraverify.checker.Checker;
import org.cobraverify.checker.Isolation;
import org.cobraverify.checker.IsolationLevel;
import org.cobraverify.checker.Verdict;
import org.cobraverify.gc.analysis.GarbageCollection;
import org.cobraverify.gc.store.RocksDbCollectedWrites;
import org.cobraverify.history.History;
import org.cobraverify.rounds.EpochAssigner;
import org.cobraverify.rounds.HistoryRounds;
import org.cobraverify.rounds.IncrementalVerifier;
import org.cobraverify.rounds.RoundResult;
import org.cobraverify.rounds.RoundsDifferential;
import org.cobraverify.rounds.RoundsRun;
import org.cobraverify.rounds.SessionOrder;
import org.cobraverify.rounds.StreamingRounds;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.kafka.KafkaConnection;
import org.cobraverify.schemas.serde.WireFormat;
import org.cobraverify.service.Replay;

/**
 * The verifier's entrance: everything a caller (the CLI, the demo, an embedding program) does with the verifier starts
 * here, and nothing behind it needs to be named. In the order a newcomer meets them:
 *
 * <ol>
 *   <li><b>Check a history at a level</b>, one shot: {@link #check(History, IsolationLevel, CheckOptions)}, every level at
 *       once ({@link #checkAll}), every violation after the first ({@link #allViolations}). Pure: history in, verdict out.</li>
 *   <li><b>Verify a history in rounds</b>, as the service would, with garbage collection: a whole history
 *       ({@link #inRounds}), or a file read one transaction at a time ({@link #streamRounds}).</li>
 *   <li><b>The service</b> ({@link org.cobraverify.service.VerifierService}: rounds from Kafka, checkpoints, restarts) and
 *       <b>replay</b> of a past window from its checkpoints ({@link #replay}).</li>
 *   <li><b>Hold rounds to one-shot checking</b>: {@link #differential}, one generated history through the service's path.</li>
 * </ol>
 *
 * <p>The vocabulary it speaks: {@link History} in; {@link Verdict}, {@link Certificate} and
 * {@link org.cobraverify.checker.AnomalyKind} out; {@link CheckOptions} and {@link RoundsOptions} to configure;
 * {@link RoundResult} per round. The theory is in docs/DESIGN.md; what lies behind each entry is
 * named in its own documentation.
 */
public final class Verifier {
    private Verifier() {}

    /** The key fence transactions read and write unless a history says otherwise. */
    public static final String DEFAULT_FENCE_KEY = EpochAssigner.DEFAULT_FENCE_KEY;

    // ---- one shot

    /** Whether {@code h} is serializable (strictly, with {@link CheckOptions#strict}). */
    public static Verdict check(History h, CheckOptions options) { return Checker.check(h, options); }

    /** Whether {@code h} satisfies {@code level} (docs/DESIGN.md §2 defines each level). */
    public static Verdict check(History h, IsolationLevel level, CheckOptions options) { return Isolation.check(h, level, options); }

    /** The weakest level of the ladder at or below {@code level} that {@code h} violates, or null when it violates none. */
    public static IsolationLevel weakestViolated(History h, IsolationLevel level, CheckOptions options) {
        return Isolation.weakestViolated(h, level, options);
    }

    /** {@code h} at every level of the ladder, each with its verdict. */
    public static Isolation.Ladder checkAll(History h, CheckOptions options) { return Isolation.checkAll(h, options); }

    /** Up to {@code max} violations of {@code h} after {@code first}, each with its certificate, within {@code seconds}. */
    public static AllViolations.Result allViolations(History h, Certificate first, CheckOptions options, double seconds, int max) {
        return AllViolations.after(h, first, options, seconds, max);
    }

    // ---- rounds

    /**
     * {@code h} verified in rounds of at least {@code options.roundSize()} transactions, cut on epoch boundaries, with
     * garbage collection and the collected writes in a temporary on-disk store (deleted afterwards); {@code progress}
     * (may be null) sees each round. Throws {@link IllegalArgumentException} for a history rounds cannot take (docs/rounds.md).
     */
    public static RoundsRun inRounds(History h, RoundsOptions options, HistoryRounds.Progress progress) {
        return inRounds(h, options, progress, UnaryOperator.identity());
    }

    /** As above; each transaction passes through {@code delivered} first (a benchmark's wire format round trip). */
    public static RoundsRun inRounds(History h, RoundsOptions options, HistoryRounds.Progress progress, UnaryOperator<Transaction> delivered) {
        try (IncrementalVerifier v = new IncrementalVerifier(options.settings(), RocksDbCollectedWrites.temporary())) {
            return HistoryRounds.run(h, options.roundSize(), options.fenceKey(), v, progress, 0, delivered);
        }
    }

    /**
     * Rounds over a file read one transaction at a time ({@code cobra verify --rounds} on {@code cobra-jsonl}), in bounded
     * memory: {@code txnsPerSession} and {@code fencedSessions} come from a first pass over the file.
     */
    public static RoundsStream streamRounds(RoundsOptions options, Map<String, Integer> txnsPerSession, Set<String> fencedSessions) {
        IncrementalVerifier v = new IncrementalVerifier(options.settings(), RocksDbCollectedWrites.temporary());
        return new RoundsStream(v, new StreamingRounds(options.roundSize(), options.fenceKey(), v, txnsPerSession, fencedSessions, null));
    }

    /** The run with the file lines of its certificates' transactions ({@code line}: by transaction id). */
    public static RoundsRun withLines(RoundsRun run, Map<String, Integer> line) {
        List<RoundResult> out = new java.util.ArrayList<>(run.rounds().size());
        for (RoundResult r : run.rounds()) out.add(r.violations().isEmpty() ? r : HistoryRounds.withLines(r, line));
        return new RoundsRun(out, run.fences());
    }

    /**
     * Rounds {@code from..to} of the rounds topic decided again from the checkpoint {@code verifierId} published before
     * {@code from} ({@link Replay}; docs/DESIGN.md §8.4); {@code notes} hears what it does, one line each.
     *
     * @throws Replay.Refused when no retained checkpoint and no retained input can start the window
     */
    public static Replay replay(KafkaConnection kafka, WireFormat wire, Replay.Topics topics, String verifierId, RoundsOptions options,
                                long from, Long to, Consumer<String> notes) {
        return Replay.open(kafka, wire, topics, verifierId, options.settings(), from, to, notes);
    }

    /** Transactions in session order (each session's by index, sessions in first appearance), as rounds deliver them. */
    public static List<Transaction> sessionOrder(List<Transaction> txns) { return SessionOrder.of(txns); }

    // ---- rounds against one shot

    /**
     * One generated history through the service's path against one-shot checking ({@link RoundsDifferential}): its seed,
     * counts and any disagreement. {@code rules}: a {@code GarbageCollection.Rules} name (SOUND, or a careless one to show
     * what the sound rules prevent).
     */
    public static RoundsDifferential.Result differential(long seed, String rules) {
        return RoundsDifferential.run(seed, GarbageCollection.Rules.valueOf(rules));
    }

    /** As {@link #differential(long, String)}, with the rounds and one-shot checking at {@code level} (docs/DESIGN.md §7.11 below serializability). */
    public static RoundsDifferential.Result differential(long seed, String rules, IsolationLevel level) {
        return RoundsDifferential.run(seed, GarbageCollection.Rules.valueOf(rules), RoundsDifferential.Shapes.ALL, level);
    }

    /** The names of garbage collection's rules ({@code GarbageCollection.Rules}): SOUND first, then the careless ones tests use. */
    public static List<String> gcRules() {
        List<String> out = new java.util.ArrayList<>();
        for (GarbageCollection.Rules r : GarbageCollection.Rules.values()) out.add(r.name());
        return out;
    }

    /** Why garbage collection kept a transaction ({@code GarbageCollection.Kept}), in the order of {@code RoundResult#keptBy}, as lower-case words. */
    public static List<String> keptReasons() {
        List<String> out = new java.util.ArrayList<>();
        for (GarbageCollection.Kept k : GarbageCollection.Kept.values()) out.add(k.name().toLowerCase().replace('_', '-'));
        return out;
    }
}
