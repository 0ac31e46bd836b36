package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.Dialect;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.testing.NatsCluster;
import dev.idem.testing.RealServices;
import dev.idem.testing.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The store samples of docs/stores.md, run as printed on SQLite, the machine's Redis, a real Redis Cluster and a three-node NATS cluster. */
class StoreSamplesTest {
    private static final Fingerprint FINGERPRINT = Fingerprint.none();

    @Test
    @DisplayName("stores-sqlite: data/idem.db (under the test's working folder) in WAL mode carries the engine")
    void sqlite() throws Exception {
        Files.createDirectories(Path.of("data"));
        StoreSamples.OnSqlite sample = StoreSamples.sqlite();
        try {
            sample.store().migrate();
            Idem idem = Idem.builder().store(sample.store()).build();

            assertThat(sample.store().dialect()).isEqualTo(Dialect.SQLITE);
            assertThat(runTwice(idem)).isInstanceOf(Outcome.Replayed.class);
        } finally {
            sample.dataSource().close();
            for (String suffix : List.of("", "-wal", "-shm")) {
                Files.deleteIfExists(Path.of("data/idem.db" + suffix));
            }
        }
    }

    /**
     * The sample's comment holds on whichever Redis the tests use: one without the append-only file
     * (the machine's runs with {@code appendonly no}) is refused by name, one with it carries the engine.
     */
    @Test
    @DisplayName("stores-coalesce: the switch turns coalesced commits on where the dialect leaves them off")
    void coalesced() {
        try (dev.idem.testing.TestDatabase db = dev.idem.testing.RealServices.postgres()) {
            assertThat(dev.idem.jdbc.JdbcIdempotencyStore.builder(db.dataSource()).build().coalescesCommits()).isFalse();
            assertThat(StoreSamples.coalesced(db.dataSource()).coalescesCommits()).isTrue();
        }
    }

    @Test
    @DisplayName("stores-retention-by-partition: migrate() creates the table partitioned, and the store claims and replays on it")
    void partitioned() {
        try (dev.idem.testing.TestDatabase db = dev.idem.testing.RealServices.postgres()) {
            dev.idem.jdbc.JdbcIdempotencyStore store = StoreSamples.partitioned(db.dataSource());
            assertThat(store.retentionPartitions().orElseThrow().partitioned()).isTrue();
            assertThat(store.retentionPartitions().orElseThrow().partitions()).hasSizeGreaterThan(8 * 4);
            dev.idem.spi.RecordKey id = new dev.idem.spi.RecordKey(Scope.of("alice", "POST /x"), IdempotencyKey.of("k"));
            Fingerprint fp = Fingerprint.builder().part("body", "b").build();
            java.time.Duration day = java.time.Duration.ofDays(1);
            var acquired = (dev.idem.spi.ClaimOutcome.Acquired) store.claim(new dev.idem.spi.ClaimRequest(id, fp, day, day));
            StoredResponse response = StoredResponse.of(201, java.util.Map.of(), new byte[] {1});
            store.complete(id, acquired.token(), response, day);
            assertThat(store.claim(new dev.idem.spi.ClaimRequest(id, fp, day, day))).isEqualTo(new dev.idem.spi.ClaimOutcome.Replay(response));
        }
    }

    @Test
    @DisplayName("stores-redis: refuses a Redis that forgets keys on restart, and replays on one that keeps them")
    void redis() {
        String url = RealServices.redisUri();
        if (!appendOnly(url)) {
            assertThatThrownBy(() -> StoreSamples.redis(url)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("appendonly");
            return;
        }
        StoreSamples.OnRedis sample = StoreSamples.redis(url);
        try {
            assertThat(runTwice(sample.idem())).isInstanceOf(Outcome.Replayed.class);
        } finally {
            sample.store().close();
            sample.client().shutdown();
        }
    }

    @Test
    @DisplayName("stores-redis-cluster: two of the nodes find the whole cluster, and one replica acknowledges each write")
    void redisCluster() {
        List<String> nodes = RedisCluster.shared().nodeUris();

        try (RedisIdempotencyStore store = StoreSamples.redisCluster(nodes.get(0), nodes.get(1))) {
            assertThat(store.cluster()).isTrue();
            assertThat(store.acknowledgingReplicas()).isEqualTo(1);
            assertThat(runTwice(Idem.builder().store(store).build())).isInstanceOf(Outcome.Replayed.class);
        }
    }

    @Test
    @DisplayName("stores-nats-kv: creates the bucket with three replicas on a three-node cluster, and replays")
    void natsKv() throws Exception {
        Options options = new Options.Builder().servers(NatsCluster.shared().clientUrls().toArray(new String[0]))
                .errorListener(new io.nats.client.ErrorListener() { }).build();
        try (Connection nats = Nats.connect(options); NatsKvIdempotencyStore store = StoreSamples.natsKv(nats)) {
            try {
                assertThat(nats.keyValueManagement().getStatus(store.bucket()).getReplicas()).isEqualTo(3);
                assertThat(runTwice(Idem.builder().store(store).build())).isInstanceOf(Outcome.Replayed.class);
            } finally {
                nats.keyValueManagement().delete(store.bucket());
            }
        }
    }

    private static Outcome runTwice(Idem idem) {
        Scope scope = Scope.of("alice", "POST /payments");
        IdempotencyKey key = IdempotencyKey.of("docs-" + UUID.randomUUID());
        idem.execute(scope, key, FINGERPRINT, run -> StoredResponse.of(201, new byte[] {1}));
        return idem.execute(scope, key, FINGERPRINT, run -> StoredResponse.of(201, new byte[] {2}));
    }

    private static boolean appendOnly(String url) {
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return "yes".equals(connection.sync().configGet("appendonly").get("appendonly"));
        } finally {
            client.shutdown();
        }
    }
}
