package org.cobraverify.topology;

import java.util.Arrays;
import org.apache.avro.SchemaNormalization;
import org.cobraverify.schemas.Transaction;
import org.cobraverify.schemas.serde.WireFormat;

/** A transaction's epoch, stamped into its wire bytes by the {@link RoundCutter} as it releases it to a round. */
final class EpochStamp {
    private EpochStamp() {}

    /** The fingerprint of this build's {@code Transaction} schema: bytes written with it can be spliced. */
    private static final long TRANSACTION_FINGERPRINT = SchemaNormalization.parsingFingerprint64(Transaction.getClassSchema());

    /**
     * The transaction's bytes with its epoch. The assembler writes this build's schema with epoch and round -1, the
     * record's last two fields: each one byte ({@code 01}, zig-zag) after the boolean {@code fence} (00 or 01), so the
     * epoch is spliced in without decoding; anything else (another writer schema) is decoded and re-encoded.
     */
    static byte[] withEpoch(WireFormat wire, byte[] v, long epoch) {
        int n = v.length;
        if (n >= WireFormat.headerLength(v) + 3 && v[n - 1] == 1 && v[n - 2] == 1 && (v[n - 3] == 0 || v[n - 3] == 1)
                && wire.writerFingerprint(v) == TRANSACTION_FINGERPRINT) {
            byte[] out = new byte[n - 2 + 10 + 1];
            System.arraycopy(v, 0, out, 0, n - 2);
            int at = n - 2;
            long z = (epoch << 1) ^ (epoch >> 63);
            while ((z & ~0x7FL) != 0) { out[at++] = (byte) ((z & 0x7F) | 0x80); z >>>= 7; }
            out[at++] = (byte) z;
            out[at++] = 1; // round: -1
            return Arrays.copyOf(out, at);
        }
        Transaction t = wire.decode(v, Transaction.class);
        t.setEpoch(epoch);
        return wire.encode(Topics.ROUNDS, t);
    }

}
