package dev.idem.upserts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.testing.Backends;
import dev.idem.outbox.Outbox;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The numbered migration files as a DBA sees them, and the tracks that apply them. */
class MigrationsTest {

    @Test
    @DisplayName("versions run 1, 2, 3, ... without gaps, and every dialect has every file")
    void everyDialectHasEveryVersion() {
        List<Migrator.Migration> migrations = Migrator.MIGRATIONS;
        for (int i = 0; i < migrations.size(); i++) {
            assertThat(migrations.get(i).version()).isEqualTo(i + 1);
            if (!inThisBuild(migrations.get(i))) {
                continue;  // idem-kafka's file: KafkaOffsetStoreTest and the starter's IdemMigrationFilesTest read it
            }
            for (Dialect dialect : Dialect.values()) {
                SqlStatements.Source files = filesOf(migrations.get(i));
                String file = Migrator.idemFolder(dialect) + "V" + (i + 1) + "__" + migrations.get(i).description() + ".sql";
                assertThat(files.read(file)).as(file).isNotBlank();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    @DisplayName("a DBA runs the plain files in order by hand; migrate() afterwards is harmless and everything works")
    void plainFilesByHand(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            Dialect dialect = backend.dialect();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                for (Migrator.Migration m : Migrator.MIGRATIONS.stream().filter(MigrationsTest::inThisBuild).toList()) {
                    SqlStatements.Source files = filesOf(m);
                    String script = files.read(Migrator.idemFolder(dialect) + "V" + m.version() + "__" + m.description() + ".sql");
                    for (String statement : Migrator.statements(script)) {
                        st.execute(statement);
                    }
                }
            }
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            Inbox inbox = Inbox.builder(store).build();
            Outbox outbox = Outbox.builder(store).build();
            WindowedTotals totals = WindowedTotals.builder(db.dataSource()).name("charges_per_minute").window(Duration.ofMinutes(1)).build();
            store.migrate();
            inbox.migrate();
            outbox.migrate();
            totals.migrate();

            assertThat(inbox.process("c", "m", (c, m) -> outbox.append(c, "agg", "1", "E", new byte[0])).status())
                    .isEqualTo(InboxOutcome.Status.PROCESSED);
            assertThat(outbox.pendingCount()).isEqualTo(1);
            assertThat(historyVersions(db, "idem_record_schema_history")).containsExactly(1, 6);
            assertThat(historyVersions(db, "idem_inbox_schema_history")).containsExactly(2);
            assertThat(historyVersions(db, "idem_outbox_schema_history")).containsExactly(3);
            assertThat(historyVersions(db, "idem_window_total_schema_history")).containsExactly(4);
            Instant minute = Instant.parse("2025-03-01T10:00:00Z");
            totals.recompute(minute, minute.plusSeconds(60), List.of(new WindowedTotals.Event("e", minute, "EUR", 5)));
            assertThat(totals.totals(minute, minute.plusSeconds(60))).containsExactly(new WindowedTotals.WindowTotal(minute, "EUR", 1, 5));
        }
    }

    private static List<Integer> historyVersions(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM " + table + " ORDER BY version")) {
            List<Integer> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getInt(1));
            }
            return out;
        }
    }

    /** The tracks of this module's dependencies (not idem-kafka's offsets). */
    private static boolean inThisBuild(Migrator.Migration migration) {
        return !migration.track().equals("idem_kafka_offset");
    }

    /** Each track's files live in its component's module. */
    private static SqlStatements.Source filesOf(Migrator.Migration migration) {
        Class<?> component = switch (migration.track()) {
            case Tables.DEFAULT_RECORD_TABLE -> Dialect.class;
            case Tables.DEFAULT_INBOX_TABLE -> Inbox.class;
            case Tables.DEFAULT_OUTBOX_TABLE -> Outbox.class;
            case Tables.DEFAULT_WINDOW_TOTAL_TABLE -> WindowedTotals.class;
            default -> throw new IllegalArgumentException("no component for track " + migration.track());
        };
        return SqlStatements.Source.of(component);
    }
}
