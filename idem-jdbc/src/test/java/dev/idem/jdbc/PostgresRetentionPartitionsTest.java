package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.TestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Retention by partition on PostgreSQL: the contract (the live conversion of an unpartitioned table among it), and the layout migrate() creates. */
class PostgresRetentionPartitionsTest extends RetentionPartitionsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }

    @Test
    @DisplayName("migrate() creates the table partitioned by expires_at, without a DEFAULT partition, with partitions past the horizon")
    void migrateCreatesPartitionedTable() throws SQLException {
        JdbcIdempotencyStore store = partitioned(Duration.ofMinutes(10), Duration.ofHours(1));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        long now = dbNow();
        List<RetentionPartitions.Partition> list = partitions.partitions();
        assertThat(partitions.partitioned()).isTrue();
        assertThat(list.get(0).from()).isLessThanOrEqualTo(now);
        assertThat(list.get(list.size() - 1).to()).isGreaterThanOrEqualTo(now + Duration.ofHours(1).toMillis());
        for (int i = 1; i < list.size(); i++) {
            assertThat(list.get(i).from()).as("contiguous").isEqualTo(list.get(i - 1).to());
        }
        assertThat(single("SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'idem_record'::regclass")).isEqualTo("r");
        assertThat(single("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'idem_record'::regclass AND partdefid <> 0"))
                .isEqualTo("0");
        // A second migrate (another instance starting) changes nothing.
        store.migrate();
        assertThat(partitions.partitions()).hasSize(list.size());
    }

    @Test
    @DisplayName("the builder refuses a layout it cannot keep: SQLite, coalesced commits, a horizon shorter than a partition")
    void builderRefusesWhatItCannotKeep() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("horizon");
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1))
                .coalesceCommits(true).build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("coalesceCommits");
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(db.dataSource()).purgeRowsBetweenDrops(true))
                .isInstanceOf(IllegalStateException.class);
        try (TestDatabase sqlite = Backends.SQLITE.open()) {
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(sqlite.dataSource()).retentionByPartition(Duration.ofHours(1)).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("PostgreSQL");
        }
    }
}
