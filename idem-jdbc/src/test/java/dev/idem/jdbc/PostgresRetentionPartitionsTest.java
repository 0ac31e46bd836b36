package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.RecordKey;
import dev.idem.testing.Concurrently;
import dev.idem.testing.TestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Retention by partition on PostgreSQL: the contract, the layout migrate() creates, and the live conversion of an unpartitioned table. */
class PostgresRetentionPartitionsTest extends RetentionPartitionsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }

    @Test
    @DisplayName("migrate() creates the table partitioned by expires_at, without a DEFAULT partition, with partitions past the horizon")
    void migrateCreatesPartitionedTable() throws SQLException {
        JdbcIdempotencyStore store = partitioned(Duration.ofMinutes(10), Duration.ofHours(1));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        long now = dbNow();
        List<RetentionPartitions.Partition> list = partitions.partitions();
        assertThat(partitions.partitioned()).isTrue();
        assertThat(list.get(0).from()).isLessThanOrEqualTo(now);
        assertThat(list.get(list.size() - 1).to()).isGreaterThanOrEqualTo(now + Duration.ofHours(1).toMillis());
        for (int i = 1; i < list.size(); i++) {
            assertThat(list.get(i).from()).as("contiguous").isEqualTo(list.get(i - 1).to());
        }
        assertThat(single("SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'idem_record'::regclass")).isEqualTo("r");
        assertThat(single("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'idem_record'::regclass AND partdefid <> 0"))
                .isEqualTo("0");
        // A second migrate (another instance starting) changes nothing.
        store.migrate();
        assertThat(partitions.partitions()).hasSize(list.size());
    }

    @Test
    @DisplayName("the builder refuses a layout it cannot keep: SQLite, coalesced commits, a horizon shorter than a partition")
    void builderRefusesWhatItCannotKeep() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("horizon");
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1))
                .coalesceCommits(true).build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("coalesceCommits");
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).purgeRowsBetweenDrops(true))
                .isInstanceOf(IllegalStateException.class);
        try (TestDatabase sqlite = Backends.SQLITE.open()) {
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(sqlite.dataSource()).retentionByPartition(Duration.ofHours(1)).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("PostgreSQL");
        }
    }

    // ---- the per-key lock ---------------------------------------------------------------------

    @Test
    @DisplayName("converting a live unpartitioned table under concurrent claims keeps every record and never acquires a key twice")
    void convertUnderLoad() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        RecordKey done = key("done-before");
        store(before, done, "before", Duration.ofMinutes(10));
        RecordKey running = key("running-before");
        claim(before, running, Duration.ofMinutes(10), Duration.ofMinutes(10));
        // Every instance switches to the layout first; the table is still the old one, purged row by row.
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofSeconds(1), Duration.ofSeconds(30)).build();
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        assertThat(partitions.partitioned()).isFalse();
        assertThat(claim(store, done, Duration.ofSeconds(5), Duration.ofSeconds(5))).isEqualTo(new ClaimOutcome.Replay(body("before")));
        assertThat(store.purge(10)).isZero();

        int keys = 150;
        Map<Integer, AtomicInteger> acquired = new ConcurrentHashMap<>();
        AtomicInteger claimsAfter = new AtomicInteger();
        AtomicBoolean converted = new AtomicBoolean();
        CyclicBarrier halfway = new CyclicBarrier(5);
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            tasks.add(() -> {
                // The second round goes on until it has made a whole pass after the conversion.
                for (int round = 0, passesAfter = 0; round < 2 || passesAfter < 1; round++) {
                    boolean after = converted.get();
                    for (int i = 0; i < keys; i++) {
                        RecordKey id = key("load-" + i);
                        ClaimOutcome outcome = claim(store, id, Duration.ofMinutes(1), Duration.ofMinutes(1));
                        if (outcome instanceof ClaimOutcome.Acquired a) {
                            acquired.computeIfAbsent(i, n -> new AtomicInteger()).incrementAndGet();
                            store.complete(id, a.token(), body("load-" + i), Duration.ofMinutes(1));
                        }
                        if (converted.get()) {
                            claimsAfter.incrementAndGet();
                        }
                    }
                    if (round == 0) {
                        halfway.await(30, TimeUnit.SECONDS);
                    }
                    if (after) {
                        passesAfter++;
                    }
                }
                return null;
            });
        }
        tasks.add(() -> {
            halfway.await(30, TimeUnit.SECONDS);
            partitions.convert();
            converted.set(true);
            return null;
        });
        Concurrently.callAll(tasks);

        assertThat(partitions.partitioned()).isTrue();
        assertThat(partitions.partitions().get(0).from()).as("the old table is the first partition").isNull();
        assertThat(claimsAfter.get()).isPositive();
        assertThat(acquired).hasSize(keys);
        assertThat(acquired.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        for (int i = 0; i < keys; i++) {
            assertThat(claim(store, key("load-" + i), Duration.ofSeconds(1), Duration.ofSeconds(1)))
                    .isEqualTo(new ClaimOutcome.Replay(body("load-" + i)));
        }
        assertThat(claim(store, done, Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("before")));
        assertThat(claim(store, running, Duration.ofSeconds(1), Duration.ofSeconds(1))).isInstanceOf(ClaimOutcome.InProgress.class);
        RecordKey fresh = key("after");
        store(store, fresh, "after", Duration.ofMinutes(1));
        assertThat(duplicates()).isZero();
        // Converting again changes nothing.
        int count = partitions.partitions().size();
        partitions.convert();
        assertThat(partitions.partitions()).hasSize(count);
    }

    @Test
    @DisplayName("after a conversion the old table is dropped whole once its cut-over has passed; a record whose expiry moved out survives")
    void convertedTableIsDroppedOnceItsCutOverPasses() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        store(before, key("old"), "old", Duration.ofMillis(300));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofMillis(500), Duration.ofSeconds(2)).build();
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        partitions.convert();
        RetentionPartitions.Partition legacy = partitions.partitions().get(0);
        assertThat(legacy.from()).isNull();
        // Claimed after the conversion with an expiry before the cut-over: into the old table; its completion moves it out.
        RecordKey moving = key("moving");
        ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) claim(store, moving, Duration.ofMillis(500), Duration.ofMillis(500));
        assertThat(partitionOf(store, moving)).isEqualTo(legacy.name());
        // Another instance with a longer horizon has made partitions further ahead; a completion moves the record there.
        JdbcIdempotencyStore further = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofMillis(500), Duration.ofSeconds(30)).build();
        further.retentionPartitions().orElseThrow().maintain();
        store.complete(moving, a.token(), body("moved"), Duration.ofSeconds(20));
        assertThat(partitionOf(store, moving)).isNotEqualTo(legacy.name());
        awaitDbTimePast(legacy.to());
        store.purge(100);
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).doesNotContain(legacy.name());
        assertThat(claim(store, moving, Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("moved")));
        assertThat(store.find(key("old"))).isEmpty();
    }


    @Test
    @DisplayName("a conversion that stopped before its swap is completed by the next: the unused new parent is made again")
    void convertAfterAnAttemptThatStoppedHalfWay() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        store(before, key("kept"), "kept", Duration.ofMinutes(1));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofSeconds(10), Duration.ofMinutes(5)).build();
        // What a run that died after making its parent leaves (its shape does not matter: nothing ever wrote to it).
        exec("CREATE TABLE idem_record_parted (leftover int) PARTITION BY RANGE (leftover)");
        store.retentionPartitions().orElseThrow().convert();
        assertThat(store.retentionPartitions().orElseThrow().partitioned()).isTrue();
        assertThat(claim(store, key("kept"), Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("kept")));
        store(store, key("new"), "new", Duration.ofMinutes(1));
        assertThat(duplicates()).isZero();
    }
}
