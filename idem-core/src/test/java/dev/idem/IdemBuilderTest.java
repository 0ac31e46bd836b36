package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdemBuilderTest {

    private final FakeStore store = new FakeStore();

    @Test
    @DisplayName("defaults: 30 s lease, 24 h retention, reject in-flight, 8 MiB cap, renewing leases")
    void defaults() {
        Idem idem = Idem.builder().store(store).build();
        assertThat(idem.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(idem.retention()).isEqualTo(Duration.ofHours(24));
        assertThat(idem.maxResponseBytes()).isEqualTo(8 * 1024 * 1024);
        assertThat(idem.renewLeases()).isTrue();
        assertThat(idem.store()).isSameAs(store);
        assertThat(idem.storagePolicy()).isSameAs(StoragePolicy.defaults());
        assertThat(idem.toString()).contains("reject()");
    }

    @Test
    @DisplayName("a store is required")
    void storeRequired() {
        assertThatThrownBy(() -> Idem.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("store");
        assertThatThrownBy(() -> Idem.builder().store(null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT-1S", "PT-0.001S"})
    @DisplayName("a zero or negative lease is rejected at the setter with the bad value in the message")
    void leaseNotPositive(String text) {
        Duration lease = Duration.parse(text);
        assertThatThrownBy(() -> Idem.builder().lease(lease))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease")
                .hasMessageContaining(lease.toString());
    }

    @Test
    @DisplayName("a lease under 1 ms is rejected: renewal works in milliseconds")
    void leaseBelowOneMillisecond() {
        assertThatThrownBy(() -> Idem.builder().lease(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0.000999999S");
    }

    @Test
    @DisplayName("regression: a rejected lease does not stay in the builder")
    void rejectedLeaseNotKept() {
        Idem.Builder builder = Idem.builder().store(store).lease(Duration.ofSeconds(5));

        assertThatThrownBy(() -> builder.lease(Duration.ofNanos(1))).isInstanceOf(IllegalArgumentException.class);

        assertThat(builder.build().lease()).isEqualTo(Duration.ofSeconds(5));
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT-1H"})
    @DisplayName("a zero or negative retention is rejected at the setter with the bad value in the message")
    void retentionNotPositive(String text) {
        Duration retention = Duration.parse(text);
        assertThatThrownBy(() -> Idem.builder().retention(retention))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention")
                .hasMessageContaining(retention.toString());
    }

    @Test
    @DisplayName("null durations are rejected, naming the setting")
    void nullDurations() {
        assertThatThrownBy(() -> Idem.builder().lease(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> Idem.builder().retention(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("retention");
    }

    @Test
    @DisplayName("a retention shorter than the lease is rejected at build(), naming both")
    void retentionShorterThanLease() {
        Idem.Builder builder = Idem.builder().store(store).lease(Duration.ofMinutes(10)).retention(Duration.ofMinutes(5));
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PT5M")
                .hasMessageContaining("PT10M");
    }

    @Test
    @DisplayName("a retention equal to the lease is accepted")
    void retentionEqualToLease() {
        Idem idem = Idem.builder().store(store).lease(Duration.ofMinutes(5)).retention(Duration.ofMinutes(5)).build();
        assertThat(idem.retention()).isEqualTo(idem.lease());
    }

    @Test
    @DisplayName("a negative response cap is rejected with the bad value; zero is allowed")
    void maxResponseBytes() {
        assertThatThrownBy(() -> Idem.builder().maxResponseBytes(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxResponseBytes")
                .hasMessageContaining("-1");
        assertThat(Idem.builder().store(store).maxResponseBytes(0).build().maxResponseBytes()).isZero();
    }

    @Test
    @DisplayName("null policies, clock and listener are rejected")
    void nullCollaborators() {
        assertThatThrownBy(() -> Idem.builder().inFlightPolicy(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Idem.builder().storagePolicy(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Idem.builder().clock(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Idem.builder().listener(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("toBuilder copies every setting, and a variant leaves the original unchanged")
    void toBuilder() {
        Idem original = Idem.builder().store(store).lease(Duration.ofSeconds(7)).retention(Duration.ofHours(1))
                .maxResponseBytes(123).renewLeases(false).build();

        Idem copy = original.toBuilder().build();
        Idem variant = original.toBuilder().lease(Duration.ofSeconds(9)).build();

        assertThat(copy.toString()).isEqualTo(original.toString());
        assertThat(variant.lease()).isEqualTo(Duration.ofSeconds(9));
        assertThat(original.lease()).isEqualTo(Duration.ofSeconds(7));
        assertThat(variant.retention()).isEqualTo(Duration.ofHours(1));
        assertThat(variant.maxResponseBytes()).isEqualTo(123);
        assertThat(variant.renewLeases()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT-1S"})
    @DisplayName("waitUpTo needs a positive wait; reject() is the way not to wait")
    void waitUpToNotPositive(String text) {
        Duration wait = Duration.parse(text);
        assertThatThrownBy(() -> InFlightPolicy.waitUpTo(wait))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(wait.toString())
                .hasMessageContaining("reject()");
        assertThatThrownBy(() -> InFlightPolicy.waitUpTo(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("reject() does not wait; waitUpTo waits for the given time")
    void inFlightPolicies() {
        assertThat(InFlightPolicy.reject().waits()).isFalse();
        InFlightPolicy wait = InFlightPolicy.waitUpTo(Duration.ofSeconds(2));
        assertThat(wait.waits()).isTrue();
        assertThat(wait.maxWait()).isEqualTo(Duration.ofSeconds(2));
        assertThat(wait.toString()).contains("PT2S");
    }

    @Test
    @DisplayName("the default storage policy stores statuses below 500, no 5xx")
    void defaultStoragePolicy() {
        StoragePolicy policy = StoragePolicy.defaults();
        assertThat(policy.stores(StoredResponse.of(201, new byte[0]))).isTrue();
        assertThat(policy.stores(StoredResponse.of(422, new byte[0]))).isTrue();
        assertThat(policy.stores(StoredResponse.of(499, new byte[0]))).isTrue();
        assertThat(policy.stores(StoredResponse.of(500, new byte[0]))).isFalse();
        assertThat(policy.stores(StoredResponse.of(503, new byte[0]))).isFalse();
    }

    @Test
    @DisplayName("a storage policy by status decides by status and describes itself")
    void customStoragePolicy() {
        StoragePolicy only2xx = StoragePolicy.storeStatuses(s -> s / 100 == 2, "2xx");
        assertThat(only2xx.stores(StoredResponse.of(200, new byte[0]))).isTrue();
        assertThat(only2xx.stores(StoredResponse.of(404, new byte[0]))).isFalse();
        assertThat(only2xx.toString()).contains("2xx");
        assertThatThrownBy(() -> StoragePolicy.storeStatuses(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> StoragePolicy.storeStatuses(s -> true, null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 100_001})
    @DisplayName("Sweeper batchSize outside 1-100000 is rejected with the bad value")
    void sweeperBatchSize(int batchSize) {
        assertThatThrownBy(() -> Sweeper.builder(store).batchSize(batchSize))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batchSize")
                .hasMessageContaining(String.valueOf(batchSize));
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT-1M", "PT0.0005S"})
    @DisplayName("Sweeper interval under 1 ms is rejected with the bad value")
    void sweeperInterval(String text) {
        Duration interval = Duration.parse(text);
        assertThatThrownBy(() -> Sweeper.builder(store).interval(interval))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interval")
                .hasMessageContaining(interval.toString());
    }

    @Test
    @DisplayName("Sweeper needs a store, at least one batch per run and non-null settings")
    void sweeperOtherSettings() {
        assertThatThrownBy(() -> Sweeper.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Sweeper.builder(store).maxBatchesPerRun(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> Sweeper.builder(store).interval(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Sweeper.builder(store).listener(null)).isInstanceOf(NullPointerException.class);
        assertThat(Sweeper.builder(store).batchSize(1).batchSize(100_000).interval(Duration.ofMillis(1)).build()).isNotNull();
    }
}
