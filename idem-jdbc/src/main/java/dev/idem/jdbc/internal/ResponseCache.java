package dev.idem.jdbc.internal;

import dev.idem.Fingerprint;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.RecordKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, least-recently-used cache of completed records: a completed record cannot change until
 * it expires, so its answer to a claim — replay with the same fingerprint, mismatch with another — is
 * final until then. Only completed records are ever put here; in-progress, released and absent ones
 * always go to the database. Entries are keyed by scope and key (a replay never crosses scopes) and
 * dropped at a local deadline that is never later than the record's expiry: the database's remaining
 * lifetime, counted on the monotonic clock from before the statement that read it was sent.
 */
public final class ResponseCache {
    /** Bodies larger than this are not cached, so the cache holds at most maxEntries × this many body bytes. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private record Entry(String fingerprint, StoredResponse response, long deadlineNanos) {
    }

    private final int maxEntries;
    private final Map<RecordKey, Entry> entries;

    public ResponseCache(int maxEntries) {
        this.maxEntries = maxEntries;
        this.entries = new LinkedHashMap<>(Math.min(maxEntries, 1024), 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<RecordKey, Entry> eldest) {
                return size() > ResponseCache.this.maxEntries;
            }
        };
    }

    /** The final answer for a claim of {@code id} with {@code fingerprint}, or {@code null} if not cached (or expired). */
    public ClaimOutcome answer(RecordKey id, Fingerprint fingerprint) {
        Entry e;
        synchronized (entries) {
            e = entries.get(id);
            if (e != null && System.nanoTime() - e.deadlineNanos >= 0) {
                entries.remove(id);
                e = null;
            }
        }
        if (e == null) {
            return null;
        }
        return e.fingerprint.equals(fingerprint.value()) ? new ClaimOutcome.Replay(e.response) : new ClaimOutcome.Mismatch();
    }

    /**
     * Remembers a completed record read by a statement sent at {@code sentAtNanos} ({@link System#nanoTime()})
     * that reported {@code expiresInMillis} of life left on the database's clock.
     */
    public void put(RecordKey id, String fingerprint, StoredResponse response, long sentAtNanos, long expiresInMillis) {
        if (expiresInMillis <= 0 || response.bodyLength() > MAX_BODY_BYTES) {
            return;
        }
        Entry e = new Entry(fingerprint, response, sentAtNanos + expiresInMillis * 1_000_000L);
        synchronized (entries) {
            entries.put(id, e);
        }
    }

    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    public int maxEntries() {
        return maxEntries;
    }
}
