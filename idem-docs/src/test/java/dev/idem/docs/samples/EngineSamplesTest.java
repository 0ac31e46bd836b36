package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.Sweeper;
import dev.idem.jdbc.Dialect;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The engine's samples run as printed, on a real SQLite file (and the JDBC store's on PostgreSQL and MariaDB too). */
class EngineSamplesTest {
    private final Fingerprint fingerprint = Fingerprint.builder().part("body", "{\"amount\":100}").build();
    private final List<String> charges = new ArrayList<>();
    private final CardGateway gateway = (key, amount) -> {
        charges.add(key);
        return "ch_" + charges.size();
    };
    private TestDatabase db;

    @BeforeEach
    void openDatabase() {
        db = RealServices.sqlite();
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    @Test
    @DisplayName("readme-engine: the first call charges, a repeat with the same key replays the stored response")
    void readmeEngine() {
        JdbcIdempotencyStore.builder(db.dataSource()).build().migrate();

        Outcome first = EngineSamples.readmeEngine(db.dataSource(), "alice", "order-1", fingerprint, gateway, 100);
        Outcome repeat = EngineSamples.readmeEngine(db.dataSource(), "alice", "order-1", fingerprint, gateway, 100);

        assertThat(first).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) first).response().status()).isEqualTo(201);
        assertThat(repeat).isEqualTo(new Outcome.Replayed(((Outcome.Executed) first).response()));
        assertThat(charges).hasSize(1);
    }

    @Test
    @DisplayName("engine-start: claimed here, ended by the caller: stored and replayed; a failing handler gives the key back")
    void startAndEnd() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        Idem idem = Idem.builder().store(store).build();
        Scope scope = Scope.of("alice", "POST /payments");
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> EngineSamples.startAndEnd(idem, scope, IdempotencyKey.of("order-1"), fingerprint, execution -> {
            runs.incrementAndGet();
            throw new IllegalStateException("the handler failed");
        })).hasMessage("the handler failed");
        Outcome first = EngineSamples.startAndEnd(idem, scope, IdempotencyKey.of("order-1"), fingerprint, execution -> {
            runs.incrementAndGet();
            return dev.idem.StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
        });
        Outcome repeat = EngineSamples.startAndEnd(idem, scope, IdempotencyKey.of("order-1"), fingerprint, execution -> {
            runs.incrementAndGet();
            return dev.idem.StoredResponse.of(201, "again".getBytes(StandardCharsets.UTF_8));
        });

        assertThat(first).isInstanceOf(Outcome.Executed.class);
        assertThat(repeat).isEqualTo(new Outcome.Replayed(((Outcome.Executed) first).response()));
        assertThat(runs).as("the failed run gave the key back; the repeat ran nothing").hasValue(2);
    }

    @Test
    @DisplayName("engine-quickstart: migrates, runs once with a 30 s lease and 24 h retention, then replays")
    void quickstart() {
        EngineSamples.Ran first = EngineSamples.quickstart(db.dataSource(), "alice", "order-1", fingerprint);
        EngineSamples.Ran repeat = EngineSamples.quickstart(db.dataSource(), "alice", "order-1", fingerprint);

        assertThat(first.outcome()).isInstanceOf(Outcome.Executed.class);
        assertThat(repeat.outcome()).isInstanceOf(Outcome.Replayed.class);
        assertThat(first.idem().lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(first.idem().retention()).isEqualTo(Duration.ofHours(24));
    }

    @Test
    @DisplayName("engine-phases: after a failure in the last phase, the retry resumes: one row, one charge with the same key")
    void phasesResume() throws Exception {
        Idem idem = EngineSamples.jdbcStore(db.dataSource());
        createTable("CREATE TABLE payment (id INTEGER PRIMARY KEY AUTOINCREMENT, amount INTEGER NOT NULL, charge TEXT)");
        AtomicInteger markings = new AtomicInteger();
        EngineSamples.Payments payments = new EngineSamples.Payments() {
            @Override
            public long insert(long amount) throws SQLException {
                return insertReturningId(amount);
            }

            @Override
            public void markPaid(long paymentId, String chargeId) {
                if (markings.incrementAndGet() == 1) {
                    throw new IllegalStateException("the first attempt stops before marking the payment paid");
                }
            }
        };
        Scope scope = Scope.of("alice", "POST /payments");
        IdempotencyKey key = IdempotencyKey.of("order-7");

        assertThatThrownBy(() -> EngineSamples.phases(idem, scope, key, fingerprint, payments, gateway, 100))
                .hasMessageContaining("the first attempt stops");
        Outcome retry = EngineSamples.phases(idem, scope, key, fingerprint, payments, gateway, 100);

        assertThat(retry).isInstanceOfSatisfying(Outcome.Executed.class, e -> {
            assertThat(e.attempt()).isEqualTo(2);
            assertThat(e.response().headers()).containsEntry("Content-Type", List.of("application/json"));
            assertThat(new String(e.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1,\"charge\":\"ch_1\"}");
        });
        assertThat(count("payment")).isEqualTo(1);
        assertThat(charges).hasSize(1);
        assertThat(markings).hasValue(2);
    }

    @Test
    @DisplayName("engine-transactional: the row and the stored response commit together; a repeat replays and writes nothing")
    void transactional() throws Exception {
        Idem idem = EngineSamples.jdbcStore(db.dataSource());
        createTable("CREATE TABLE payment (amount INTEGER NOT NULL)");
        Scope scope = Scope.of("alice", "POST /payments");
        byte[] body = "{\"status\":\"paid\"}".getBytes(StandardCharsets.UTF_8);

        Outcome first = EngineSamples.transactional(idem, scope, IdempotencyKey.of("order-9"), fingerprint, 100, body);
        Outcome repeat = EngineSamples.transactional(idem, scope, IdempotencyKey.of("order-9"), fingerprint, 100, body);

        assertThat(first).isInstanceOf(Outcome.Executed.class);
        assertThat(repeat).isInstanceOf(Outcome.Replayed.class);
        assertThat(count("payment")).isEqualTo(1);
    }

    @Test
    @DisplayName("engine-sweeper and operations-sweepers: started sweepers purge on demand and close")
    void sweepers() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        Inbox inbox = Inbox.builder(db.dataSource()).build();
        inbox.migrate();

        try (Sweeper sweeper = EngineSamples.sweeper(store)) {
            assertThat(sweeper.sweepOnce()).isZero();
        }
        List<Sweeper> both = EngineSamples.sweepers(store, inbox);
        both.forEach(s -> assertThat(s.sweepOnce()).isZero());
        both.forEach(Sweeper::close);
    }

    @Test
    @DisplayName("stores-jdbc: the dialect is detected on PostgreSQL, MariaDB and SQLite, and the engine runs on each")
    void jdbcStoreOnEveryDatabase() {
        for (TestDatabase database : List.of(RealServices.postgres(), RealServices.mariadb(), RealServices.sqlite())) {
            try (database) {
                Idem idem = EngineSamples.jdbcStore(database.dataSource());
                Outcome outcome = idem.execute(Scope.of("alice", "POST /payments"), IdempotencyKey.of("k"), fingerprint,
                        run -> dev.idem.StoredResponse.of(201, new byte[0]));

                assertThat(((JdbcIdempotencyStore) idem.store()).dialect()).isEqualTo(switch (database.product()) {
                    case "PostgreSQL" -> Dialect.POSTGRESQL;
                    case "MariaDB" -> Dialect.MARIADB;
                    default -> Dialect.SQLITE;
                });
                assertThat(outcome).as(database.product()).isInstanceOf(Outcome.Executed.class);
            }
        }
    }

    private long insertReturningId(long amount) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO payment (amount) VALUES (" + amount + ")");
            try (ResultSet id = st.executeQuery("SELECT last_insert_rowid()")) {
                id.next();
                return id.getLong(1);
            }
        }
    }

    private void createTable(String ddl) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(ddl);
        }
    }

    private long count(String table) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
