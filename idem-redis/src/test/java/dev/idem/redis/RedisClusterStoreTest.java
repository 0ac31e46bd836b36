package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import dev.idem.testing.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Redis store on a real cluster: slots, replica acknowledgement, and what the cluster builder accepts. */
class RedisClusterStoreTest {
    private static final Duration LONG = Duration.ofMinutes(10);
    private static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "{}").build();
    private static final StoredResponse PAID = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));

    private static RedisCluster cluster;
    private static RedisClusterClient admin;
    private static StatefulRedisClusterConnection<String, String> adminConnection;
    private final String prefix = RedisTests.freshPrefix();
    private final List<RedisIdempotencyStore> stores = new ArrayList<>();

    @BeforeAll
    static void connect() {
        cluster = RedisClusterTests.cluster();
        admin = RedisClusterClient.create(RedisClusterTests.uris(cluster, Duration.ofSeconds(10)));
        adminConnection = admin.connect();
    }

    @AfterAll
    static void disconnect() {
        if (admin != null) {
            adminConnection.close();
            admin.shutdown();
        }
    }

    @AfterEach
    void deleteKeys() {
        stores.forEach(RedisIdempotencyStore::close);
        if (!stores.isEmpty()) {
            RedisClusterTests.deleteKeys(prefix);
        }
    }

    private RedisIdempotencyStore.Builder builder() {
        return RedisIdempotencyStore.clusterBuilder(RedisClusterTests.uris(cluster, Duration.ofSeconds(5))).keyPrefix(prefix);
    }

    private RedisIdempotencyStore open(RedisIdempotencyStore.Builder builder) {
        RedisIdempotencyStore store = builder.build();
        stores.add(store);
        return store;
    }

    private static RecordKey id(String key) {
        return new RecordKey(Scope.of("alice", "POST /payments"), IdempotencyKey.of(key));
    }

    private static List<RedisClusterNode> masters(Partitions partitions) {
        return partitions.stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.hasNoSlots()).toList();
    }

    // ---- slots -----------------------------------------------------------------------------------

    @Test
    @DisplayName("a record and its shard's index share a hash slot, and the 256 shards land on all three masters")
    void oneSlotPerRecordAndShardsOnEveryMaster() {
        KeyLayout layout = new KeyLayout(prefix);
        for (int i = 0; i < 2000; i++) {
            KeyLayout.Keys keys = layout.of(id("layout-" + i));
            assertThat(SlotHash.getSlot(keys.index())).isEqualTo(SlotHash.getSlot(keys.record()));
        }
        Partitions partitions = admin.getPartitions();
        Map<String, Integer> shardsPerMaster = new LinkedHashMap<>();
        for (int shard = 0; shard < KeyLayout.SHARDS; shard++) {
            RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(layout.index(shard)));
            shardsPerMaster.merge(master.getUri().getPort() + "", 1, Integer::sum);
        }
        System.out.println("[cluster] shards per master (port: shards of 256): " + shardsPerMaster);
        assertThat(shardsPerMaster).hasSize(3);
    }

    /**
     * 10,000 records claimed through the store, then counted on each master by SCAN: each master
     * holds between 25 % and 42 % of them.
     */
    @Test
    @DisplayName("10,000 records spread over the three masters, each with 25 % to 42 % of them")
    void tenThousandKeysSpreadOverAllThreeMasters() throws Exception {
        RedisIdempotencyStore store = open(builder());
        int total = 10_000;
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        assertThat(store.claim(new ClaimRequest(id("spread-" + i), FINGERPRINT, LONG, LONG)))
                                .isInstanceOf(ClaimOutcome.Acquired.class);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdown();
        }

        Map<Integer, Integer> perMaster = new LinkedHashMap<>();
        for (RedisClusterNode master : masters(admin.getPartitions())) {
            RedisURI uri = RedisURI.create(master.getUri().getHost(), master.getUri().getPort());
            try (StatefulRedisConnection<String, String> node = io.lettuce.core.RedisClient.create(uri).connect()) {
                perMaster.put(uri.getPort(), countRecords(node, prefix));
            }
        }
        StringBuilder figures = new StringBuilder("[cluster] 10,000 records per master:");
        perMaster.forEach((port, n) -> figures.append(String.format(" %d: %d (%.1f %%);", port, n, 100.0 * n / total)));
        System.out.println(figures);
        assertThat(perMaster).hasSize(3);
        assertThat(perMaster.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(total);
        assertThat(perMaster.values()).allSatisfy(n -> assertThat(100.0 * n / total).isBetween(25.0, 42.0));
    }

    private static int countRecords(StatefulRedisConnection<String, String> node, String prefix) {
        ScanArgs args = ScanArgs.Builder.matches(prefix + "*r:*").limit(1000);
        KeyScanCursor<String> cursor = node.sync().scan(args);
        int n = cursor.getKeys().size();
        while (!cursor.isFinished()) {
            cursor = node.sync().scan(ScanCursor.of(cursor.getCursor()), args);
            n += cursor.getKeys().size();
        }
        return n;
    }

    // ---- replica acknowledgement ------------------------------------------------------------------

    @Test
    @DisplayName("on a cluster, one replica acknowledges every write by default")
    void clusterDefaultsToOneAcknowledgingReplica() {
        RedisIdempotencyStore store = open(builder());
        assertThat(store.cluster()).isTrue();
        assertThat(store.acknowledgingReplicas()).isEqualTo(1);
        assertThat(open(builder().noReplicaAcknowledgement()).acknowledgingReplicas()).isZero();
    }

    @Test
    @DisplayName("build() refuses to wait for more replicas than each master has, saying how many it has")
    void refusesMoreReplicasThanEachMasterHas() {
        assertThatThrownBy(() -> builder().replicaAcknowledgement(2, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("replica acknowledgement needs 2 replica(s) per master")
                .hasMessageContaining("has 1 connected")
                .hasMessageContaining("noReplicaAcknowledgement()");
        assertThatThrownBy(() -> builder().replicaAcknowledgement(1, Duration.ofSeconds(5)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("must be shorter than the connection's command timeout");
    }

    /**
     * The replica of the key's master sleeps ({@code DEBUG SLEEP}), so {@code WAIT} times out: the
     * claim is released and reported as a retryable store failure, and the operation never runs.
     * Once the replica is back, the same key runs once. A completion the replica does not acknowledge
     * is reported as a failure too, though the master holds it.
     */
    @Test
    @DisplayName("a claim no replica acknowledged in time is released and fails retryably, never runs; a completion likewise fails")
    void unreplicatedClaimIsReleasedAndNeverRuns() throws Exception {
        RedisIdempotencyStore store = open(builder().replicaAcknowledgement(1, Duration.ofMillis(200)));
        Idem idem = Idem.builder().store(store).build();
        RecordKey id = id("not-replicated");
        int replica = replicaOfMasterOf(new KeyLayout(prefix).of(id).record());
        AtomicInteger runs = new AtomicInteger();

        Thread sleeper = sleep(replica, "1.5");
        assertThatThrownBy(() -> idem.execute(id.scope(), id.key(), FINGERPRINT, run -> {
            runs.incrementAndGet();
            return PAID;
        })).isInstanceOf(StoreException.class)
                .hasMessageContaining("claim failed")
                .hasMessageContaining("not replicated in time: only 0 of 1 replica(s) acknowledged the write within 200 ms")
                .hasMessageContaining("the claim was released and nothing ran; retry with the same key");
        assertThat(runs).hasValue(0);
        sleeper.join();

        Outcome outcome = idem.execute(id.scope(), id.key(), FINGERPRINT, run -> {
            runs.incrementAndGet();
            return PAID;
        });
        assertThat(outcome).isEqualTo(new Outcome.Executed(PAID, true, 1));
        assertThat(runs).hasValue(1);

        RecordKey completing = id("completion-not-replicated");
        ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(completing, FINGERPRINT, LONG, LONG));
        sleeper = sleep(replicaOfMasterOf(new KeyLayout(prefix).of(completing).record()), "1.5");
        assertThatThrownBy(() -> store.complete(completing, owner.token(), PAID, LONG))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("complete failed")
                .hasMessageContaining("not replicated in time")
                .hasMessageContaining("the operation ran, so answer the caller with a retryable error");
        sleeper.join();
        assertThat(store.find(completing)).hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
    }

    /**
     * Payments whose phase {@code create} finished before they failed: their lease is ended, so the
     * next call takes over with the recovery point. With the replica frozen that takeover claim is not
     * acknowledged and fails; it must not be released (a release deletes the recovery point), only
     * its lease ended. The record still holds {@code create}, and the retry after the replica is back
     * resumes after it: {@code create} ran once per payment, {@code capture} once.
     */
    @Test
    @DisplayName("an unacknowledged takeover claim keeps its recovery point: the retry resumes and the finished phase never runs again")
    void unreplicatedTakeoverKeepsItsRecoveryPoint() throws Exception {
        RedisIdempotencyStore store = open(builder().replicaAcknowledgement(1, Duration.ofMillis(200)));
        Idem idem = Idem.builder().store(store).build();
        int payments = 3;
        List<RecordKey> ids = new ArrayList<>();
        AtomicInteger creates = new AtomicInteger();
        AtomicInteger captures = new AtomicInteger();
        for (int i = 0; i < payments; i++) {
            RecordKey id = id("takeover-not-replicated-" + i);
            ids.add(id);
            assertThatThrownBy(() -> idem.execute(id.scope(), id.key(), FINGERPRINT, run -> {
                run.phase("create", downstream -> "payment-" + creates.incrementAndGet());
                throw new IllegalStateException("the gateway is down");
            })).isInstanceOf(IllegalStateException.class);
            assertThat(store.find(id)).hasValueSatisfying(r -> assertThat(r.recoveryPoint()).map(RecoveryPoint::phase).contains("create"));
        }

        for (RecordKey id : ids) {
            Thread sleeper = sleep(replicaOfMasterOf(new KeyLayout(prefix).of(id).record()), "1.5");
            assertThatThrownBy(() -> idem.execute(id.scope(), id.key(), FINGERPRINT, run -> {
                captures.incrementAndGet();
                return PAID;
            })).isInstanceOf(StoreException.class)
                    .hasMessageContaining("not replicated in time")
                    .hasMessageContaining("the claim's lease was ended, keeping its finished phases, and nothing ran");
            sleeper.join();
            assertThat(store.find(id)).hasValueSatisfying(r -> {
                assertThat(r.state()).isEqualTo(RecordState.IN_PROGRESS);
                assertThat(r.recoveryPoint()).map(RecoveryPoint::phase).contains("create");
            });
        }
        assertThat(captures).hasValue(0);

        for (RecordKey id : ids) {
            Outcome outcome = idem.execute(id.scope(), id.key(), FINGERPRINT, run -> {
                assertThat(run.resumed()).isTrue();
                run.phase("create", downstream -> "payment-" + creates.incrementAndGet());
                captures.incrementAndGet();
                return PAID;
            });
            assertThat(outcome).isInstanceOfSatisfying(Outcome.Executed.class, e -> assertThat(e.response()).isEqualTo(PAID));
        }
        assertThat(creates).hasValue(payments);
        assertThat(captures).hasValue(payments);
    }

    /** Puts the node at {@code port} to sleep for {@code seconds} and returns once it sleeps. */
    private static Thread sleep(int port, String seconds) throws Exception {
        assumeTrue(cluster.owned(), "DEBUG SLEEP needs a cluster started by the tests (enable-debug-command), not IDEM_REDIS_CLUSTER");
        Thread sleeper = new Thread(() -> {
            try {
                cluster.cli(port, "debug", "sleep", seconds);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        sleeper.start();
        Thread.sleep(150);
        return sleeper;
    }

    private static int replicaOfMasterOf(byte[] key) {
        admin.refreshPartitions();
        Partitions partitions = admin.getPartitions();
        RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(key));
        return partitions.stream().filter(n -> master.getNodeId().equals(n.getSlaveOf())).findFirst()
                .orElseThrow(() -> new IllegalStateException("master " + master.getUri() + " has no replica")).getUri().getPort();
    }

    // ---- the builder ------------------------------------------------------------------------------

    @Test
    @DisplayName("clusterBuilder refuses no nodes, a null node, a Sentinel URI, a socket and a database other than 0")
    void clusterBuilderValidatesItsInput() {
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name at least one node");
        List<RedisURI> withNull = new ArrayList<>();
        withNull.add(RedisURI.create("redis://127.0.0.1:7101"));
        withNull.add(null);
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(withNull))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster node 2 is null");
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of(RedisURI.create("redis-sentinel://127.0.0.1:26379#mymaster"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a Sentinel URI");
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of(RedisURI.create("redis-socket:///tmp/redis.sock"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Unix socket");
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of(RedisURI.create("redis://127.0.0.1:7101/3"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only database 0");
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of(RedisURI.create("redis://127.0.0.1:7101"))).keyPrefix("a{b}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("brace");
        assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of(RedisURI.create("redis://127.0.0.1:7101")))
                .replicaAcknowledgement(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas must be 0 (off) to 16");
        assertThatThrownBy(() -> RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:6379")).topologyRefreshPeriod(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("clusterBuilder");
    }

    @Test
    @DisplayName("a completed record replays from a second store on the cluster, whichever master holds it")
    void completedRecordsReplayFromAnotherStore() {
        RedisIdempotencyStore first = open(builder());
        RedisIdempotencyStore second = open(builder());
        Set<Integer> ports = new TreeSet<>();
        for (int i = 0; i < 30; i++) {
            RecordKey id = id("replay-" + i);
            ClaimRequest request = new ClaimRequest(id, FINGERPRINT, LONG, LONG);
            ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) first.claim(request);
            first.complete(id, owner.token(), PAID, LONG);
            assertThat(second.claim(request)).isEqualTo(new ClaimOutcome.Replay(PAID));
            ports.add(admin.getPartitions().getMasterBySlot(SlotHash.getSlot(new KeyLayout(prefix).of(id).record())).getUri().getPort());
        }
        assertThat(ports).hasSize(3);
    }
}
