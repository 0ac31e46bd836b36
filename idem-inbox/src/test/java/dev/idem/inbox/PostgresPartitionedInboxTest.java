package dev.idem.inbox;

import java.time.Duration;

/**
 * The inbox contract on PostgreSQL on an inbox table partitioned by expiry (retention by partition),
 * partitions of 31 days (three or four for the default 7-day retention: few to create per test). The contract counts purged rows exactly, so its purge deletes expired rows
 * between drops too; dropping partitions is held to account in PostgresPartitionedInboxPurgeTest.
 */
class PostgresPartitionedInboxTest extends PostgresInboxTest {
    @Override
    protected Inbox.Builder layout(Inbox.Builder builder) {
        return builder.retentionByPartition(Duration.ofDays(31)).purgeRowsBetweenDrops(true);
    }

    /** The ids' advisory locks. */
    /** The full long run is the unpartitioned table's; here 3,000 messages, with every path it takes (batches, fallbacks, retries). */
    @Override
    protected int longRunMessages() {
        return 3_000;
    }

    @Override
    protected int statementsBeforeClaim() {
        return 1;
    }
}
