package dev.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The offset table on each real database: migrations, writes in the caller's transaction, upserts, reads. */
class KafkaOffsetStoreTest {
    private static final TopicPartition P0 = new TopicPartition("payments", 0);
    private static final TopicPartition P1 = new TopicPartition("payments", 1);
    private static final TopicPartition OTHER = new TopicPartition("refunds", 0);

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("migrate() is idempotent and safe when several instances run it at once")
    void migrations(Backend backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            KafkaOffsetStore store = KafkaOffsetStore.builder(db.dataSource()).build();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    runs.add(pool.submit(store::migrate));
                }
                for (Future<?> run : runs) {
                    run.get();
                }
            } finally {
                pool.shutdownNow();
            }
            store.migrate();
            assertThat(count(db, "SELECT count(*) FROM idem_kafka_offset_schema_history")).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM idem_kafka_offset")).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("offsets are written in the caller's transaction: gone with a rollback, kept with a commit, last write wins")
    void writesFollowTheTransaction(Backend backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            KafkaOffsetStore store = KafkaOffsetStore.builder(db.dataSource()).build();
            store.migrate();
            try (Connection c = db.dataSource().getConnection()) {
                assertThatThrownBy(() -> store.write(c, "g", Map.of(P0, 1L))).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("auto-commit");
                c.setAutoCommit(false);
                store.write(c, "g", Map.of(P0, 10L, P1, 20L));
                c.rollback();
                assertThat(store.read("g", List.of(P0, P1))).isEmpty();
                store.write(c, "g", Map.of(P0, 10L, P1, 20L, OTHER, 5L));
                c.commit();
                store.write(c, "g", Map.of(P0, 11L));
                store.write(c, "other-group", Map.of(P0, 99L));
                c.commit();
                assertThatThrownBy(() -> store.write(c, "g", Map.of(P0, -1L))).hasMessageContaining("-1");
                c.rollback();
                c.setAutoCommit(true);
            }
            assertThat(store.read("g", List.of(P0, P1))).isEqualTo(Map.of(P0, 11L, P1, 20L));
            assertThat(store.read("g", List.of(P1, OTHER))).isEqualTo(Map.of(P1, 20L, OTHER, 5L));
            assertThat(store.read("other-group", List.of(P0, P1))).isEqualTo(Map.of(P0, 99L));
            assertThat(store.read("nobody", List.of(P0))).isEmpty();
            assertThatThrownBy(() -> store.read("", List.of(P0))).hasMessageContaining("group id");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("the file is V5 in idem's shared sequence, and the history still records it as 1, as earlier builds did: their databases are not migrated again")
    void historyKeepsTheNumberEarlierBuildsWrote(Backend backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            KafkaOffsetStore store = KafkaOffsetStore.builder(db.dataSource()).build();
            store.migrate();
            assertThat(count(db, "SELECT version FROM idem_kafka_offset_schema_history")).isEqualTo(1);
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                store.write(c, "g", Map.of(P0, 3L));
                c.commit();
                c.setAutoCommit(true);
            }
            store.migrate();
            assertThat(count(db, "SELECT count(*) FROM idem_kafka_offset_schema_history")).isEqualTo(1);
            assertThat(store.read("g", List.of(P0))).isEqualTo(Map.of(P0, 3L));
            assertThat(KafkaOffsetStore.class.getResource("/db/idem-migrations/" + backend.name().toLowerCase(java.util.Locale.ROOT)
                    + "/V5__create_idem_kafka_offset.sql")).isNotNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("a custom table name is used for the table and its history")
    void customTableName(Backend backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            KafkaOffsetStore store = KafkaOffsetStore.builder(db.dataSource()).tableName("ledger_offsets").build();
            store.migrate();
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                store.write(c, "g", Map.of(P0, 7L));
                c.commit();
                c.setAutoCommit(true);
            }
            assertThat(count(db, "SELECT next_offset FROM ledger_offsets")).isEqualTo(7);
            assertThat(count(db, "SELECT count(*) FROM ledger_offsets_schema_history")).isEqualTo(1);
            assertThat(store.toString()).contains("ledger_offsets");
        }
    }

    private static long count(TestDatabase db, String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
