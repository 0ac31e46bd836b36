package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.StoreException;
import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.UnusedDataSource;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The inbox's builder, names and ids against bad input, and its schema on real databases. */
class InboxSettingsTest {
    private static final DataSource UNUSED = new UnusedDataSource();

    @Test
    @DisplayName("each builder setter rejects a bad value and names it")
    void builderValidates() {
        Inbox.Builder b = Inbox.builder(UNUSED);
        assertThatThrownBy(() -> b.maxAttempts(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 0");
        assertThatThrownBy(() -> b.maxAttempts(1001)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1001");
        assertThatThrownBy(() -> b.retention(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> b.retention(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.retention(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.tableName("Inbox")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Inbox'");
        assertThatThrownBy(() -> b.tableName("inbox; drop table x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.quarantineTableName("q".repeat(49))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.listener(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.quarantineError((QuarantineError) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("quarantineError");
        assertThatThrownBy(() -> b.quarantineError((java.util.function.Function<Throwable, String>) null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("quarantineError");
        assertThatThrownBy(() -> b.dialect(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Inbox.builder((DataSource) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Inbox.builder(UNUSED).tableName("same").quarantineTableName("same").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'same'");
    }

    @Test
    @DisplayName("an unreachable database fails the build with a StoreException")
    void unreachableDatabase() {
        assertThatThrownBy(() -> Inbox.builder(UNUSED).build()).isInstanceOf(StoreException.class).hasMessageContaining("connect");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "tab\there", "ünïcode"})
    @DisplayName("consumer names are 1-200 visible ASCII characters")
    void badConsumerNames(String consumer) {
        assertThatThrownBy(() -> InboxNames.checkConsumer(consumer)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxNames.checkConsumer("c".repeat(201))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("201");
        assertThat(InboxNames.checkConsumer("orders.v2:billing/eu-1@kafka")).isNotNull();
    }

    @Test
    @DisplayName("the consumer-name rule for names set elsewhere names the setting, and never quotes the name")
    void consumerNameRuleNamesTheSetting() {
        assertThat(Inbox.checkConsumerName("ledger-1", "consumerName")).isEqualTo("ledger-1");
        assertThat(Inbox.checkConsumerName("x".repeat(200), "consumerName")).hasSize(200);
        assertThatThrownBy(() -> Inbox.checkConsumerName("x".repeat(201), "the group id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the group id must have 1-200 characters, was 201 characters");
        assertThatThrownBy(() -> Inbox.checkConsumerName("team ledger", "consumerName")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("consumerName must be visible ASCII (no spaces), has another character at position 4");
        assertThatThrownBy(() -> Inbox.checkConsumerName(null, "consumerName")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("consumerName must have 1-200 characters, was null");
    }

    @Test
    @DisplayName("message ids are 1-255 characters without control characters; errors never quote the id")
    void badMessageIds() {
        String secretish = "order-4711-" + "x".repeat(250);
        assertThatThrownBy(() -> InboxMessage.of(secretish)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("261 characters").hasMessageNotContaining("order-4711");
        assertThatThrownBy(() -> InboxMessage.of("order-4711\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position 10").hasMessageNotContaining("order-4711");
        assertThatThrownBy(() -> InboxMessage.of("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxMessage.of(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxMessage.of("id", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> InboxMessage.of("id", new byte[0], Map.of("", "v"))).isInstanceOf(IllegalArgumentException.class);
        assertThat(InboxMessage.of("ü-" + "x".repeat(253)).id()).hasSize(255);
        assertThatThrownBy(() -> InboxMessage.checkId("order-4711\uD800")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate at position 10").hasMessageNotContaining("order-4711");
        assertThat(InboxMessage.checkId("order-\uD83D\uDCB3")).isEqualTo("order-\uD83D\uDCB3");
    }

    @Test
    @DisplayName("a message copies its payload in and out and never shows it")
    void messageIsImmutable() {
        byte[] payload = {1, 2, 3};
        InboxMessage m = InboxMessage.of("m", payload, Map.of("h", "v"));
        payload[0] = 9;
        m.payload()[1] = 9;
        assertThat(m.payload()).containsExactly(1, 2, 3);
        assertThat(m.payloadLength()).isEqualTo(3);
        assertThatThrownBy(() -> m.headers().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(m.toString()).contains("3 bytes").contains("[h]");
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("custom table names: two inboxes in one database are independent; migrate is repeatable and safe when concurrent")
    void customTablesAndMigrations(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            Inbox orders = Inbox.builder(db.dataSource()).tableName("orders_inbox").quarantineTableName("orders_poison").maxAttempts(1).build();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CyclicBarrier start = new CyclicBarrier(4);
                List<Future<?>> runs = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    runs.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        orders.migrate();
                        return null;
                    }));
                }
                for (Future<?> run : runs) {
                    run.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            orders.migrate();
            Inbox standard = Inbox.builder(db.dataSource()).build();
            standard.migrate();

            assertThat(orders.process("c", "m", (c, m) -> { }).status()).isEqualTo(Status.PROCESSED);
            assertThat(standard.process("c", "m", (c, m) -> { }).status()).as("another table, another inbox").isEqualTo(Status.PROCESSED);
            assertThat(orders.process("c", "poison", (c, m) -> {
                throw new IllegalStateException("x");
            }).status()).isEqualTo(Status.QUARANTINED);
            assertThat(count(db, "SELECT count(*) FROM orders_inbox")).isEqualTo(2);
            assertThat(count(db, "SELECT count(*) FROM orders_poison")).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM idem_inbox")).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM idem_quarantine")).isZero();
            assertThat(count(db, "SELECT count(*) FROM orders_inbox_schema_history")).as("one migration, recorded once").isEqualTo(1);
            assertThat(orders.tableName()).isEqualTo("orders_inbox");
            assertThat(orders.quarantineTableName()).isEqualTo("orders_poison");
            assertThat(orders.dialect()).isEqualTo(backend.dialect());
            assertThat(orders.toString()).contains("orders_inbox");
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("an inbox built from a store shares its database and dialect; the store's migrate does not create inbox tables")
    void fromStore(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            Inbox inbox = Inbox.builder(store).retention(Duration.ofDays(2)).build();
            assertThat(tableExists(db, "idem_inbox")).isFalse();
            inbox.migrate();

            assertThat(inbox.dialect()).isEqualTo(store.dialect());
            assertThat(inbox.retention()).isEqualTo(Duration.ofDays(2));
            assertThat(inbox.maxAttempts()).isEqualTo(5);
            assertThat(inbox.process("c", "m", (c, m) -> { }).status()).isEqualTo(Status.PROCESSED);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("without its tables, the inbox fails with a StoreException that names the consumer, not the message id")
    void missingTables(Backends backend) {
        try (TestDatabase db = backend.open()) {
            Inbox inbox = Inbox.builder(db.dataSource()).build();
            assertThatThrownBy(() -> inbox.process("billing", "secret-id-42", (c, m) -> { }))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("billing").hasMessageNotContaining("secret-id-42");
        }
    }

    private static long count(TestDatabase db, String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean tableExists(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.executeQuery("SELECT count(*) FROM " + table).close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

}
