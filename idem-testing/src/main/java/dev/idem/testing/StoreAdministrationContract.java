package dev.idem.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.RecoveryPoint;
import dev.idem.spi.StoreAdministration;
import dev.idem.spi.StoreAdministration.ReleaseResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link StoreAdministration} contract, as tests, on what a store's
 * {@link IdempotencyStore#administration()} returns. A store's contract test (a subclass of
 * {@link IdempotencyStoreContract}, whose fresh store it uses) runs it by implementing this
 * interface: {@code class PostgresStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract}.
 *
 * <p>Lease expiry is real time, as in {@link IdempotencyStoreContract}: leases of a few hundred
 * milliseconds and a wait a little longer.
 */
public interface StoreAdministrationContract {

    /** The running test's fresh store ({@link StoreFixture#store()}). */
    IdempotencyStore store();

    private StoreAdministration admin() {
        Optional<StoreAdministration> administration = store().administration();
        assertThat(administration).as("the store offers StoreAdministration (IdempotencyStore.administration())").isPresent();
        return administration.orElseThrow();
    }

    private static RecordKey key(String name) {
        return new RecordKey(Scope.of("admin-" + UUID.randomUUID(), "POST /admin-contract"), IdempotencyKey.of(name));
    }

    private ClaimOutcome.Acquired acquire(RecordKey id, Duration lease) {
        ClaimOutcome outcome = store().claim(new ClaimRequest(id, Fingerprint.builder().part("body", "a").build(), lease,
                Duration.ofMinutes(10)));
        assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
        return (ClaimOutcome.Acquired) outcome;
    }

    private static StoredResponse response() {
        return StoredResponse.of(201, Map.of("Content-Type", List.of("text/plain")), "twelve bytes".getBytes(StandardCharsets.UTF_8));
    }

