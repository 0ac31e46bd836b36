package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.testing.Backends;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Retention by partition on MariaDB: the contract (the live conversion of an unpartitioned table among it), and the RANGE layout migrate() creates. */
class MariadbRetentionPartitionsTest extends RetentionPartitionsContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }

    @Test
    @DisplayName("migrate() creates the table RANGE-partitioned by expires_at, its bucket lock table, partitions past the horizon; convert() is a no-op on it")
    void migrateCreatesPartitionedTable() throws SQLException {
        JdbcIdempotencyStore store = partitioned(Duration.ofMinutes(10), Duration.ofHours(1));
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        assertThat(partitions.partitioned()).isTrue();
        assertThat(single("SELECT DISTINCT PARTITION_METHOD FROM information_schema.PARTITIONS "
                + "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record'")).isEqualTo("RANGE");
        assertThat(single("SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record_lock'"))
                .isEqualTo("1");
        assertThat(partitions.partitions().get(partitions.partitions().size() - 1).to())
                .isGreaterThanOrEqualTo(dbNow() + Duration.ofHours(1).toMillis());
        int count = partitions.partitions().size();
        store.migrate();
        assertThat(partitions.partitions()).hasSize(count);
        partitions.convert();
        assertThat(partitions.partitions()).hasSize(count);
    }

    @Test
    @DisplayName("a conversion that stopped between CONVERT TABLE and the rename (the table's name left without a table) is finished by the next call")
    void convertFinishesAStoppedRename() throws Exception {
        JdbcIdempotencyStore before = Backends.migratedStore(db);
        store(before, key("kept"), "kept", Duration.ofMinutes(1));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofSeconds(10), Duration.ofMinutes(5)).build();
        store.migrate();
        RetentionPartitions partitions = store.retentionPartitions().orElseThrow();
        partitions.convert();
        // The layout's structure, as migrate() makes it for a table created partitioned: the key with expires_at, V1's and V6's indexes.
        assertThat(single("SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS "
                + "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record' AND INDEX_NAME = 'PRIMARY'")).isEqualTo("scope,idem_key,expires_at");
        assertThat(single("SELECT GROUP_CONCAT(DISTINCT INDEX_NAME ORDER BY INDEX_NAME) FROM information_schema.STATISTICS "
                + "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record'"))
                .isEqualTo("idem_record_expires_at_idx,idem_record_in_progress_idx,PRIMARY");
        // What MariaDB's separately committed DDL leaves if the session ends after CONVERT TABLE: the data under the parent's name.
        exec("RENAME TABLE idem_record TO idem_record_parted");
        partitions.convert();
        assertThat(partitions.partitioned()).isTrue();
        assertThat(single("SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record_parted'"))
                .isEqualTo("0");
        assertThat(claim(store, key("kept"), Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .isEqualTo(new dev.idem.spi.ClaimOutcome.Replay(body("kept")));
    }
}
