package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Live owners keep their leases when production is busier than the lab: a pool whose connections
 * the handlers hold, a record locked by another transaction. A contender in another "instance" (its
 * own pool) keeps trying the same keys; every key must run exactly once. One subclass per database
 * with row locks.
 */
abstract class LeaseUnderPressureContract {
    private static final Duration LEASE = Duration.ofSeconds(1);
    private final Scope scope = Scope.of("alice", "POST /payments");
    private final Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();
    private TestDatabase db;
    private JdbcIdempotencyStore contenderStore;
    private ExecutorService pool;

    protected abstract Backends backend();

    @BeforeEach
    void open() {
        db = backend().open();
        contenderStore = Backends.migratedStore(db);
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void close() {
        pool.shutdownNow();
        db.close();
    }

    @Test
    @DisplayName("a pool of 3 whose handlers each hold a connection for 4 s: every key runs once")
    void aPoolBusyWithHandlersDoesNotStarveRenewals() throws Exception {
        try (HikariDataSource small = smallPool(3)) {
            Idem owners = Idem.builder().store(JdbcIdempotencyStore.builder(small).build()).lease(LEASE).build();
            List<IdempotencyKey> keys = List.of(IdempotencyKey.of("k-0"), IdempotencyKey.of("k-1"), IdempotencyKey.of("k-2"));
            AtomicIntegerArray runs = new AtomicIntegerArray(keys.size());
            CountDownLatch allRunning = new CountDownLatch(keys.size());
            List<Future<Outcome>> owned = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                int k = i;
                owned.add(pool.submit(() -> owners.execute(scope, keys.get(k), fingerprint, execution -> {
                    runs.incrementAndGet(k);
                    allRunning.countDown();
                    try (Connection busy = small.getConnection()) {
                        Thread.sleep(4_000); // a handler's work holding its connection
                    }
                    return created();
                })));
                awaitRunning(runs, k);
            }
            assertThat(allRunning.await(30, TimeUnit.SECONDS)).isTrue();

            contend(keys, owned, runs, 0);

            for (Future<Outcome> f : owned) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
            }
            for (int i = 0; i < keys.size(); i++) {
                assertThat(runs.get(i)).as("executions of key " + i).isEqualTo(1);
            }
        }
    }

    @Test
    @DisplayName("a record locked by another transaction for 5 s does not hold up the renewal of any other key")
    void aLockedRecordDoesNotHoldUpOtherRenewals() throws Exception {
        Idem owners = Idem.builder().store(JdbcIdempotencyStore.builder(db.dataSource()).build()).lease(LEASE).build();
        IdempotencyKey locked = IdempotencyKey.of("locked");
        IdempotencyKey other = IdempotencyKey.of("other");
        AtomicIntegerArray runs = new AtomicIntegerArray(2);
        Future<Outcome> lockedOwner = pool.submit(() -> owners.execute(scope, locked, fingerprint, execution -> {
            runs.incrementAndGet(0);
            Thread.sleep(6_000);
            return created();
        }));
        awaitRunning(runs, 0);
        Future<Outcome> otherOwner = pool.submit(() -> owners.execute(scope, other, fingerprint, execution -> {
            runs.incrementAndGet(1);
            Thread.sleep(3_000);
            return created();
        }));
        awaitRunning(runs, 1);

        try (Connection locker = db.dataSource().getConnection()) {
            locker.setAutoCommit(false);
            // By primary key: InnoDB would lock every row a scan by idem_key alone passed.
            try (PreparedStatement ps = locker.prepareStatement("SELECT token FROM idem_record WHERE scope = ? AND idem_key = ? FOR UPDATE")) {
                ps.setString(1, scope.value());
                ps.setString(2, "locked");
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            // Only the other key is contended: the locked one cannot be renewed by anyone while locked.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < until) {
                tryOnce(other, runs, 1);
                Thread.sleep(150);
            }
            locker.rollback();
        }
        contend(List.of(other), List.of(otherOwner), runs, 1);

        assertThat(otherOwner.get(60, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
        assertThat(lockedOwner.get(60, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
        assertThat(runs.get(1)).as("executions of the key that was never locked").isEqualTo(1);
        assertThat(runs.get(0)).as("executions of the locked key").isEqualTo(1);
    }

    // ---- helpers -------------------------------------------------------------------------------------

    /**
     * Another instance tries every key every 150 ms until its owners are done; key {@code i} counts
     * its executions in {@code runs[firstRun + i]}.
     */
    private void contend(List<IdempotencyKey> keys, List<Future<Outcome>> owners, AtomicIntegerArray runs, int firstRun) throws Exception {
        while (owners.stream().anyMatch(f -> !f.isDone())) {
            for (int i = 0; i < keys.size(); i++) {
                if (!owners.get(i).isDone()) {
                    tryOnce(keys.get(i), runs, firstRun + i);
                }
            }
            Thread.sleep(150);
        }
    }

    private void tryOnce(IdempotencyKey key, AtomicIntegerArray runs, int index) {
        Idem contender = Idem.builder().store(contenderStore).lease(LEASE).build();
        contender.execute(scope, key, fingerprint, execution -> {
            runs.incrementAndGet(index);
            return created();
        });
    }

    private static void awaitRunning(AtomicIntegerArray runs, int index) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (runs.get(index) == 0) {
            assertThat(System.nanoTime()).as("owner " + index + " never started").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private HikariDataSource smallPool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(((HikariDataSource) db.dataSource()).getJdbcUrl());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(30_000);
        config.setPoolName("idem-small");
        return new HikariDataSource(config);
    }

    private static StoredResponse created() {
        return StoredResponse.of(201, Map.of(), new byte[0]);
    }
}
