package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDBC store against bad input and bad surroundings, on real databases: an unreachable pool,
 * bad table names, null and oversized responses, SQLite without WAL, repeated and concurrent
 * migrations, and a second record table in the same database.
 */
class JdbcStoreBadInputTest {
    /** The record track's migrations, each applied once: its history has one row per file (V1, V6). */
    private static final long RECORD_MIGRATIONS = dev.idem.jdbc.support.Migrator.MIGRATIONS.stream()
            .filter(m -> m.track().equals(dev.idem.jdbc.support.Tables.DEFAULT_RECORD_TABLE)).count();

    private static final Duration LONG = Duration.ofMinutes(10);

    @Nested
    @DisplayName("PostgreSQL")
    class PostgreSQL extends Scenarios {
        @Override
        Backends backend() {
            return Backends.POSTGRESQL;
        }
    }

    @Nested
    @DisplayName("MariaDB")
    class MariaDB extends Scenarios {
        @Override
        Backends backend() {
            return Backends.MARIADB;
        }
    }

    @Nested
    @DisplayName("SQLite")
    class SQLite extends Scenarios {
        @Override
        Backends backend() {
            return Backends.SQLITE;
        }

        @Test
        @DisplayName("SQLite opened without WAL (a plain jdbc:sqlite: URL) is refused at build(), pointing at Sqlite.url(path)")
        void sqliteWithoutWalIsRefused(@TempDir Path dir) {
            Path file = dir.resolve("plain.db");
            try (HikariDataSource plain = pool("jdbc:sqlite:" + file)) {
                JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(plain);
                assertThatThrownBy(builder::build)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("journal_mode=WAL")
                        .hasMessageContaining("found journal_mode=delete")
                        .hasMessageContaining("Sqlite.url(path)");
            }
        }

        @Test
        @DisplayName("SQLite opened with Sqlite.url(path) is in WAL mode and builds, migrates and claims")
        void sqliteUrlOpensFine(@TempDir Path dir) throws SQLException {
            try (HikariDataSource wal = pool(Sqlite.url(dir.resolve("idem.db")))) {
                JdbcIdempotencyStore built = JdbcIdempotencyStore.builder(wal).build();
                assertThat(built.dialect()).isEqualTo(Dialect.SQLITE);
                try (Connection c = wal.getConnection(); Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
                }
                built.migrate();
                assertThat(built.claim(request(id("sqlite-url")))).isInstanceOf(ClaimOutcome.Acquired.class);
            }
        }

