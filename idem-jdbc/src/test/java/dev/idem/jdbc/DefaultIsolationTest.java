package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InFlightPolicy;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.DelegatingDataSource;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store on a database whose sessions default to a stricter isolation than the one its statements
 * are written for (a setting some teams choose for their own code): concurrent claims on contended
 * keys all get an answer, each key runs once, and the pool's connections keep their own level.
 */
class DefaultIsolationTest {
    private static final int KEYS = 4;
    private static final int CALLERS = 32;
    private final Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("PostgreSQL, REPEATABLE READ", (Supplier<TestDatabase>) () -> RealServices.postgres("repeatable read"),
                        Connection.TRANSACTION_REPEATABLE_READ),
                Arguments.of("PostgreSQL, SERIALIZABLE", (Supplier<TestDatabase>) () -> RealServices.postgres("serializable"),
                        Connection.TRANSACTION_SERIALIZABLE),
                Arguments.of("MariaDB, REPEATABLE READ", (Supplier<TestDatabase>) () -> RealServices.mariadb("REPEATABLE-READ"),
                        Connection.TRANSACTION_REPEATABLE_READ),
                Arguments.of("MariaDB, SERIALIZABLE", (Supplier<TestDatabase>) () -> RealServices.mariadb("SERIALIZABLE"),
                        Connection.TRANSACTION_SERIALIZABLE),
                Arguments.of("MariaDB, READ COMMITTED", (Supplier<TestDatabase>) () -> RealServices.mariadb("READ-COMMITTED"),
                        Connection.TRANSACTION_READ_COMMITTED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void contendedClaimsAllAnswerAndEachKeyRunsOnce(String name, Supplier<TestDatabase> database, int defaultLevel) throws Exception {
        try (TestDatabase db = database.get()) {
            assertThat(levelOfANewConnection(db)).as("the pool's default isolation").isEqualTo(defaultLevel);
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            Idem idem = Idem.builder().store(store).lease(Duration.ofSeconds(2))
                    .inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(60))).build();
            AtomicIntegerArray runs = new AtomicIntegerArray(KEYS);
            List<Outcome> outcomes = callConcurrently(idem, runs);

            for (int k = 0; k < KEYS; k++) {
                assertThat(runs.get(k)).as("runs of key %d", k).isEqualTo(1);
            }
            assertThat(outcomes).hasSize(KEYS * CALLERS)
                    .allSatisfy(o -> assertThat(o).isInstanceOfAny(Outcome.Executed.class, Outcome.Replayed.class));
            assertThat(levelOfANewConnection(db)).as("the pool's isolation after the store used it").isEqualTo(defaultLevel);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void theStoreRunsEachStatementAtItsDialectsIsolation(String name, Supplier<TestDatabase> database, int defaultLevel) throws Exception {
        try (TestDatabase db = database.get()) {
            IsolationRecorder recorder = new IsolationRecorder(db.dataSource());
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(recorder).build();
            store.migrate();
            Idem idem = Idem.builder().store(store).lease(Duration.ofMillis(600)).build();
            Scope scope = Scope.of("alice", "POST /payments");
            recorder.levels.clear();

            idem.execute(scope, IdempotencyKey.of("k"), fingerprint, execution -> {
                Thread.sleep(900); // past a renewal or two
                return StoredResponse.of(201, Map.of(), new byte[0]);
            });
            idem.execute(scope, IdempotencyKey.of("k"), fingerprint, execution -> {
                throw new AssertionError("a replay must not run");
            });

            assertThat(recorder.levels).as("isolation of each statement the store ran").isNotEmpty()
                    .containsOnly(store.dialect().storeIsolation());
        }
    }

    /** Every caller calls every key, each in its own order, so claims, waits, renewals and completions interleave. */
    private List<Outcome> callConcurrently(Idem idem, AtomicIntegerArray runs) throws Exception {
        Scope scope = Scope.of("alice", "POST /payments");
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Outcome>>> callers = new ArrayList<>();
        for (int c = 0; c < CALLERS; c++) {
            List<Integer> order = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                order.add(k);
            }
            Collections.shuffle(order);
            callers.add(pool.submit(() -> {
                start.await();
                List<Outcome> mine = new ArrayList<>();
                for (int k : order) {
                    mine.add(idem.execute(scope, IdempotencyKey.of("key-" + k), fingerprint, execution -> {
                        runs.incrementAndGet(k);
                        Thread.sleep(20);
                        return StoredResponse.of(201, Map.of(), ("{\"key\":" + k + "}").getBytes());
                    }));
                }
                return mine;
            }));
        }
        start.countDown();
        List<Outcome> all = new ArrayList<>();
        try {
            for (Future<List<Outcome>> caller : callers) {
                all.addAll(caller.get(120, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        return all;
    }

    /** Notes the connection's isolation level each time a statement is prepared on it. */
    private static final class IsolationRecorder extends DelegatingDataSource {
        final List<Integer> levels = new CopyOnWriteArrayList<>();

        IsolationRecorder(DataSource target) {
            super(target);
        }

        @Override
        protected Connection wrap(Connection real) {
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                if (method.getName().equals("prepareStatement") || method.getName().equals("createStatement")) {
                    levels.add(real.getTransactionIsolation());
                }
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        }
    }

    private static int levelOfANewConnection(TestDatabase db) throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            return c.getTransactionIsolation();
        }
    }
}