    private static void waitPast(Duration lease) {
        try {
            Thread.sleep(lease.toMillis() + 150);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Test
    @DisplayName("administration: inspect shows an in-progress record's token, attempt, lease and finished phases, and no response")
    default void inspectShowsAnInProgressRecord() {
        RecordKey id = key("inspect-in-progress");
        ClaimOutcome.Acquired owner = acquire(id, longLease());
        store().checkpoint(id, owner.token(), RecoveryPoint.of("charge", phaseLog("charge")));
        RecordSummary summary = admin().inspect(id).orElseThrow();
        assertThat(summary.id()).isEqualTo(id);
        assertThat(summary.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(summary.token()).isEqualTo(owner.token());
        assertThat(summary.attempt()).isEqualTo(1);
        assertThat(summary.leaseUntil()).isAfter(summary.asOf());
        assertThat(summary.leaseExpired()).isFalse();
        assertThat(summary.expiresAt()).isAfter(summary.asOf());
        summary.createdAt().ifPresent(created -> assertThat(created).isBeforeOrEqualTo(summary.asOf()));
        assertThat(summary.phasesDone()).containsExactly("charge");
        assertThat(summary.responseStatus()).isEmpty();
        assertThat(summary.responseBytes()).isEmpty();
    }

    @Test
    @DisplayName("administration: inspect shows a completed record's response status and size; an absent key is empty")
    default void inspectShowsACompletedRecordAndNothingForAnAbsentOne() {
        RecordKey id = key("inspect-completed");
        ClaimOutcome.Acquired owner = acquire(id, longLease());
        store().complete(id, owner.token(), response(), longLease());
        RecordSummary summary = admin().inspect(id).orElseThrow();
        assertThat(summary.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(summary.responseStatus()).hasValue(201);
        assertThat(summary.responseBytes()).hasValue(12);
        assertThat(summary.phasesDone()).isEmpty();
        assertThat(admin().inspect(key("never-claimed"))).isEmpty();
    }

    @Test
    @DisplayName("administration: expiredLeases lists in-progress records past their lease, longest-expired first, at most limit")
    default void expiredLeasesListsStuckRecordsOldestFirst() {
        RecordKey first = key("stuck-first");
        RecordKey second = key("stuck-second");
        RecordKey live = key("live");
        RecordKey done = key("done");
        acquire(first, shortLease());
        acquire(second, shortLease().plusMillis(100));
        acquire(live, longLease());
        store().complete(done, acquire(done, shortLease()).token(), response(), longLease());
        waitPast(shortLease().plusMillis(100));

        List<RecordSummary> stuck = admin().expiredLeases(10);
        assertThat(stuck).extracting(RecordSummary::id).containsExactly(first, second);
        assertThat(stuck).allSatisfy(s -> assertThat(s.leaseExpired()).isTrue());
        assertThat(admin().expiredLeases(1)).extracting(RecordSummary::id).containsExactly(first);
        assertThatThrownBy(() -> admin().expiredLeases(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("administration: oldestInProgress is the in-progress record claimed first, lease running or not; none when none is")
    default void oldestInProgressIsTheFirstClaimed() {
        assertThat(admin().oldestInProgress()).isEmpty();
        RecordKey oldest = key("oldest");
        RecordKey younger = key("younger");
        acquire(oldest, shortLease());
        waitPast(Duration.ofMillis(10));
        acquire(younger, longLease());
        waitPast(shortLease());
        assertThat(admin().oldestInProgress()).map(RecordSummary::id).hasValue(oldest);
    }

    @Test
    @DisplayName("administration: releasing a record past its lease makes it absent; the old owner's writes fail; the next claim starts afresh with a larger token")
    default void releaseAfterLeaseExpiry() {
        RecordKey id = key("release-expired");
        ClaimOutcome.Acquired owner = acquire(id, shortLease());
        store().checkpoint(id, owner.token(), RecoveryPoint.of("charge", phaseLog("charge")));
        waitPast(shortLease());

        assertThat(admin().releaseStuck(id, owner.token(), false)).isEqualTo(ReleaseResult.RELEASED);
        assertThat(admin().inspect(id)).isEmpty();
        assertThat(store().find(id)).isEmpty();
        assertThatThrownBy(() -> store().complete(id, owner.token(), response(), longLease())).isInstanceOf(LeaseLostException.class);
        ClaimOutcome.Acquired next = acquire(id, longLease());
        assertThat(next.token()).isGreaterThan(owner.token());
        assertThat(next.attempt()).isEqualTo(1);
        assertThat(next.recoveryPoint()).isEmpty();
    }

    @Test
    @DisplayName("administration: releasing a live lease without force is refused and changes nothing; its owner still completes")
    default void releaseOfALiveLeaseWithoutForceIsRefused() {
        RecordKey id = key("release-live");
        ClaimOutcome.Acquired owner = acquire(id, longLease());
        RecordSummary before = admin().inspect(id).orElseThrow();

        assertThat(admin().releaseStuck(id, owner.token(), false)).isEqualTo(ReleaseResult.LEASE_LIVE);
        RecordSummary after = admin().inspect(id).orElseThrow();
        assertThat(after.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(after.token()).isEqualTo(before.token());
        assertThat(after.attempt()).isEqualTo(before.attempt());
        assertThat(after.leaseUntil()).isEqualTo(before.leaseUntil());
        store().complete(id, owner.token(), response(), longLease());
        assertThat(admin().inspect(id).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("administration: a forced release of a live lease fences its owner: complete, checkpoint, renew and release fail as lease lost")
    default void forcedReleaseFencesTheOwner() {
        RecordKey id = key("release-forced");
        ClaimOutcome.Acquired owner = acquire(id, longLease());

        assertThat(admin().releaseStuck(id, owner.token(), true)).isEqualTo(ReleaseResult.RELEASED);
        assertThat(admin().inspect(id)).isEmpty();
        assertThatThrownBy(() -> store().complete(id, owner.token(), response(), longLease())).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store().checkpoint(id, owner.token(), RecoveryPoint.of("x", new byte[0])))
                .isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store().renew(id, owner.token(), longLease())).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store().release(id, owner.token())).isInstanceOf(LeaseLostException.class);
        ClaimOutcome.Acquired next = acquire(id, longLease());
        assertThat(next.token()).isGreaterThan(owner.token());
        assertThatThrownBy(() -> store().complete(id, owner.token(), response(), longLease())).isInstanceOf(LeaseLostException.class);
        store().complete(id, next.token(), response(), longLease());
    }

    @Test
    @DisplayName("administration: a release under a token the record no longer has, or of a completed or absent record, changes nothing")
    default void releaseOfAnotherTokenOrACompletedRecordChangesNothing() {
        RecordKey id = key("release-other-token");
        ClaimOutcome.Acquired first = acquire(id, shortLease());
        waitPast(shortLease());
        ClaimOutcome.Acquired takeover = acquire(id, longLease());
        assertThat(admin().releaseStuck(id, first.token(), true)).isEqualTo(ReleaseResult.TOKEN_CHANGED);
        assertThat(admin().inspect(id).orElseThrow().token()).isEqualTo(takeover.token());
        store().complete(id, takeover.token(), response(), longLease());
        assertThat(admin().releaseStuck(id, takeover.token(), true)).isEqualTo(ReleaseResult.NOT_IN_PROGRESS);
        assertThat(admin().inspect(id).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(admin().releaseStuck(key("absent"), 1, true)).isEqualTo(ReleaseResult.NOT_IN_PROGRESS);
    }

    private static Duration longLease() {
        return Duration.ofMinutes(10);
    }

    private static Duration shortLease() {
        return Duration.ofMillis(300);
    }

    /** A recovery state as the engine writes it: format 1, the phases' names each with an empty result. */
    private static byte[] phaseLog(String... phases) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeInt(phases.length);
            for (String phase : phases) {
                out.writeUTF(phase);
                out.writeInt(0);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
