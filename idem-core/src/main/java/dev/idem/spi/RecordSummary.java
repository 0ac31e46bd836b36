package dev.idem.spi;

import dev.idem.internal.PhaseLog;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@link StoreAdministration} shows of a record: its metadata, never its content (no body, no
 * headers, no fingerprint, no recovery point bytes). The holder of a lease is known by its fencing
 * token. {@link #toString()} hides the key's value, as {@link RecordKey} does.
 *
 * @param createdAt      when the record was first claimed, where the store keeps it
 * @param phasesDone     the finished phases' names in order (a record's recovery point)
 * @param responseStatus a completed record's response status
 * @param responseBytes  a completed record's response body size
 * @param asOf           the store's clock when it read the record: the lease is over if {@code leaseUntil} is not after it
 */
public record RecordSummary(
        RecordKey id,
        RecordState state,
        long token,
        int attempt,
        Instant leaseUntil,
        Optional<Instant> createdAt,
        Instant expiresAt,
        List<String> phasesDone,
        OptionalInt responseStatus,
        OptionalLong responseBytes,
        Instant asOf) {

    public RecordSummary {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(leaseUntil, "leaseUntil");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        phasesDone = List.copyOf(phasesDone);
        Objects.requireNonNull(responseStatus, "responseStatus");
        Objects.requireNonNull(responseBytes, "responseBytes");
        Objects.requireNonNull(asOf, "asOf");
    }

    /**
     * The summary of a record as {@link IdempotencyStore#find} read it.
     *
     * @param createdAt the record's creation, or null where the store does not keep it
     * @param asOf      the store's clock at the read
     */
    public static RecordSummary of(IdempotencyRecord record, Instant createdAt, Instant asOf) {
        return of(record.id(), record.state(), record.token(), record.attempt(), record.leaseUntil(), createdAt, record.expiresAt(),
                record.recoveryPoint(), record.response().map(r -> OptionalInt.of(r.status())).orElse(OptionalInt.empty()),
                record.response().map(r -> OptionalLong.of(r.bodyLength())).orElse(OptionalLong.empty()), asOf);
    }

    /**
     * The summary of a record a store read column by column (without its body): the finished phases'
     * names are read from {@code recoveryPoint}, whose bytes the summary does not keep.
     *
     * @param createdAt the record's creation, or null where the store does not keep it
     */
    public static RecordSummary of(RecordKey id, RecordState state, long token, int attempt, Instant leaseUntil, Instant createdAt,
            Instant expiresAt, Optional<RecoveryPoint> recoveryPoint, OptionalInt responseStatus, OptionalLong responseBytes, Instant asOf) {
        return new RecordSummary(id, state, token, attempt, leaseUntil, Optional.ofNullable(createdAt), expiresAt, phases(recoveryPoint),
                responseStatus, responseBytes, asOf);
    }

    /** In progress with its lease over on the store's clock: nobody renews it, the next claim takes it over. */
    public boolean leaseExpired() {
        return state == RecordState.IN_PROGRESS && !leaseUntil.isAfter(asOf);
    }

    /**
     * The finished phases' names, read from the engine's recovery state; a state the engine did not
     * write (another program's) shows only the recovery point's last phase.
     */
    private static List<String> phases(Optional<RecoveryPoint> point) {
        if (point.isEmpty()) {
            return List.of();
        }
        try {
            return List.copyOf(PhaseLog.decode(point.get().state()).keySet());
        } catch (RuntimeException e) {
            return List.of(point.get().phase());
        }
    }

    @Override
    public String toString() {
        return "RecordSummary[id=" + id + ", state=" + state + ", token=" + token + ", attempt=" + attempt + ", leaseUntil=" + leaseUntil
                + ", expiresAt=" + expiresAt + ", phasesDone=" + phasesDone.size() + ", asOf=" + asOf + "]";
    }
}
