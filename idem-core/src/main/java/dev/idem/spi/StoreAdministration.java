package dev.idem.spi;

import java.util.List;
import java.util.Optional;

/**
 * What an operator may ask of an {@link IdempotencyStore} that offers it
 * ({@link IdempotencyStore#administration()}): look at one record, find the records stuck in
 * progress, and release one. Optional and coarse: the engine never calls it; an admin endpoint does,
 * after its own authorisation. {@code dev.idem.testing.StoreAdministrationContract} checks it against
 * every store that offers it. See docs/operations.md.
 *
 * <h2>Contract</h2>
 * <ol>
 * <li><b>Metadata only.</b> A {@link RecordSummary} carries state, token, attempt, lease, times,
 *     the names of the finished phases and the response's status and size: never a body, headers,
 *     the request's fingerprint or a recovery point's bytes.</li>
 * <li><b>The store's clock.</b> Whether a lease is over is judged by the same clock the store's
 *     claims use; each summary says what that clock read ({@link RecordSummary#asOf()}).</li>
 * <li><b>Live records only.</b> Released and expired records read as absent, as for
 *     {@link IdempotencyStore#find}.</li>
 * <li><b>Fenced release.</b> {@link #releaseStuck} changes the record only if it is in progress
 *     with exactly {@code token} and, unless {@code force}, its lease is over; then the record reads
 *     as absent (its recovery point is dropped: the next claim starts at attempt 1 and runs every
 *     phase again) and every write of the holder of {@code token} ({@code checkpoint},
 *     {@code complete}, {@code release}, {@code renew}) fails with {@link dev.idem.LeaseLostException}.
 *     The next acquisition's token is larger than {@code token}. Otherwise it changes nothing and
 *     says why. It is one atomic step, like every other write of the store.</li>
 * </ol>
 */
public interface StoreAdministration {

    /** The most records {@link #expiredLeases} returns in one call. */
    int MAX_LIST = 1000;

    /** The record as it stands, or empty if absent, released or expired. */
    Optional<RecordSummary> inspect(RecordKey id);

    /**
     * Up to {@code limit} records in progress whose lease is over (their owner stopped renewing:
     * crashed, hung or cut off), the longest-expired lease first. Such a record is taken over by the
     * next claim with its fingerprint; until then it answers nobody.
     *
     * @param limit 1 to {@link #MAX_LIST}
     */
    List<RecordSummary> expiredLeases(int limit);

    /** The record in progress that was created first (its lease running or not), or empty if none is in progress. */
    Optional<RecordSummary> oldestInProgress();

    /**
     * Releases a stuck record held under {@code token} (see the class contract, item 4).
     *
     * @param token the token the operator saw ({@link RecordSummary#token()}): a record acquired again
     *              since is left alone
     * @param force release even though the lease still runs; the owner's later writes then fail
     */
    ReleaseResult releaseStuck(RecordKey id, long token, boolean force);

    /** What {@link #releaseStuck} did. */
    enum ReleaseResult {
        /** The record now reads as absent; its holder's writes fail. */
        RELEASED,
        /** Nothing changed: the lease still runs and {@code force} was not given. */
        LEASE_LIVE,
        /** Nothing changed: the record is in progress under another token (acquired again since it was looked at). */
        TOKEN_CHANGED,
        /** Nothing changed: the record is absent, released, expired or completed. */
        NOT_IN_PROGRESS
    }
}
