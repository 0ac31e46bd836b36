package dev.idem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.StoreException;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.UnusedDataSource;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The outbox's and relay's builders against bad input, the relay's backoff, and custom outbox tables. */
class OutboxSettingsTest {

    @Test
    @DisplayName("each builder setter rejects a bad value and names it")
    void buildersValidate() {
        Outbox.Builder b = Outbox.builder(new UnusedDataSource());
        assertThatThrownBy(() -> b.retention(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> b.tableName("Outbox")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Outbox'");
        assertThatThrownBy(() -> b.dialect(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(b::build).isInstanceOf(StoreException.class).hasMessageContaining("connect");
        assertThatThrownBy(() -> Outbox.builder((javax.sql.DataSource) null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("a header source's headers are stored with every appended event; append's own headers win for the same name")
    void headerSourceHeadersAreStoredWithEachEvent(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            Map<String, String> current = new java.util.HashMap<>(Map.of("traceparent", "00-aaaa-01", "tracestate", "a=1"));
            Outbox outbox = Outbox.builder(db.dataSource()).headers(() -> Map.copyOf(current)).build();
            outbox.migrate();
            assertThatThrownBy(() -> Outbox.builder(db.dataSource()).headers(null)).isInstanceOf(NullPointerException.class);
            OutboxMessage plain;
            OutboxMessage overriding;
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                plain = outbox.append(c, "payment", "p-1", "Captured", new byte[] {1});
                current.put("traceparent", "00-bbbb-01");
                overriding = outbox.append(c, "payment", "p-1", "Refunded", new byte[] {2}, Map.of("tracestate", "mine"));
                c.commit();
            }
            assertThat(plain.headers()).containsExactlyInAnyOrderEntriesOf(Map.of("traceparent", "00-aaaa-01", "tracestate", "a=1"));
            assertThat(overriding.headers()).as("asked per append; the caller's header wins")
                    .containsExactlyInAnyOrderEntriesOf(Map.of("traceparent", "00-bbbb-01", "tracestate", "mine"));
            java.util.List<OutboxMessage> stored = new java.util.ArrayList<>();
            OutboxRelay relay = OutboxRelay.builder(outbox, stored::add).build();
            relay.runOnce();
            assertThat(stored).extracting(OutboxMessage::headers).as("what the relay hands the publisher")
                    .containsExactly(plain.headers(), overriding.headers());
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("relay settings are validated; backoff doubles from its base, is capped, and jitters within the upper half")
    void relaySettingsAndBackoff(Backends backend) {
        try (TestDatabase db = backend.open()) {
            Outbox outbox = Outbox.builder(db.dataSource()).build();
            OutboxRelay.Builder b = OutboxRelay.builder(outbox, m -> { });
            assertThatThrownBy(() -> OutboxRelay.builder(null, m -> { })).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> OutboxRelay.builder(outbox, null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> b.maxAggregates(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 0");
            assertThatThrownBy(() -> b.maxPerAggregate(10_001)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10001");
            assertThatThrownBy(() -> b.purgeBatchSize(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.pollInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollInterval");
            assertThatThrownBy(() -> b.lease(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("lease");
            assertThatThrownBy(() -> b.purgeInterval(Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("below");
            assertThatThrownBy(() -> b.name("has space")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'has space'");
            assertThatThrownBy(() -> b.listener(null)).isInstanceOf(NullPointerException.class);

            OutboxRelay relay = b.name("billing-relay").backoff(Duration.ofMillis(100), Duration.ofMillis(1000)).build();
            assertThat(relay.name()).isEqualTo("billing-relay");
            for (int i = 0; i < 200; i++) {
                assertThat(relay.backoff(1).toMillis()).isBetween(50L, 100L);
                assertThat(relay.backoff(3).toMillis()).isBetween(200L, 400L);
                assertThat(relay.backoff(5).toMillis()).isBetween(500L, 1000L);
                assertThat(relay.backoff(1000).toMillis()).isBetween(500L, 1000L);
            }
            relay.close();  // never started: nothing to stop
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("a custom outbox table brings its own sequence table; built from a store it shares the store's dialect")
    void customTable(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            Outbox events = Outbox.builder(store).tableName("billing_events").retention(Duration.ofHours(2)).build();
            events.migrate();
            events.migrate();
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                events.append(c, "invoice", "i-1", "Issued", new byte[] {1}, Map.of());
                c.commit();
                c.setAutoCommit(true);
            }
            assertThat(events.pendingCount()).isEqualTo(1);
            assertThat(events.dialect()).isEqualTo(store.dialect());
            assertThat(events.retention()).isEqualTo(Duration.ofHours(2));
            assertThat(events.tableName()).isEqualTo("billing_events");
            assertThat(events.toString()).contains("billing_events");
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT last_sequence FROM billing_events_sequence")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        }
    }
}
