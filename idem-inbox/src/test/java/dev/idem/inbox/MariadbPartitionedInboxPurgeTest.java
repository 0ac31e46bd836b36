package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.testing.Backends;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract on MariaDB; converting a live inbox table is not available there (its quarantined rows need a partition of their own). */
class MariadbPartitionedInboxPurgeTest extends PartitionedInboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }

    @Test
    @DisplayName("convert() refuses a live unpartitioned inbox table on MariaDB, saying why, and leaves it working; on a partitioned one it is a no-op")
    void convertIsRefusedOnMariadb() throws Exception {
        Inbox.builder(db.dataSource()).build().migrate();
        Inbox inbox = Inbox.builder(db.dataSource()).retention(Duration.ofSeconds(30)).retentionByPartition(Duration.ofSeconds(1)).build();
        inbox.migrate();
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        assertThatThrownBy(partitions::convert).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("idem_inbox").hasMessageContaining("quarantined");
        assertThat(partitions.partitioned()).isFalse();
        assertThat(inbox.process(CONSUMER, "m", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(inbox.process(CONSUMER, "m", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);

        Inbox created = partitioned(Duration.ofSeconds(30), b -> b.tableName("made_inbox").quarantineTableName("made_quarantine"));
        RetentionPartitions made = created.retentionPartitions().orElseThrow();
        int count = made.partitions().size();
        made.convert();
        assertThat(made.partitions()).hasSize(count);
    }
}
