package dev.idem.spi;

import dev.idem.Fingerprint;
import java.time.Duration;
import java.util.Objects;

/**
 * A request to own a record.
 *
 * @param id          which record
 * @param fingerprint the request's identity; the same key with another fingerprint is a {@link ClaimOutcome.Mismatch}
 * @param lease       how long the owner may run before another claimer may take over; positive
 * @param retention   how long the record lives from now (renewed to "completion + retention" by {@code complete}); not shorter than the lease
 */
public record ClaimRequest(RecordKey id, Fingerprint fingerprint, Duration lease, Duration retention) {
    public ClaimRequest {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Arguments.positive("lease", lease);
        Arguments.positive("retention", retention);
        if (retention.compareTo(lease) < 0) {
            throw new IllegalArgumentException("retention (" + retention + ") must not be shorter than the lease (" + lease + ")");
        }
    }
}
