package dev.idem.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** An outbox whose dialect's files lack a statement it or its relay runs is refused at {@code build()}, and so is retention by partition on SQLite. */
class IncompleteDialectTest {

    @Test
    void outboxWithoutItsHeadsLeaseIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            Outbox.Builder builder = Outbox.builder(db.dataSource()).dialect(Dialect.MARIADB)
                    .sqlSource(SqlStatements.Source.of(Outbox.class).without("outbox_lease_heads"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/outbox/mariadb/outbox.sql")
                    .hasMessageContaining("'outbox_lease_heads'");
        }
    }

    @Test
    void partitionedOutboxWithoutItsLiveRowsCheckIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            Outbox.Builder builder = Outbox.builder(db.dataSource()).dialect(Dialect.POSTGRESQL).retentionByPartition(java.time.Duration.ofHours(6))
                    .sqlSource(SqlStatements.Source.of(Outbox.class).without("partition_live_rows"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("PostgreSQL").hasMessageContaining("dev/idem/outbox/postgresql/outbox-partitioned.sql")
                    .hasMessageContaining("'partition_live_rows'");
        }
    }

    @Test
    void partitionedOutboxOnSqliteIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            assertThatThrownBy(() -> Outbox.builder(db.dataSource()).retentionByPartition(java.time.Duration.ofHours(6)).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition").hasMessageContaining("SQLite");
        }
    }
}
