package dev.idem.nats.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the store checks at start and refuses on the way, on the three-node cluster and the machine's single server. */
class NatsKvStoreTest {
    private static final Fingerprint FP = Fingerprint.builder().part("body", "x").build();

    @Test
    @DisplayName("a bucket with fewer replicas than the cluster can give is refused, naming the setting and the fix; WARN builds")
    void tooFewReplicasRefused() throws Exception {
        Connection connection = NatsKvTests.connect(NatsCluster.shared());
        String bucket = NatsKvTests.freshBucket();
        try {
            assertThatThrownBy(() -> NatsKvIdempotencyStore.builder(connection).bucket(bucket).createBucket(1, NatsKvTests.MAX_AGE).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has 1 replica(s) (replicas: 1) where the cluster can give 3")
                    .hasMessageContaining("--replicas 3");
            NatsKvIdempotencyStore warned = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                    .replicationCheck(ReplicationCheck.WARN).build();
            assertThat(warned.claim(request("warned"))).isInstanceOf(ClaimOutcome.Acquired.class);
        } finally {
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("a memory-backed bucket is refused, naming the setting and the fix")
    void memoryBucketRefused() throws Exception {
        Connection connection = NatsKvTests.connect(NatsCluster.shared());
        String bucket = NatsKvTests.freshBucket();
        try {
            connection.keyValueManagement().create(KeyValueConfiguration.builder().name(bucket).replicas(3)
                    .storageType(StorageType.Memory).ttl(NatsKvTests.MAX_AGE).build());
            assertThatThrownBy(() -> NatsKvIdempotencyStore.builder(connection).bucket(bucket).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("(storage: memory)")
                    .hasMessageContaining("--storage file");
        } finally {
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("a replicated bucket whose followers answer reads (allow_direct) is refused: an owner would read an old revision")
    void directGetsRefused() throws Exception {
        Connection connection = NatsKvTests.connect(NatsCluster.shared());
        String bucket = NatsKvTests.freshBucket();
        try {
            connection.keyValueManagement().create(KeyValueConfiguration.builder().name(bucket).replicas(3)
                    .storageType(StorageType.File).ttl(NatsKvTests.MAX_AGE).build());
            assertThatThrownBy(() -> NatsKvIdempotencyStore.builder(connection).bucket(bucket).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("allow_direct: true on stream KV_" + bucket)
                    .hasMessageContaining("allow_direct: false");
        } finally {
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("a missing bucket is refused with the command that creates it")
    void missingBucketRefused() {
        Connection connection = NatsKvTests.connect(NatsCluster.shared());
        try {
            assertThatThrownBy(() -> NatsKvIdempotencyStore.builder(connection).bucket(NatsKvTests.freshBucket()).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not exist")
                    .hasMessageContaining("--replicas 3 --storage file");
        } finally {
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("a retention longer than the bucket keeps entries is refused before anything is written")
    void retentionPastMaxAgeRefused() {
        Connection connection = NatsKvTests.connect(NatsCluster.shared());
        String bucket = NatsKvTests.freshBucket();
        try {
            NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                    .createBucket(3, Duration.ofHours(1)).build();
            RecordKey id = id("too-long");
            assertThatThrownBy(() -> store.claim(new ClaimRequest(id, FP, Duration.ofSeconds(30), Duration.ofHours(2))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("retention asked for (PT2H)")
                    .hasMessageContaining("max age PT1H");
            assertThat(store.find(id)).isEmpty();
        } finally {
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("on a server with the default 1 MiB max_payload, a larger response is refused, naming both sizes, and nothing is written")
    void responseOverMaxPayloadRefused() {
        Connection connection = NatsKvTests.connectSingle();
        String bucket = NatsKvTests.freshBucket();
        try {
            NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                    .createBucket(1, NatsKvTests.MAX_AGE).replicationCheck(ReplicationCheck.SKIP).build();
            long limit = connection.getMaxPayload();
            RecordKey id = id("large");
            ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) store.claim(request("large"));
            StoredResponse large = StoredResponse.of(200, new byte[(int) limit + 17]);
            assertThatThrownBy(() -> store.complete(id, owner.token(), large, Duration.ofHours(1)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("max_payload")
                    .hasMessageContaining("nothing was written");
            assertThat(store.find(id).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
            StoredResponse small = StoredResponse.of(200, new byte[1000]);
            store.complete(id, owner.token(), small, Duration.ofHours(1));
            assertThat(store.claim(request("large"))).isEqualTo(new ClaimOutcome.Replay(small));
        } finally {
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }

    @Test
    @DisplayName("key names are valid NATS keys for any scope and key, and differ where the length-prefixed pairs differ")
    void keyNamesAreSafeAndInjective() {
        List<RecordKey> ids = List.of(
                new RecordKey(Scope.of("a b", "c"), IdempotencyKey.of("d")),
                new RecordKey(Scope.of("a", "b c"), IdempotencyKey.of("d")),
                new RecordKey(Scope.of("a", "b"), IdempotencyKey.of("c|d")),
                new RecordKey(Scope.of("a", "b|c"), IdempotencyKey.of("d")),
                new RecordKey(Scope.of("ünï*>.", "POST /x"), IdempotencyKey.of("k.>*")),
                new RecordKey(Scope.of("ünï*>.", "POST /x"), IdempotencyKey.of("k.>")));
        Set<String> names = new HashSet<>();
        for (RecordKey id : ids) {
            String name = NatsKvIdempotencyStore.keyName(id);
            assertThat(name).matches("r\\.[A-Za-z0-9_-]{43}");
            names.add(name);
        }
        assertThat(names).hasSize(ids.size());
    }

    private static RecordKey id(String key) {
        return new RecordKey(Scope.of("kv-store-test", "POST /x"), IdempotencyKey.of(key));
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(id(key), FP, Duration.ofSeconds(30), Duration.ofHours(1));
    }
}
