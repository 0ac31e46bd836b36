package dev.idem.inbox;

import java.time.Duration;

/**
 * The inbox contract on MariaDB on an inbox table RANGE-partitioned by expiry (retention by
 * partition), partitions of 31 days (three or four for the default 7-day retention: few to create per test); see PostgresPartitionedInboxTest.
 */
class MariadbPartitionedInboxTest extends MariadbInboxTest {
    @Override
    protected Inbox.Builder layout(Inbox.Builder builder) {
        return builder.retentionByPartition(Duration.ofDays(31)).purgeRowsBetweenDrops(true);
    }

    /** The ids' bucket locks. */
    /** The full long run is the unpartitioned table's; here 3,000 messages, with every path it takes (batches, fallbacks, retries). */
    @Override
    protected int longRunMessages() {
        return 3_000;
    }

    @Override
    protected int statementsBeforeClaim() {
        return 1;
    }

    /** A second delivery waits for the first one's bucket lock, before its claim. */
    @Override
    protected String waitingClaim() {
        return "INSERT INTO idem_inbox_lock%";
    }
}
