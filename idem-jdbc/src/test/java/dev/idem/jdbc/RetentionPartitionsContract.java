package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.Concurrently;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Retention by partition on a real database: the per-key lock across a partition boundary, drops under
 * concurrent claims, moving expiries, a live lease keeping its partition. A backend's test says which
 * database and adds what only it has.
 */
abstract class RetentionPartitionsContract {
    private static final Scope SCOPE = Scope.of("partitions", "POST /p");
    private static final Fingerprint FP = Fingerprint.builder().part("body", "a").build();

    protected TestDatabase db;

    protected abstract Backends backend();

    @BeforeEach
    void open() {
        db = backend().open();
    }

    @AfterEach
    void close() {
        db.close();
    }

    protected JdbcIdempotencyStore partitioned(Duration width, Duration horizon) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(width, horizon).build();
        store.migrate();
        return store;
    }

    protected static RecordKey key(String k) {
        return new RecordKey(SCOPE, IdempotencyKey.of(k));
    }

    protected static ClaimOutcome claim(JdbcIdempotencyStore store, RecordKey id, Duration lease, Duration retention) {
        return store.claim(new ClaimRequest(id, FP, lease, retention));
    }

    protected static StoredResponse body(String text) {
        return StoredResponse.of(200, Map.of(), text.getBytes(StandardCharsets.UTF_8));
    }

    // ---- the per-key lock ---------------------------------------------------------------------

    @Test
    @DisplayName("the partitioned table alone accepts a second row for a key; two concurrent claims for a new key whose expiries fall in different partitions never both acquire")
    void boundaryRace() throws Exception {
        JdbcIdempotencyStore store = partitioned(Duration.ofSeconds(1), Duration.ofSeconds(30));
        // Why the lock: the primary key has to contain expires_at, so the table takes a duplicate.
        for (long expiresAt : new long[] {dbNow() + 2_000, dbNow() + 5_000}) {
            exec("INSERT INTO idem_record (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at) "
                    + "VALUES ('s', 'dup', 'f', 1, 1, 1, 0, " + expiresAt + ", 0)");
        }
        assertThat(single("SELECT count(*) FROM idem_record WHERE idem_key = 'dup'")).isEqualTo("2");
        exec("DELETE FROM idem_record WHERE idem_key = 'dup'");

        int keys = 300;
        CyclicBarrier barrier = new CyclicBarrier(2);
        Map<Integer, AtomicInteger> acquired = new ConcurrentHashMap<>();
        List<java.util.concurrent.Callable<Void>> racers = new ArrayList<>();
        for (Duration retention : List.of(Duration.ofMillis(1_200), Duration.ofMillis(4_500))) {
            racers.add(() -> {
                for (int i = 0; i < keys; i++) {
                    barrier.await(10, TimeUnit.SECONDS);
                    if (claim(store, key("race-" + i), Duration.ofSeconds(1), retention) instanceof ClaimOutcome.Acquired) {
                        acquired.computeIfAbsent(i, n -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            });
        }
        Concurrently.callAll(racers);
        assertThat(acquired).hasSize(keys);
        assertThat(acquired.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(duplicates()).isZero();
    }

    @Test
    @DisplayName("a store built without the layout refuses a partitioned table, where it could not keep one record per key")
    void storeWithoutTheLayoutRefusesAPartitionedTable() {
        partitioned(Duration.ofHours(1), Duration.ofHours(2));
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
    }

    // ---- drops --------------------------------------------------------------------------------

    @Test
    @DisplayName("partitions dropped under concurrent claims: no unexpired record is lost and no key is acquired twice")
    void dropsUnderLoad() throws Exception {
        JdbcIdempotencyStore store = partitioned(Duration.ofSeconds(1), Duration.ofSeconds(35));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        Duration longRetention = Duration.ofSeconds(30);
        int longKeys = 100;
        // Per long key, each acquisition's {completion sent, claim answered}, in ms of the clock the database shares with this JVM.
        Map<Integer, List<long[]>> longAcquired = new ConcurrentHashMap<>();
        List<RecordKey> moved = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger dropped = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> maintenanceFailure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread maintainer = new Thread(() -> {
            try {
                while (!done.get()) {
                    dropped.addAndGet(partitions.maintain().dropped());
                    store.purge(1_000);
                }
            } catch (Throwable e) {
                maintenanceFailure.set(e);
            }
        });
        maintainer.start();
        // The claims go on until a partition has been dropped under them (150 operations a thread at least): on a
        // quiet machine 150 take about a second, which a one-second partition may outlive.
        long loadUntil = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        try {
            Concurrently.call(6, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < 150 || (dropped.get() == 0 && System.nanoTime() < loadUntil); n++) {
                    int op = random.nextInt(10);
                    if (op < 4) {
                        int i = random.nextInt(longKeys);
                        RecordKey id = key("long-" + i);
                        ClaimOutcome outcome = claim(store, id, longRetention, longRetention);
                        long answered = System.currentTimeMillis();
                        if (outcome instanceof ClaimOutcome.Acquired a) {
                            long completing = System.currentTimeMillis();
                            store.complete(id, a.token(), body("long-" + i), longRetention);
                            longAcquired.computeIfAbsent(i, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                    .add(new long[] {completing, answered});
                        }
                        assertThat(outcome).isNotInstanceOf(ClaimOutcome.Mismatch.class);
                    } else if (op < 9) {
                        // Churn: short lives that land in partitions which pass and are dropped while claims go on.
                        RecordKey id = key("short-" + random.nextInt(40));
                        Duration life = Duration.ofMillis(20 + random.nextInt(600));
                        if (claim(store, id, life, life) instanceof ClaimOutcome.Acquired a) {
                            try {
                                switch (random.nextInt(3)) {
                                    case 0 -> store.complete(id, a.token(), body("short"), Duration.ofMillis(20 + random.nextInt(600)));
                                    case 1 -> store.release(id, a.token());
                                    default -> { } // abandoned: its lease ends, a later claim takes it over
                                }
                            } catch (dev.idem.LeaseLostException e) {
                                // A lease of a few ms may end before its owner writes: taken over by another thread, or purged.
                            }
                        }
                    } else {
                        // A life that moves: a short claim, renewed past its retention, completed with a long one.
                        RecordKey id = key("moved-" + Thread.currentThread().getId() + "-" + n);
                        ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) claim(store, id, Duration.ofMillis(150), Duration.ofMillis(150));
                        store.renew(id, a.token(), longRetention);
                        store.complete(id, a.token(), body("moved"), longRetention);
                        moved.add(id);
                    }
                }
                return null;
            });
        } finally {
            done.set(true);
            maintainer.join();
        }
        assertThat(maintenanceFailure.get()).isNull();
        assertThat(dropped.get()).as("partitions dropped during the run").isPositive();
        // A key is acquired again only once its completed record has expired: never while it lives.
        assertThat(longAcquired.values()).allSatisfy(acquisitions -> {
            List<long[]> sorted = new ArrayList<>(acquisitions);
            sorted.sort(java.util.Comparator.comparingLong(e -> e[1]));
            for (int k = 1; k < sorted.size(); k++) {
                assertThat(sorted.get(k)[1]).as("acquired again before expiry").isGreaterThanOrEqualTo(sorted.get(k - 1)[0] + longRetention.toMillis());
            }
        });
        for (int i : longAcquired.keySet()) {
            assertThat(claim(store, key("long-" + i), longRetention, longRetention)).isEqualTo(new ClaimOutcome.Replay(body("long-" + i)));
        }
        assertThat(moved).isNotEmpty().allSatisfy(id ->
                assertThat(claim(store, id, longRetention, longRetention)).isEqualTo(new ClaimOutcome.Replay(body("moved"))));
        assertThat(duplicates()).isZero();
    }

    @Test
    @DisplayName("a record whose expiry moves later (renewal past retention, completion, takeover) moves to a later partition and outlives its old one")
    void movingExpiry() throws Exception {
        JdbcIdempotencyStore store = partitioned(Duration.ofMillis(300), Duration.ofSeconds(20));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        RecordKey renewed = key("renewed");
        RecordKey completed = key("completed");
        RecordKey takenOver = key("taken-over");
        ClaimOutcome.Acquired r = (ClaimOutcome.Acquired) claim(store, renewed, Duration.ofMillis(100), Duration.ofMillis(100));
        ClaimOutcome.Acquired c = (ClaimOutcome.Acquired) claim(store, completed, Duration.ofMillis(100), Duration.ofMillis(100));
        ClaimOutcome.Acquired t = (ClaimOutcome.Acquired) claim(store, takenOver, Duration.ofMillis(100), Duration.ofMillis(100));
        Map<RecordKey, String> before = new java.util.HashMap<>();
        for (RecordKey id : List.of(renewed, completed, takenOver)) {
            before.put(id, partitionOf(store, id));
        }
        store.renew(renewed, r.token(), Duration.ofSeconds(10));
        store.complete(completed, c.token(), body("kept"), Duration.ofSeconds(10));
        awaitDbTimePast(t.token() / 1000 + 100);
        ClaimOutcome.Acquired again = (ClaimOutcome.Acquired) claim(store, takenOver, Duration.ofSeconds(10), Duration.ofSeconds(10));
        assertThat(again.token()).isGreaterThan(t.token());
        for (RecordKey id : before.keySet()) {
            assertThat(partitionOf(store, id)).as(id.key().value()).isNotEqualTo(before.get(id));
        }
        long lastTo = partitions.partitions().stream().filter(p -> before.containsValue(p.name()))
                .mapToLong(RetentionPartitions.Partition::to).max().orElseThrow();
        awaitDbTimePast(lastTo);
        partitions.maintain();
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).doesNotContainAnyElementsOf(before.values());
        assertThat(store.find(renewed)).isPresent();
        store.complete(renewed, r.token(), body("late"), Duration.ofSeconds(10));
        assertThat(claim(store, renewed, Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("late")));
        assertThat(claim(store, completed, Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("kept")));
        assertThat(store.find(takenOver).orElseThrow().token()).isEqualTo(again.token());
    }

    @Test
    @DisplayName("by default purge leaves expired rows to their partition's drop, and drops it once its bound has passed")
    void purgeDropsInsteadOfDeleting() throws Exception {
        JdbcIdempotencyStore store = partitioned(Duration.ofMillis(500), Duration.ofSeconds(10));
        RecordKey id = key("short");
        ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) claim(store, id, Duration.ofMillis(50), Duration.ofMillis(50));
        store.complete(id, a.token(), body("x"), Duration.ofMillis(1));
        String partition = partitionOf(store, id);
        awaitDbTimePast(a.token() / 1000 + 20);
        assertThat(store.find(id)).isEmpty();
        long to = store.retentionPartitions().orElseThrow().partitions().stream().filter(p -> p.name().equals(partition)).findFirst()
                .orElseThrow().to();
        if (dbNow() < to) {
            store.purge(100);
            assertThat(single("SELECT count(*) FROM idem_record WHERE idem_key = 'short'")).as("kept for the drop").isEqualTo("1");
        }
        awaitDbTimePast(to);
        store.purge(100);
        assertThat(single("SELECT count(*) FROM idem_record WHERE idem_key = 'short'")).isEqualTo("0");
        assertThat(store.retentionPartitions().orElseThrow().partitions()).extracting(RetentionPartitions.Partition::name)
                .doesNotContain(partition);
    }

    @Test
    @DisplayName("a past partition that still holds a live lease (written without the layout) is kept until the lease ends")
    void liveLeaseKeepsPartition() throws Exception {
        JdbcIdempotencyStore store = partitioned(Duration.ofMillis(300), Duration.ofSeconds(5));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        RetentionPartitions.Partition first = partitions.partitions().get(0);
        exec("INSERT INTO idem_record (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at) "
                + "VALUES ('s', 'old-lease', 'f', 0, 1, 1, " + (dbNow() + 600_000) + ", " + (first.to() - 1) + ", 0)");
        awaitDbTimePast(first.to());
        partitions.maintain();
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).contains(first.name());
        // The lease ends (its owner released it without the layout's statements).
        exec("UPDATE idem_record SET lease_until = 0 WHERE idem_key = 'old-lease'");
        partitions.maintain();
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).doesNotContain(first.name());
    }

    // ---- converting a live table --------------------------------------------------------------

    /**
     * An instance deployed with the layout on today's unpartitioned table, migrated as the starter does
     * (on MariaDB that adds the per-key lock table its claims take); the table stays as it is.
     */
    private JdbcIdempotencyStore switched(Duration width, Duration horizon) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(width, horizon).build();
        store.migrate();
        return store;
    }

    @Test
    @DisplayName("converting a live unpartitioned table under concurrent claims keeps every record and never acquires a key twice")
    void convertUnderLoad() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        RecordKey done = key("done-before");
        store(before, done, "before", Duration.ofMinutes(10));
        RecordKey running = key("running-before");
        claim(before, running, Duration.ofMinutes(10), Duration.ofMinutes(10));
        // Every instance switches to the layout first; the table is still the old one, purged row by row.
        JdbcIdempotencyStore store = switched(Duration.ofSeconds(1), Duration.ofSeconds(30));
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
        // An instance left without the layout is refused now, rather than writing a second row for a key.
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
    }

    @Test
    @DisplayName("convert() refuses a table that does not exist, naming it and what creates it")
    void convertRefusesAMissingTable() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).tableName("idem_never_made")
                .retentionByPartition(Duration.ofSeconds(10), Duration.ofMinutes(1)).build();
        assertThatThrownBy(() -> store.retentionPartitions().orElseThrow().convert())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("idem_never_made").hasMessageContaining("migrate()");
    }

    @Test
    @DisplayName("after a conversion the old table is dropped whole once its cut-over has passed; a record whose expiry moved out survives")
    void convertedTableIsDroppedOnceItsCutOverPasses() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        store(before, key("old"), "old", Duration.ofMillis(300));
        JdbcIdempotencyStore store = switched(Duration.ofMillis(500), Duration.ofSeconds(2));
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
        JdbcIdempotencyStore store = switched(Duration.ofSeconds(10), Duration.ofMinutes(5));
        // What a run that died after making its parent leaves (its shape does not matter: nothing ever wrote to it).
        exec("CREATE TABLE idem_record_parted (leftover int)");
        store.retentionPartitions().orElseThrow().convert();
        assertThat(store.retentionPartitions().orElseThrow().partitioned()).isTrue();
        assertThat(claim(store, key("kept"), Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(new ClaimOutcome.Replay(body("kept")));
        store(store, key("new"), "new", Duration.ofMinutes(1));
        assertThat(duplicates()).isZero();
    }

    // ---- helpers ------------------------------------------------------------------------------

    protected static void store(JdbcIdempotencyStore store, RecordKey id, String text, Duration retention) {
        ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) claim(store, id, retention, retention);
        store.complete(id, a.token(), body(text), retention);
    }

    /** The partition holding the record, from its expiry and the partitions' bounds. */
    protected String partitionOf(JdbcIdempotencyStore store, RecordKey id) throws SQLException {
        long expiresAt = Long.parseLong(single("SELECT expires_at FROM idem_record WHERE idem_key = '" + id.key().value() + "'"));
        return store.retentionPartitions().orElseThrow().partitions().stream()
                .filter(p -> (p.from() == null || p.from() <= expiresAt) && expiresAt < p.to()).findFirst().orElseThrow().name();
    }

    protected long duplicates() throws SQLException {
        return Long.parseLong(single("SELECT count(*) FROM (SELECT 1 FROM idem_record GROUP BY scope, idem_key HAVING count(*) > 1) d"));
    }

    protected long dbNow() throws SQLException {
        return Long.parseLong(single(backend() == Backends.MARIADB
                ? "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000"
                : "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint"));
    }

    /** Waits for the database's clock (which judges expiry) to pass {@code epochMs}. */
    protected void awaitDbTimePast(long epochMs) throws Exception {
        LongSupplier left = () -> {
            try {
                return epochMs - dbNow();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        };
        for (long ms = left.getAsLong(); ms >= 0; ms = left.getAsLong()) {
            Thread.sleep(Math.min(ms + 1, 200));
        }
    }

    protected String single(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    protected void exec(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }
}
