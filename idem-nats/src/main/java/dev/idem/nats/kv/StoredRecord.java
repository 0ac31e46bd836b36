package dev.idem.nats.kv;

import dev.idem.StoredResponse;
import dev.idem.spi.RecoveryPoint;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A record as one key-value entry holds it, and its binary encoding. Times are milliseconds on the
 * stream leader's clock; a time marked relative counts from the entry's own timestamp (which the
 * leader assigns when it stores the write), so a write that sets a lease or a retention "from now"
 * needs no clock reading of its own. A token of {@link #SELF} is the entry's own revision: the
 * revision of the write that acquired the record, which is larger than every earlier revision of
 * the bucket and so than every earlier token of the record.
 *
 * @param scope       the record's scope, as {@code Scope.value()}: the original of the hashed key name
 * @param key         the idempotency key's value, kept for the same reason
 * @param point       the last recovery point, or null
 * @param response    the response of a completed record, or null while in progress
 * @param created     when the record was first claimed: {@link #SELF} for this entry's own timestamp, or
 *                    {@link #UNKNOWN} for an entry of the first format, which did not keep it
 */
record StoredRecord(String scope, String key, String fingerprint, long token, int attempt,
                    boolean leaseRelative, long lease, boolean expiryRelative, long expires,
                    RecoveryPoint point, StoredResponse response, long created) {
    static final long SELF = 0;
    static final long UNKNOWN = -1;
    /** Format 2 added the creation time at the end; format 1 entries are still read. */
    private static final byte FORMAT = 2;
    private static final byte FIRST_FORMAT = 1;

    /** When the record was first claimed, on the leader's clock; {@link #UNKNOWN} if the entry does not say. */
    long createdAt(long written) {
        return created == SELF ? written : created;
    }

    boolean completed() {
        return response != null;
    }

    long tokenAt(long revision) {
        return token == SELF ? revision : token;
    }

    long leaseUntil(long written) {
        return leaseRelative ? written + lease : lease;
    }

    long expiresAt(long written) {
        return expiryRelative ? written + expires : expires;
    }

    /** Live: completed and not expired, or in progress with its retention or its lease still running. */
    boolean liveAt(long now, long written) {
        boolean retained = expiresAt(written) > now;
        return completed() ? retained : retained || leaseUntil(written) > now;
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + (response == null ? 0 : response.bodyLength())
                + (point == null ? 0 : point.state().length));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            text(out, scope);
            text(out, key);
            text(out, fingerprint);
            out.writeLong(token);
            out.writeInt(attempt);
            out.writeBoolean(leaseRelative);
            out.writeLong(lease);
            out.writeBoolean(expiryRelative);
            out.writeLong(expires);
            out.writeBoolean(point != null);
            if (point != null) {
                text(out, point.phase());
                blob(out, point.state());
            }
            out.writeBoolean(response != null);
            if (response != null) {
                out.writeInt(response.status());
                out.writeInt(response.headers().size());
                for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
                    text(out, header.getKey());
                    out.writeInt(header.getValue().size());
                    for (String value : header.getValue()) {
                        text(out, value);
                    }
                }
                blob(out, response.body());
            }
            out.writeLong(created);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException (or a buffer underflow) if the bytes are not an encoding this class made */
    static StoredRecord decode(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        byte format = in.get();
        if (format != FORMAT && format != FIRST_FORMAT) {
            throw new IllegalArgumentException("unknown record format " + value[0]);
        }
        String scope = text(in);
        String key = text(in);
        String fingerprint = text(in);
        long token = in.getLong();
        int attempt = in.getInt();
        boolean leaseRelative = in.get() != 0;
        long lease = in.getLong();
        boolean expiryRelative = in.get() != 0;
        long expires = in.getLong();
        RecoveryPoint point = in.get() != 0 ? RecoveryPoint.of(text(in), blob(in)) : null;
        StoredResponse response = null;
        if (in.get() != 0) {
            int status = in.getInt();
            int headerCount = count(in);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 0; i < headerCount; i++) {
                String name = text(in);
                int valueCount = count(in);
                List<String> values = new ArrayList<>(valueCount);
                for (int j = 0; j < valueCount; j++) {
                    values.add(text(in));
                }
                headers.put(name, values);
            }
            response = StoredResponse.of(status, headers, blob(in));
        }
        long created = format == FIRST_FORMAT ? UNKNOWN : in.getLong();
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the record");
        }
        return new StoredRecord(scope, key, fingerprint, token, attempt, leaseRelative, lease, expiryRelative, expires, point, response,
                created);
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        blob(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void blob(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static String text(ByteBuffer in) {
        return new String(blob(in), StandardCharsets.UTF_8);
    }

    private static byte[] blob(ByteBuffer in) {
        byte[] b = new byte[count(in)];
        in.get(b);
        return b;
    }

    private static int count(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("a length of " + n + " with " + in.remaining() + " bytes left");
        }
        return n;
    }
}
