package dev.idem.internal;

import dev.idem.Fingerprint;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's tombstones: after a record completes, a second, small record under a derived key
 * (its {@link #of tombstone key}) holding the completed response's status and the completion time,
 * kept for the retention plus a window. Written and read through the ordinary SPI (claim, complete,
 * find, release), so every store keeps them without a change of its own.
 *
 * <p>The tombstone is written after the record completes, never before: a tombstone exists only for a
 * key whose response was stored. A crash between the two writes (or a failed tombstone write) leaves no
 * tombstone, which is what an engine without tombstones does.
 */
public final class Tombstones {
    /**
     * The principal part of every tombstone's scope. {@code Scope.of} percent-encodes {@code %} in a
     * principal and the HTTP scopes start with {@code anonymous}, {@code user:}, {@code user-sha256:}
     * or {@code credential:}, so no scope made by either has this principal.
     */
    public static final String SCOPE_PRINCIPAL = "idem%tombstone";
    /** Where the tombstone's response keeps the completion time (an ISO-8601 instant). */
    static final String COMPLETED_AT = "Idem-Completed-At";
    private static final String DIGEST = "sha256:";
    private static final System.Logger LOG = System.getLogger("dev.idem.tombstones");

    private final IdempotencyStore store;
    private final Duration lease;
    private final Duration keep;
    private final Clock clock;

    /** @param keep how long a tombstone lives from its completion: the engine's retention plus the window */
    public Tombstones(IdempotencyStore store, Duration lease, Duration keep, Clock clock) {
        this.store = store;
        this.lease = lease;
        this.keep = keep;
        this.clock = clock;
    }

    /**
     * The record key of {@code id}'s tombstone: the same key under the scope
     * {@code idem%tombstone <scope>}, or {@code idem%tombstone sha256:<hex of scope>} when that would be
     * over {@link Scope#MAX_LENGTH} (no scope without a space looks like a digest but one made with
     * {@code Scope.parse} on purpose).
     */
    public static RecordKey of(RecordKey id) {
        String scope = id.scope().value();
        String readable = SCOPE_PRINCIPAL + " " + scope;
        String value = readable.length() <= Scope.MAX_LENGTH ? readable : SCOPE_PRINCIPAL + " " + DIGEST + sha256Hex(scope);
        return new RecordKey(Scope.parse(value), id.key());
    }

    /** What the tombstone of a record that was just acquired afresh says. */
    public sealed interface Found {
        /** No tombstone (or one whose writer died before finishing it): run. */
        record None() implements Found {
        }

        /** The key completed with this fingerprint at {@code completedAt} with {@code status}; its response is gone. */
        record Completed(Instant completedAt, int status) implements Found {
        }

        /** The key completed for another fingerprint. */
        record Mismatch() implements Found {
        }

        /** The tombstone is being written right now (the response expired just before): look again shortly. */
        record Writing(Duration retryAfter) implements Found {
        }
    }

    /**
     * Reads {@code id}'s tombstone: one {@code find}, and a claim only if a tombstone is half written
     * and {@code settleHalfWritten}; without it, a half-written tombstone counts as none (a caller
     * inside a transaction of the store's own must not write through another connection).
     */
    public Found find(RecordKey id, Fingerprint fingerprint, boolean settleHalfWritten) {
        RecordKey tombstone = of(id);
        Optional<IdempotencyRecord> record = store.find(tombstone);
        if (record.isEmpty()) {
            return new Found.None();
        }
        if (!record.get().fingerprint().equals(fingerprint)) {
            return new Found.Mismatch();
        }
        if (record.get().state() == RecordState.COMPLETED) {
            return completed(record.get().response().orElseThrow());
        }
        if (!settleHalfWritten) {
            return new Found.None();
        }
        // Half written: the store's claim tells a live writer (wait for it) from a dead one (its lease is over).
        ClaimOutcome claim = store.claim(new ClaimRequest(tombstone, fingerprint, lease, keep));
        if (claim instanceof ClaimOutcome.Acquired acquired) {
            // Its writer died between the claim and the completion: no tombstone, as after a crash before it.
            releaseQuietly(tombstone, acquired.token());
            return new Found.None();
        }
        if (claim instanceof ClaimOutcome.Replay replay) {
            return completed(replay.response());
        }
        if (claim instanceof ClaimOutcome.InProgress inProgress) {
            return new Found.Writing(inProgress.retryAfter());
        }
        return new Found.Mismatch();
    }

    /**
     * Writes {@code id}'s tombstone after its record completed with {@code status}. Never throws: the
     * response is stored, and a missing tombstone only means what an engine without them does.
     */
    public void write(RecordKey id, Fingerprint fingerprint, int status) {
        RecordKey tombstone = of(id);
        try {
            Instant completedAt = clock.instant();
            ClaimOutcome claim = store.claim(new ClaimRequest(tombstone, fingerprint, lease, keep));
            if (claim instanceof ClaimOutcome.Acquired acquired) {
                StoredResponse response = StoredResponse.of(status, Map.of(COMPLETED_AT, List.of(completedAt.toString())), new byte[0]);
                store.complete(tombstone, acquired.token(), response, keep);
            }
            // Otherwise a tombstone of this key is already there, or being written: it stands.
        } catch (LeaseLostException e) {
            // Another engine took the half-written tombstone over; its write stands.
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "idem: the tombstone of a completed record of scope '" + id.scope()
                    + "' was not written; once its response expires, a retry runs again", e);
        }
    }

    private static Found completed(StoredResponse tombstone) {
        List<String> at = tombstone.headers().getOrDefault(COMPLETED_AT, List.of());
        try {
            return new Found.Completed(at.isEmpty() ? Instant.EPOCH : Instant.parse(at.get(0)), tombstone.status());
        } catch (DateTimeParseException e) {
            return new Found.Completed(Instant.EPOCH, tombstone.status());
        }
    }

    private void releaseQuietly(RecordKey tombstone, long token) {
        try {
            store.release(tombstone, token);
        } catch (RuntimeException e) {
            // Its lease runs out on its own; the next look finds it as dead as this one did.
        }
    }

    private static String sha256Hex(String value) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }
}