        private HikariDataSource pool(String url) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setMaximumPoolSize(2);
            config.setMinimumIdle(0);
            config.setPoolName("idem-bad-input");
            return new HikariDataSource(config);
        }
    }

    /** Scenarios every backend runs, on a fresh database with the default table migrated. */
    abstract static class Scenarios {
        static final String KEY_VALUE = "secret-key-0c41d7";

        TestDatabase db;
        JdbcIdempotencyStore store;
        final Scope scope = Scope.of("principal-" + UUID.randomUUID().toString().substring(0, 8), "POST /orders");
        final Fingerprint fingerprint = Fingerprint.builder().part("body", "{\"item\":1}").build();

        abstract Backends backend();

        @BeforeEach
        void openDatabase() {
            db = backend().open();
            store = Backends.migratedStore(db);
        }

        @AfterEach
        void closeDatabase() {
            db.close();
        }

        RecordKey id(String key) {
            return new RecordKey(scope, IdempotencyKey.of(key));
        }

        ClaimRequest request(RecordKey id) {
            return new ClaimRequest(id, fingerprint, LONG, LONG);
        }

        ClaimOutcome.Acquired acquire(JdbcIdempotencyStore on, RecordKey id) {
            ClaimOutcome outcome = on.claim(request(id));
            assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
            return (ClaimOutcome.Acquired) outcome;
        }

        static StoredResponse ok(String body) {
            return StoredResponse.of(200, body.getBytes(StandardCharsets.UTF_8));
        }

        /** Rows of the record table for the key that hold a claim or a response (a release leaves a bare tombstone). */
        long rowsHoldingState(String table, RecordKey id) throws SQLException {
            try (Connection c = db.dataSource().getConnection();
                    PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table
                            + " WHERE scope = ? AND idem_key = ? AND (state IN (0, 1) OR body IS NOT NULL OR status IS NOT NULL)")) {
                ps.setString(1, id.scope().value());
                ps.setString(2, id.key().value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }

        long count(String sql) throws SQLException {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        // ---- an unreachable store -------------------------------------------------------------

        @Test
        @DisplayName("a closed pool fails with a StoreException naming the store and the operation, never the key")
        void closedPoolFailsWithStoreException() {
            ((HikariDataSource) db.dataSource()).close();
            String storeName = db.product() + " store";

            assertThatThrownBy(() -> store.claim(request(id(KEY_VALUE))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith(storeName + ": claim failed")
                    .hasMessageContaining("scope '" + scope + "'")
                    .hasMessageNotContaining(KEY_VALUE)
                    .hasCauseInstanceOf(SQLException.class);
            assertThatThrownBy(() -> store.find(id(KEY_VALUE)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith(storeName + ": find failed")
                    .hasMessageNotContaining(KEY_VALUE);

            Idem idem = Idem.builder().store(store).build();
            assertThatThrownBy(() -> idem.execute(scope, IdempotencyKey.of(KEY_VALUE), fingerprint, e -> ok("never")))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith(storeName + ": claim failed")
                    .hasMessageNotContaining(KEY_VALUE);
        }

        // ---- table names ----------------------------------------------------------------------

        @Test
        @DisplayName("the builder rejects a table name with a space, upper case or over 48 characters, naming the bad value")
        void badTableNamesRejected() {
            DataSource ds = db.dataSource();
            String tooLong = "t".repeat(49);
            for (String bad : List.of("drop table", "Idem_Record", "IDEM", tooLong, "idem;drop", "1idem", "")) {
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(ds).tableName(bad))
                        .as("table name '%s'", bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("was '" + bad + "'");
            }
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(ds).tableName(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was 'null'");
        }

        @Test
        @DisplayName("the longest allowed table name (48 characters) migrates and works: its derived index and history names fit")
        void longestTableNameWorks() {
            String longest = "t".repeat(48);
            JdbcIdempotencyStore wide = JdbcIdempotencyStore.builder(db.dataSource()).tableName(longest).build();
            wide.migrate();
            RecordKey id = id("longest-name");
            wide.complete(id, acquire(wide, id).token(), ok("wide"), LONG);
            assertThat(wide.claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("wide")));
        }

        // ---- bad writes -----------------------------------------------------------------------

        @Test
        @DisplayName("complete with a null response throws and leaves the record in progress with the same token")
        void completeWithNullResponseChangesNothing() throws SQLException {
            RecordKey id = id("null-response");
            ClaimOutcome.Acquired owner = acquire(store, id);
            IdempotencyRecord before = store.find(id).orElseThrow();

            assertThatThrownBy(() -> store.complete(id, owner.token(), null, LONG)).isInstanceOf(NullPointerException.class).hasMessageContaining("response is null");

            IdempotencyRecord after = store.find(id).orElseThrow();
            assertThat(after.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(after.token()).isEqualTo(owner.token());
            assertThat(after).isEqualTo(before);
            // The owner still holds the key and can complete properly.
            store.complete(id, owner.token(), ok("fine"), LONG);
            assertThat(store.claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("fine")));
        }

        @Test
        @DisplayName("Idem.execute whose operation returns null throws and leaves no record and no partial row")
        void operationReturningNullLeavesNoRecord() throws SQLException {
            Idem idem = Idem.builder().store(store).build();
            IdempotencyKey key = IdempotencyKey.of("returns-null");

            assertThatThrownBy(() -> idem.execute(scope, key, fingerprint, e -> null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("returned null")
                    .hasMessageContaining(scope.toString());

            assertThat(store.find(new RecordKey(scope, key))).isEmpty();
            assertThat(rowsHoldingState("idem_record", new RecordKey(scope, key))).isZero();
            assertThat(idem.execute(scope, key, fingerprint, e -> ok("second try"))).isEqualTo(new Outcome.Executed(ok("second try"), true, 1));
        }

        @Test
        @DisplayName("Idem.execute whose operation returns a body over the cap stores it empty and marked, in one whole row")
        void oversizedBodyLeavesNoRecord() throws SQLException {
            Idem idem = Idem.builder().store(store).maxResponseBytes(8).build();
            IdempotencyKey key = IdempotencyKey.of(KEY_VALUE);

            assertThat(idem.execute(scope, key, fingerprint, e -> ok("nine bytes"))).isEqualTo(new Outcome.Executed(ok("nine bytes"), true, 1));

            assertThat(store.find(new RecordKey(scope, key))).hasValueSatisfying(r -> {
                assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(r.response()).hasValueSatisfying(stored -> {
                    assertThat(stored.bodyLength()).isZero();
                    assertThat(stored.headers()).containsEntry(StoredResponse.BODY_OMITTED_HEADER, List.of("true"));
                });
            });
        }

        // ---- migrations -----------------------------------------------------------------------

        @Test
        @DisplayName("migrate() a second time changes nothing: one history row, records kept")
        void migrateTwiceIsHarmless() throws SQLException {
            RecordKey id = id("kept");
            store.complete(id, acquire(store, id).token(), ok("kept"), LONG);

            store.migrate();
            JdbcIdempotencyStore.builder(db.dataSource()).build().migrate();

            assertThat(count("SELECT count(*) FROM idem_record_schema_history")).isEqualTo(RECORD_MIGRATIONS);
            assertThat(count("SELECT count(*) FROM idem_record")).isEqualTo(1);
            assertThat(store.claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("kept")));
        }

        @Test
        @DisplayName("migrate() from 4 threads at once on a fresh table: all succeed, each migration applied once")
        void concurrentMigrateIsHarmless() throws Exception {
            for (int round = 0; round < 3; round++) {
                String table = "race_" + round;
                int threads = 4;
                List<JdbcIdempotencyStore> stores = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    stores.add(JdbcIdempotencyStore.builder(db.dataSource()).tableName(table).build());
                }
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    CyclicBarrier start = new CyclicBarrier(threads);
                    List<Future<?>> futures = new ArrayList<>();
                    for (JdbcIdempotencyStore s : stores) {
                        futures.add(pool.submit(() -> {
                            start.await(30, TimeUnit.SECONDS);
                            s.migrate();
                            return null;
                        }));
                    }
                    for (Future<?> f : futures) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdownNow();
                }

                assertThat(count("SELECT count(*) FROM " + table + "_schema_history")).as(table).isEqualTo(RECORD_MIGRATIONS);
                RecordKey id = id("after-race-" + round);
                JdbcIdempotencyStore migrated = stores.get(0);
                migrated.complete(id, acquire(migrated, id).token(), ok("raced"), LONG);
                assertThat(stores.get(3).claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("raced")));
            }
        }

        // ---- a second record table --------------------------------------------------------------

        @Test
        @DisplayName("a custom table orders_idem works end to end beside the default table, with its own records and history")
        void customTableBesideDefault() throws SQLException {
            JdbcIdempotencyStore orders = JdbcIdempotencyStore.builder(db.dataSource()).tableName("orders_idem").build();
            assertThat(orders.tableName()).isEqualTo("orders_idem");
            orders.migrate();

            RecordKey id = id("shared-key");
            ClaimOutcome.Acquired inDefault = acquire(store, id);
            ClaimOutcome.Acquired inOrders = acquire(orders, id);
            assertThat(orders.claim(request(id))).isInstanceOf(ClaimOutcome.InProgress.class);

            store.complete(id, inDefault.token(), ok("default table"), LONG);
            assertThat(orders.find(id)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.IN_PROGRESS);
            orders.complete(id, inOrders.token(), ok("orders table"), LONG);

            assertThat(store.claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("default table")));
            assertThat(orders.claim(request(id))).isEqualTo(new ClaimOutcome.Replay(ok("orders table")));
            Idem ordersIdem = Idem.builder().store(orders).build();
            assertThat(ordersIdem.execute(scope, id.key(), fingerprint, e -> ok("must not run")))
                    .isEqualTo(new Outcome.Replayed(ok("orders table")));

            assertThat(count("SELECT count(*) FROM orders_idem")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM idem_record")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM orders_idem_schema_history")).isEqualTo(RECORD_MIGRATIONS);
            assertThat(count("SELECT count(*) FROM idem_record_schema_history")).isEqualTo(RECORD_MIGRATIONS);
        }
    }
}
