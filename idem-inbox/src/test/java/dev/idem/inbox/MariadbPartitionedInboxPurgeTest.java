package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.testing.Backends;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract on MariaDB, and what only it has. */
class MariadbPartitionedInboxPurgeTest extends PartitionedInboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }

    @Test
    @DisplayName("convert() on an inbox table created partitioned is a no-op")
    void convertIsANoOpOnAPartitionedTable() {
        RetentionPartitions partitions = partitioned(Duration.ofSeconds(30), b -> b).retentionPartitions().orElseThrow();
        int count = partitions.partitions().size();
        partitions.convert();
        assertThat(partitions.partitions()).hasSize(count);
    }

    @Test
    @DisplayName("a conversion whose CONVERT TABLE fails (a table idem did not shape) puts the quarantined rows it had moved back, and the next one completes")
    void failedSwapRestoresTheQuarantinedRows() throws Exception {
        unpartitionedWithHistory(Duration.ofDays(7));
        Inbox inbox = switched(Duration.ofSeconds(30), Duration.ofSeconds(1));
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        // An index of the operator's own: CONVERT TABLE refuses tables whose definitions differ, after the quarantined rows have moved.
        exec("CREATE INDEX ops_seen_at ON idem_inbox (seen_at)");
        assertThatThrownBy(partitions::convert).isInstanceOf(RuntimeException.class);
        assertThat(partitions.partitioned()).isFalse();
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).as("still quarantined").isEqualTo(InboxOutcome.Status.QUARANTINED);
        assertThat(inbox.process(CONSUMER, "before-1", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);

        exec("DROP INDEX ops_seen_at ON idem_inbox");
        partitions.convert();
        assertThat(partitions.partitioned()).isTrue();
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.QUARANTINED);
        assertThat(count("SELECT count(*) FROM idem_inbox WHERE expires_at < 1")).isEqualTo(1);
        assertThat(inbox.process(CONSUMER, "before-1", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
    }
}
