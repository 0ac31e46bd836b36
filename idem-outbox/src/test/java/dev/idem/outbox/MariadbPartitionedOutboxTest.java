package dev.idem.outbox;

import java.time.Duration;

/**
 * The outbox contract on MariaDB on an outbox table partitioned by event time (retention by
 * partition), partitions of 31 days: few to create per test, and none past its time during one. The
 * contract counts purged events exactly, so its purge deletes sent events between drops too; dropping
 * partitions is held to account in MariadbPartitionedOutboxPurgeTest.
 */
class MariadbPartitionedOutboxTest extends MariadbOutboxTest {
    @Override
    protected Outbox.Builder layout(Outbox.Builder builder) {
        return builder.retentionByPartition(Duration.ofDays(31)).purgeRowsBetweenDrops(true);
    }
}
