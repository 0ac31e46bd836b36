package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import dev.idem.spring.txmethods.Checkout;
import dev.idem.spring.txmethods.Orders;
import dev.idem.spring.txmethods.TxMethodApplication;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.UnexpectedRollbackException;

/**
 * {@link IdempotentMethod} and Spring transactions, on PostgreSQL, SQLite and MariaDB: the record completes
 * only after the method's own transaction committed (a failing commit gives the key back), and a
 * call inside a caller's transaction commits or rolls back its record with that transaction (or, on
 * a store that cannot share it, is refused before anything runs).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentMethodTransactionTest {
    private final Map<Database, TestDatabase> databases = new EnumMap<>(Database.class);
    private final Map<Database, ConfigurableApplicationContext> apps = new EnumMap<>(Database.class);

    /** The starter's backends and MariaDB, whose transactional claim must be its transaction's first work. */
    enum Database {
        POSTGRESQL, SQLITE, MARIADB;

        TestDatabase open() {
            return switch (this) {
                case POSTGRESQL -> RealServices.postgres();
                case SQLITE -> RealServices.sqlite();
                case MARIADB -> RealServices.mariadb();
            };
        }
    }

    private ConfigurableApplicationContext app(Database backend) {
        return apps.computeIfAbsent(backend, b -> {
            TestDatabase db = b.open();
            databases.put(b, db);
            return TxMethodApplication.start("--spring.datasource.url=" + Backend.jdbcUrl(db), "--spring.main.banner-mode=off",
                    "--logging.level.root=WARN");
        });
    }

    @AfterAll
    void close() {
        apps.values().forEach(ConfigurableApplicationContext::close);
        databases.values().forEach(TestDatabase::close);
    }

    private static String newId() {
        return "order-" + UUID.randomUUID();
    }

    /** Completed records of {@code key} (a key given back may leave a released row, which replays nothing). */
    private int records(Database backend, String key) {
        Integer count = app(backend).getBean(JdbcTemplate.class)
                .queryForObject("SELECT count(*) FROM idem_record WHERE idem_key = ? AND state = 1", Integer.class, key);
        return count == null ? 0 : count;
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aCommitThatFailsBecauseAnInnerCallMarkedRollbackOnlyStoresNothingAndARetryRunsAgain(Database backend) {
        Orders orders = app(backend).getBean(Orders.class);
        String id = newId();

        for (int call = 1; call <= 3; call++) {
            assertThatThrownBy(() -> orders.placeSwallowingInnerFailure(id)).isInstanceOf(UnexpectedRollbackException.class);
        }
        assertThat(orders.runs(id)).as("every call ran again: no stored receipt was returned").isEqualTo(3);
        assertThat(orders.rows("tx_order", "order_id", id)).as("every run rolled back").isZero();
        assertThat(records(backend, id)).isZero();

        orders.innerSucceeds();
        assertThat(orders.placeSwallowingInnerFailure(id)).isEqualTo("placed " + id);
        assertThat(orders.placeSwallowingInnerFailure(id)).as("replayed").isEqualTo("placed " + id);
        assertThat(orders.runs(id)).isEqualTo(4);
        assertThat(orders.rows("tx_order", "order_id", id)).isEqualTo(1);
    }

    @Test
    void aDeferredUniqueConstraintFailingAtCommitStoresNothingAndARetryFailsForReal() {
        ConfigurableApplicationContext app = app(Database.POSTGRESQL);
        app.getBean(JdbcTemplate.class).execute("CREATE TABLE IF NOT EXISTS tx_deferred (ref VARCHAR(100) NOT NULL,"
                + " CONSTRAINT tx_deferred_ref UNIQUE (ref) DEFERRABLE INITIALLY DEFERRED)");
        Orders orders = app.getBean(Orders.class);
        String id = newId();

        for (int call = 1; call <= 3; call++) {
            assertThatThrownBy(() -> orders.placeViolatingADeferredConstraint(id))
                    .as("call %d fails at COMMIT, not with a stored 'placed'", call)
                    .isInstanceOf(org.springframework.dao.DataAccessException.class);
        }
        assertThat(orders.runs(id)).isEqualTo(3);
        assertThat(orders.rows("tx_deferred", "ref", id)).isZero();
        assertThat(records(Database.POSTGRESQL, id)).isZero();
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void insideACallersTransactionThatCommitsTheRecordCommitsWithTheRows(Database backend) {
        Checkout checkout = app(backend).getBean(Checkout.class);
        Orders orders = app(backend).getBean(Orders.class);
        String id = newId();

        assertThat(checkout.checkout(id, false)).isEqualTo("placed " + id);
        assertThat(orders.rows("tx_order", "order_id", id)).isEqualTo(1);
        assertThat(orders.rows("tx_checkout", "order_id", id)).isEqualTo(1);
        assertThat(records(backend, id)).isEqualTo(1);

        // A repeat of the whole checkout: the method replays, and the caller's own work still commits.
        assertThat(checkout.checkout(id, false)).isEqualTo("placed " + id);
        assertThat(orders.runs(id)).isEqualTo(1);
        assertThat(orders.rows("tx_order", "order_id", id)).isEqualTo(1);
        assertThat(orders.rows("tx_checkout", "order_id", id)).isEqualTo(2);
        assertThat(orders.place(id)).as("replayed outside a transaction too").isEqualTo("placed " + id);
        assertThat(orders.runs(id)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void insideACallersTransactionThatRollsBackNoRecordStaysAndARetryRunsAgain(Database backend) {
        Checkout checkout = app(backend).getBean(Checkout.class);
        Orders orders = app(backend).getBean(Orders.class);
        String id = newId();

        assertThatThrownBy(() -> checkout.checkout(id, true)).hasMessage("checkout failed after placing");
        assertThat(orders.rows("tx_order", "order_id", id)).isZero();
        assertThat(records(backend, id)).as("the record rolled back with the caller's transaction").isZero();

        assertThat(checkout.checkout(id, false)).isEqualTo("placed " + id);
        assertThat(orders.runs(id)).as("the retry ran the method again").isEqualTo(2);
        assertThat(orders.rows("tx_order", "order_id", id)).isEqualTo(1);
        assertThat(orders.rows("tx_checkout", "order_id", id)).isEqualTo(1);
        assertThat(records(backend, id)).isEqualTo(1);
    }

    @Test
    void insideACallersTransactionWithTheRedisStoreTheCallIsRefusedBeforeAnythingRuns() {
        String url = RealServices.redisUri();
        TestDatabase db = Backend.SQLITE.open();
        try (ConfigurableApplicationContext app = TxMethodApplication.start("--spring.datasource.url=" + Backend.jdbcUrl(db),
                "--spring.main.banner-mode=off", "--logging.level.root=WARN", "--idem.store=redis", "--idem.redis.url=" + url,
                "--idem.redis.key-prefix=idem-txmethod-" + UUID.randomUUID() + ":", "--idem.redis.persistence-check=skip")) {
            Checkout checkout = app.getBean(Checkout.class);
            Orders orders = app.getBean(Orders.class);
            String id = newId();

            assertThatThrownBy(() -> checkout.checkout(id, false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@IdempotentMethod on " + Orders.class.getName() + "#place")
                    .hasMessageContaining("transaction")
                    .hasMessageContaining("REQUIRES_NEW")
                    .hasMessageNotContaining(id);
            assertThat(orders.runs(id)).as("nothing ran").isZero();
            assertThat(orders.rows("tx_checkout", "order_id", id)).isZero();

            assertThat(orders.place(id)).as("outside a transaction the Redis store is fine").isEqualTo("placed " + id);
            assertThat(orders.place(id)).isEqualTo("placed " + id);
            assertThat(orders.runs(id)).isEqualTo(1);
        } finally {
            db.close();
        }
    }
}
