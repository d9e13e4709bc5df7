package org.cobraverify.schemas.serde;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.SchemaStore;
import org.cobraverify.schemas.CertTxn;
import org.cobraverify.schemas.Certificate;
import org.cobraverify.schemas.CutterMeta;
import org.cobraverify.schemas.CutterSession;
import org.cobraverify.schemas.CycleEdge;
import org.cobraverify.schemas.DeadLetter;
import org.cobraverify.schemas.FenceChainHead;
import org.cobraverify.schemas.FrontierWrite;
import org.cobraverify.schemas.OpenSession;
import org.cobraverify.schemas.Operation;
import org.cobraverify.schemas.OperationBatch;
import org.cobraverify.schemas.RoundEnd;
import org.cobraverify.schemas.SessionEnd;
import org.cobraverify.schemas.SessionStart;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.TxnOp;
import org.cobraverify.schemas.Verdict;
import org.cobraverify.schemas.VerifierCheckpoint;

/**
 * Writer schemas by fingerprint (CRC-64-AVRO of the parsing canonical form). Invariant: every schema
 * this build writes, and every previous version bundled under {@code previous/}, is known from the start;
 * a fingerprint not known is asked of the fallback (the catalog topic, when connected), once per miss.
 */
public final class SchemaCatalog implements SchemaStore {
    /** The top-level records that travel on topics, in this build's versions. */
    public static final List<Schema> CURRENT = List.of(Operation.getClassSchema(), OperationBatch.getClassSchema(), Transaction.getClassSchema(),
            RoundEnd.getClassSchema(), Verdict.getClassSchema(), VerifierCheckpoint.getClassSchema(), DeadLetter.getClassSchema(),
            SessionEnd.getClassSchema(), SessionStart.getClassSchema(),
            // state of the topology's stores (their changelog topics are on the wire too)
            OpenSession.getClassSchema(),
            FenceChainHead.getClassSchema(), CutterSession.getClassSchema(),
            CutterMeta.getClassSchema(), org.cobraverify.schemas.FrontierLogRecord.getClassSchema());
    /** Nested records: not on topics on their own, listed so every generated class is accounted for. */
    static final List<Schema> NESTED = List.of(TxnOp.getClassSchema(), CycleEdge.getClassSchema(), CertTxn.getClassSchema(),
            Certificate.getClassSchema(), FrontierWrite.getClassSchema(), org.cobraverify.schemas.FrontierLogEntry.getClassSchema());

    private final Map<Long, Schema> byFingerprint = new ConcurrentHashMap<>();
    private volatile LongFunction<Schema> fallback;

    /** A catalog of this build's schemas and the bundled previous versions. */
    public SchemaCatalog() {
        for (Schema s : CURRENT) add(s);
        for (Schema s : bundledPrevious()) add(s);
    }

    public static long fingerprint(Schema s) { return SchemaNormalization.parsingFingerprint64(s); }

    public void add(Schema s) { byFingerprint.putIfAbsent(fingerprint(s), s); }

    /** Where to look for fingerprints not known here (for example, the catalog topic); null for none. */
    public void fallback(LongFunction<Schema> f) { this.fallback = f; }

    public Collection<Schema> known() { return byFingerprint.values(); }

    @Override
    public Schema findByFingerprint(long fp) {
        Schema s = byFingerprint.get(fp);
        if (s == null && fallback != null) {
            s = fallback.apply(fp);
            if (s != null) byFingerprint.putIfAbsent(fp, s);
        }
        return s;
    }

    /** The previous schema versions shipped with this build (resources under previous/, listed in index.txt). */
    public static List<Schema> bundledPrevious() {
        List<Schema> out = new ArrayList<>();
        try (InputStream idx = SchemaCatalog.class.getResourceAsStream("/org/cobraverify/schemas/previous/index.txt")) {
            if (idx == null) return out;
            for (String name : new String(idx.readAllBytes(), StandardCharsets.UTF_8).split("\\s+")) {
                if (name.isEmpty()) continue;
                try (InputStream in = SchemaCatalog.class.getResourceAsStream("/org/cobraverify/schemas/previous/" + name)) {
                    if (in == null) throw new IllegalStateException("bundled schema " + name + " is listed but missing");
                    out.add(new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the bundled schemas", e);
        }
        return out;
    }
}
