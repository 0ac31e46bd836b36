package dev.idem.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.spi.HeldLease;
import dev.idem.spi.RecordKey;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LeaseRenewerTest {
    private static final Scope SCOPE = Scope.of("tenant", "POST /orders");

    /** A lease of an hour: no tick comes due while the test runs, so the store is never called. */
    private static LeaseRenewer renewer() {
        return new LeaseRenewer(null, Duration.ofHours(1));
    }

    private static HeldLease held(int i) {
        return new HeldLease(new RecordKey(SCOPE, IdempotencyKey.of("k" + i)), i);
    }

    @Test
    @DisplayName("owners that run one at a time schedule the renewal tick once, not once per lease")
    void oneAtATime() {
        LeaseRenewer renewer = renewer();
        for (int i = 0; i < 100; i++) {
            renewer.hold(held(i), System.nanoTime(), true, () -> { }).close();
        }
        assertThat(renewer.ticksScheduled()).isEqualTo(1);
    }

    @Test
    @DisplayName("a lease that is not renewed never schedules the tick")
    void notRenewed() {
        LeaseRenewer renewer = renewer();
        renewer.hold(held(1), System.nanoTime(), false, () -> { }).close();
        assertThat(renewer.ticksScheduled()).isZero();
    }

    @Test
    @DisplayName("a closed lease is no longer vouched for by renewals, and closing twice is harmless")
    void closedLease() {
        LeaseRenewer renewer = renewer();
        LeaseRenewer.Lease lease = renewer.hold(held(1), System.nanoTime(), true, () -> { });
        assertThat(lease.vouchedFor(0)).isTrue();
        lease.close();
        lease.close();
        assertThat(lease.isLost()).isFalse();
        assertThat(renewer.ticksScheduled()).isEqualTo(1);
    }
}
