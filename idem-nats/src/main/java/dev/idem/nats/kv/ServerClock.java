package dev.idem.nats.kv;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import java.io.IOException;
import java.time.Duration;

/**
 * The stream leader's clock, read without a clock command (JetStream has none): the store writes an
 * entry under a key of its own and reads back the timestamp the leader gave it. At the moment the
 * answer arrives the leader's clock reads at least that timestamp, so the timestamp plus the time
 * elapsed since on this process's monotonic clock is a lower bound of the leader's clock now, short
 * by at most one round trip. A lease is judged over, or a record expired, only when this lower bound
 * passes its end: never early on account of this process.
 *
 * <p>A reading is reused for {@link #MAX_AGE} (the monotonic clock drifts by parts per million),
 * then taken again, which also follows a change of leader within that time.
 */
final class ServerClock {
    static final Duration MAX_AGE = Duration.ofSeconds(1);

    private final KeyValue kv;
    private final String key;
    private final byte[] empty = new byte[0];
    /** The leader's timestamp of the last reading, in milliseconds, and the monotonic time it arrived. */
    private long readMillis;
    private long readNanos;
    private boolean read;

    ServerClock(KeyValue kv, String key) {
        this.kv = kv;
        this.key = key;
    }

    /** The leader's clock now, in epoch milliseconds: a lower bound, short by at most one round trip. */
    synchronized long nowMillis() throws IOException, JetStreamApiException {
        long elapsed = System.nanoTime() - readNanos;
        if (!read || elapsed > MAX_AGE.toNanos()) {
            long revision = kv.put(key, empty);
            KeyValueEntry entry = kv.get(key, revision);
            readNanos = System.nanoTime();
            if (entry == null) {
                throw new IOException("the clock entry written at revision " + revision + " could not be read back");
            }
            readMillis = NatsKvIdempotencyStore.millis(entry);
            read = true;
            elapsed = 0;
        }
        return readMillis + elapsed / 1_000_000;
    }

    /** Forgets the reading, so the next one is fresh: after a failure that may be a change of leader. */
    synchronized void forget() {
        read = false;
    }
}
