package dev.idem.redis.internal;

import dev.idem.Fingerprint;
import dev.idem.StoredResponse;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The values the Redis store's scripts take and answer, as Lettuce hands them over (bytes and longs). */
public final class ScriptValues {
    private ScriptValues() {
    }

    public static byte[] number(long n) {
        return ascii(Long.toString(n));
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static long integer(Object reply) {
        return (Long) reply;
    }

    public static String text(Object reply) {
        return new String((byte[]) reply, StandardCharsets.UTF_8);
    }

    public static byte[] bytes(Object reply) {
        return reply == null ? new byte[0] : (byte[]) reply;
    }

    public static StoredResponse response(Object status, Object headers, Object body) {
        int code = status instanceof Long l ? l.intValue() : Integer.parseInt(text(status));
        return StoredResponse.of(code, HeaderCodec.decode(bytes(headers)), bytes(body));
    }

    public static Optional<RecoveryPoint> recoveryPoint(Object phase, Object state) {
        return phase == null ? Optional.empty() : Optional.of(RecoveryPoint.of(text(phase), bytes(state)));
    }

    /** The record in a FIND script's answer (its fields in the script's order). */
    public static IdempotencyRecord record(RecordKey id, List<Object> f) {
        RecordState state = "1".equals(text(f.get(0))) ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
        Optional<StoredResponse> response = state == RecordState.COMPLETED
                ? Optional.of(response(f.get(8), f.get(9), f.get(10)))
                : Optional.empty();
        return new IdempotencyRecord(id, Fingerprint.parse(text(f.get(3))), state,
                Long.parseLong(text(f.get(1))), Integer.parseInt(text(f.get(2))),
                Instant.ofEpochMilli(Long.parseLong(text(f.get(4)))), Instant.ofEpochMilli(Long.parseLong(text(f.get(5)))),
                recoveryPoint(f.get(6), f.get(7)), response);
    }
}
