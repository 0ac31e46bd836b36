package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.Concurrently;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract on PostgreSQL, and the live conversion of an unpartitioned inbox table (RetentionPartitions.convert, as the key store's). */
class PostgresPartitionedInboxPurgeTest extends PartitionedInboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }

    /** Today's unpartitioned inbox, with messages handled and one quarantined before any instance has the layout. */
    private void unpartitionedWithHistory(Duration retention) {
        Inbox plain = Inbox.builder(db.dataSource()).retention(retention).maxAttempts(1).build();
        plain.migrate();
        for (int i = 0; i < 20; i++) {
            assertThat(plain.process(CONSUMER, "before-" + i, (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.PROCESSED);
        }
        assertThat(plain.process(CONSUMER, "poison", (c, m) -> {
            throw new IllegalStateException("poison");
        }).status()).isEqualTo(Status.QUARANTINED);
    }

    /** An instance deployed with the layout on the old table (migrate() leaves it as it is). */
    private Inbox switched(Duration retention, Duration width) {
        Inbox inbox = Inbox.builder(db.dataSource()).retention(retention).maxAttempts(1).retentionByPartition(width).build();
        inbox.migrate();
        return inbox;
    }

    @Test
    @DisplayName("converting a live inbox table under concurrent deliveries: no message is handled twice, every one before and after is a duplicate, the quarantined one stays")
    void convertUnderLoad() throws Exception {
        unpartitionedWithHistory(Duration.ofDays(7));
        Inbox inbox = switched(Duration.ofSeconds(30), Duration.ofSeconds(1));
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        assertThat(partitions.partitioned()).isFalse();
        // The layout's own quarantine on the old table, before the conversion.
        assertThat(inbox.process(CONSUMER, "poison-2", (c, m) -> {
            throw new IllegalStateException("poison");
        }).status()).isEqualTo(Status.QUARANTINED);

        int ids = 100;
        AtomicBoolean converted = new AtomicBoolean();
        AtomicInteger deliveriesAfter = new AtomicInteger();
        CyclicBarrier halfway = new CyclicBarrier(5);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            tasks.add(() -> {
                // Every id delivered by every thread, until a whole pass has run after the conversion.
                for (int round = 0, passesAfter = 0; round < 2 || passesAfter < 1; round++) {
                    boolean after = converted.get();
                    for (int i = 0; i < ids; i++) {
                        inbox.process(CONSUMER, "load-" + i, (c, m) -> insertLedger(c, m.id()));
                        if (converted.get()) {
                            deliveriesAfter.incrementAndGet();
                        }
                    }
                    if (round == 0) {
                        halfway.await(30, TimeUnit.SECONDS);
                    }
                    if (after) {
                        passesAfter++;
                    }
                }
                return null;
            });
        }
        tasks.add(() -> {
            halfway.await(30, TimeUnit.SECONDS);
            partitions.convert();
            converted.set(true);
            return null;
        });
        Concurrently.callAll(tasks);

        assertThat(partitions.partitioned()).isTrue();
        assertThat(partitions.partitions().get(0).from()).as("the old table is the first partition").isNull();
        assertThat(deliveriesAfter.get()).isPositive();
        List<String> handled = column("SELECT message_id FROM ledger");
        assertThat(handled).doesNotHaveDuplicates().hasSize(20 + ids);
        for (String id : handled) {
            assertThat(inbox.process(CONSUMER, id, (c, m) -> insertLedger(c, m.id())).status()).as(id).isEqualTo(Status.DUPLICATE);
        }
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.process(CONSUMER, "poison-2", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.process(CONSUMER, "after", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.PROCESSED);
        assertThat(count("SELECT count(*) FROM (SELECT 1 FROM idem_inbox GROUP BY consumer, message_id HAVING count(*) > 1) d"))
                .as("ids held twice").isZero();
        // Converting again changes nothing; an instance without the layout is refused now.
        int count = partitions.partitions().size();
        partitions.convert();
        assertThat(partitions.partitions()).hasSize(count);
        assertThatThrownBy(() -> Inbox.builder(db.dataSource()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
    }

    @Test
    @DisplayName("a converted inbox table is dropped whole once its cut-over has passed; its quarantined messages move to the kept partition and stay quarantined")
    void convertedTableIsDroppedOnceItsCutOverPasses() throws Exception {
        unpartitionedWithHistory(Duration.ofMillis(300));
        Inbox inbox = switched(Duration.ofMillis(300), Duration.ofMillis(500));
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        partitions.convert();
        RetentionPartitions.Partition legacy = partitions.partitions().get(0);
        assertThat(legacy.from()).isNull();
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).doesNotContain("idem_inbox_pkeep");
        // Quarantined after the conversion, before the cut-over: into the old table, which covers the kept range until it goes.
        assertThat(inbox.process(CONSUMER, "poison-after", (c, m) -> {
            throw new IllegalStateException("poison");
        }).status()).isEqualTo(Status.QUARANTINED);
        awaitDbTimePast(legacy.to());
        inbox.purge(1_000);
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name)
                .doesNotContain(legacy.name()).contains("idem_inbox_pkeep");
        assertThat(count("SELECT count(*) FROM idem_inbox WHERE message_id LIKE 'before-%'")).as("gone with the old table").isZero();
        assertThat(count("SELECT count(*) FROM idem_inbox_pkeep")).as("the quarantined rows, moved").isEqualTo(2);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.process(CONSUMER, "poison-after", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.replay(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.PROCESSED);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.DUPLICATE);
        // Later drops work as on a table created partitioned: the kept partition stays.
        inbox.purge(1_000);
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).contains("idem_inbox_pkeep");
    }
}
