package dev.idem.upserts;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Upserts and windowed totals whose dialect's files lack a statement they run are refused when built. */
class IncompleteDialectTest {

    @Test
    void upsertsWithoutTheirInsertedFlagAreRefused() {
        SqlStatements.Source files = SqlStatements.Source.of(Upserts.class).without("upsert_inserted_flag");
        assertThatThrownBy(() -> Upserts.load(Dialect.POSTGRESQL, files)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PostgreSQL").hasMessageContaining("dev/idem/upserts/postgresql/upserts.sql")
                .hasMessageContaining("'upsert_inserted_flag'");
    }

    @Test
    void windowedTotalsWithoutTheirLockingReadAreRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            WindowedTotals.Builder builder = WindowedTotals.builder(db.dataSource()).dialect(Dialect.MARIADB).name("charges")
                    .window(Duration.ofMinutes(1)).sqlSource(SqlStatements.Source.of(WindowedTotals.class).without("window_range_locked"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/upserts/mariadb/window_totals.sql")
                    .hasMessageContaining("'window_range_locked'");
        }
    }
}
