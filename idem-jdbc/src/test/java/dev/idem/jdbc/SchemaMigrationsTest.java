package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.StoreException;
import dev.idem.jdbc.brokenmigration.Broken;
import dev.idem.jdbc.migrationfixture.Widgets;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.DelegatingDataSource;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An application's own tables through idem's migrations: instances starting together apply each file
 * once, a database out of reach at start-up is waited for within the retry time, and what is wrong
 * with a file or the settings fails at once with a message that says so.
 */
class SchemaMigrationsTest {

    private static SchemaMigrations widgets(DataSource dataSource, Duration retryFor) {
        return SchemaMigrations.builder(dataSource).track("widget").files(Widgets.class)
                .migration(1, "create_widget").migration(2, "seed_widget").retryFor(retryFor).build();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void instancesStartingTogetherApplyEachFileOnce(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            int instances = 8;
            ExecutorService pool = Executors.newFixedThreadPool(instances);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> started = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                started.add(pool.submit(() -> {
                    start.await();
                    widgets(db.dataSource(), Duration.ofSeconds(30)).migrate();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> instance : started) {
                instance.get(60, TimeUnit.SECONDS); // a second application of V2 would fail on its primary key
            }
            pool.shutdown();

            assertThat(count(db, "SELECT count(*) FROM widget")).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM widget_schema_history")).as("versions in the history").isEqualTo(2);
            widgets(db.dataSource(), Duration.ZERO).migrate(); // and once more later: nothing left to apply
            assertThat(count(db, "SELECT count(*) FROM widget")).isEqualTo(1);
        }
    }

    @Test
    void aDatabaseOutOfReachAtStartUpIsWaitedForWithinTheRetryTime() throws Exception {
        try (TestDatabase db = Backends.SQLITE.open()) {
            RefusingDataSource refusing = new RefusingDataSource(db.dataSource(), 3);

            widgets(refusing, Duration.ofSeconds(30)).migrate();

            assertThat(refusing.attempts).as("connections asked for: three refused, then one that worked").hasValue(4);
            assertThat(count(db, "SELECT count(*) FROM widget")).isEqualTo(1);
        }
    }

    @Test
    void aDatabaseThatStaysOutOfReachFailsAfterTheRetryTimeSayingHowLongItTried() throws Exception {
        try (TestDatabase db = Backends.SQLITE.open()) {
            RefusingDataSource refusing = new RefusingDataSource(db.dataSource(), Integer.MAX_VALUE);
            long started = System.nanoTime();

            assertThatThrownBy(() -> widgets(refusing, Duration.ofMillis(800)).migrate())
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("migrations of widget")
                    .hasMessageContaining("could not be reached in")
                    .hasMessageContaining("connection refused (test)");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(700), Duration.ofSeconds(10));
            assertThat(refusing.attempts).as("it tried more than once").hasValueGreaterThan(1);
        }
    }

    @Test
    void anErrorInAFileFailsAtOnceWithoutRetrying() throws Exception {
        try (TestDatabase db = Backends.SQLITE.open()) {
            RefusingDataSource counting = new RefusingDataSource(db.dataSource(), 0);
            SchemaMigrations broken = SchemaMigrations.builder(counting).track("broken").files(Broken.class)
                    .migration(1, "create_broken").retryFor(Duration.ofSeconds(30)).build();

            assertThatThrownBy(broken::migrate).isInstanceOf(StoreException.class).hasMessageContaining("migrations of broken");
            assertThat(counting.attempts).as("one attempt: bad SQL is not the database being out of reach").hasValue(1);
        }
    }

    @Test
    void theBuilderRefusesWhatCannotWork() throws Exception {
        try (TestDatabase db = Backends.SQLITE.open()) {
            DataSource ds = db.dataSource();
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).track("Payment-Table"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("track must be lower-case");
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).migration(2, "b").migration(1, "a"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("versions must increase");
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).migration(1, "create table"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("description");
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).retryFor(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryFor");
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).files(Widgets.class).migration(1, "create_widget").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("track is not set");
            assertThatThrownBy(() -> SchemaMigrations.builder(ds).track("widget").files(Widgets.class).migration(7, "missing").build().migrate())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("V7__missing.sql");
        }
    }

    private static int count(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Refuses its first {@code refusals} connections as a database that is down would; counts every request. */
    private static final class RefusingDataSource extends DelegatingDataSource {
        final AtomicInteger attempts = new AtomicInteger();
        private final int refusals;

        RefusingDataSource(DataSource target, int refusals) {
            super(target);
            this.refusals = refusals;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (attempts.incrementAndGet() <= refusals) {
                throw new SQLNonTransientConnectionException("connection refused (test)", "08001");
            }
            return super.getConnection();
        }

        @Override
        protected Connection wrap(Connection real) {
            return real;
        }
    }
}
