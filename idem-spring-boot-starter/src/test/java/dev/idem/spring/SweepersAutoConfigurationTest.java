package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Sweeper;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.spring.internal.MicrometerSweeperMeters;
import dev.idem.spring.internal.SweeperLifecycle;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Every table idem writes is purged under the starter: the key store's records and the inbox's
 * processed messages and attempt counters, each sweeper visible in meters, and an application's own
 * sweeper runs beside idem's instead of switching one off; with idem.inbox.partitions.width the inbox's
 * rows go with their partitions. Real databases: SQLite and PostgreSQL.
 */
class SweepersAutoConfigurationTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class, IdemListenerAutoConfiguration.class);
    private static final String CONSUMER = "sweepers-test";

    private static ApplicationContextRunner runner(TestDatabase db) {
        return new ApplicationContextRunner().withConfiguration(IDEM)
                .withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource()));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void inboxRowsAndAttemptCountersPastTheirRetentionGoAwayAndAreCounted(Backend backend) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TestDatabase db = backend.open()) {
            runner(db).withBean(MeterRegistry.class, () -> registry)
                    .withPropertyValues("idem.inbox.retention=200ms", "idem.sweeper.interval=20ms")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Inbox inbox = context.getBean(Inbox.class);
                        for (int i = 0; i < 3; i++) {
                            assertThat(inbox.process(CONSUMER, "processed-" + i, (connection, message) -> { }).status())
                                    .isEqualTo(InboxOutcome.Status.PROCESSED);
                        }
                        assertThat(inbox.recordFailure(CONSUMER, InboxMessage.of("failing-1"), new IllegalStateException("boom")).status())
                                .isEqualTo(InboxOutcome.Status.FAILED);
                        assertThat(rows(db, inbox.tableName()) + rows(db, inbox.quarantineTableName()))
                                .as("written").isEqualTo(4);

                        // The status is recorded after the run's deletes commit: wait for both, not only the rows.
                        awaitTrue(() -> rows(db, inbox.tableName()) == 0 && rows(db, inbox.quarantineTableName()) == 0
                                && registry.get(MicrometerSweeperMeters.REMOVED).tag("sweeper", "inbox").functionCounter().count() >= 4);

                        assertThat(registry.get(MicrometerSweeperMeters.REMOVED).tag("sweeper", "inbox").functionCounter().count())
                                .as("idem.sweeper.removed{sweeper=inbox}").isGreaterThanOrEqualTo(4);
                        assertThat(registry.get(MicrometerSweeperMeters.LAG).tag("sweeper", "inbox").timeGauge().value(TimeUnit.SECONDS))
                                .as("caught up: the lag is below a few intervals").isLessThan(10);
                        assertThat(registry.get(MicrometerSweeperMeters.LAG).tag("sweeper", "records").timeGauge()).isNotNull();
                        assertThat(registry.get(MicrometerSweeperMeters.LAST_RUN_FAILED).tag("sweeper", "inbox").gauge().value())
                                .isZero();
                    });
        }
    }

    @Test
    void withIdemInboxPartitionsWidthTheInboxTableIsPartitionedAndItsRowsGoWithTheirPartition() {
        try (TestDatabase db = Backend.POSTGRESQL.open()) {
            runner(db).withPropertyValues("idem.inbox.partitions.width=1s", "idem.inbox.retention=200ms", "idem.sweeper.interval=20ms")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Inbox inbox = context.getBean(Inbox.class);
                        assertThat(inbox.retentionPartitions()).as("idem.inbox.partitions.width").isPresent();
                        assertThat(inbox.retentionPartitions().orElseThrow().partitioned()).isTrue();
                        for (int i = 0; i < 3; i++) {
                            assertThat(inbox.process(CONSUMER, "processed-" + i, (connection, message) -> { }).status())
                                    .isEqualTo(InboxOutcome.Status.PROCESSED);
                        }
                        // Not deleted row by row: dropped with their partition once its bound (at most 1.2 s ahead) has passed.
                        awaitTrue(() -> rows(db, inbox.tableName()) == 0);
                    });
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anInboxNobodyUsesIsNotCreatedJustToBeSwept(Backend backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            runner(db).run(context -> {
                assertThat(context).hasNotFailed();
                Sweeper inboxSweeper = context.getBean("idemInboxSweeper", Sweeper.class);
                assertThat(inboxSweeper.isRunning()).as("started with the context").isTrue();
                assertThat(inboxSweeper.sweepOnce()).isZero();
                assertThat(tableExists(db, "idem_inbox")).as("no inbox tables").isFalse();
            });
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anApplicationsOwnSweeperRunsBesideIdemsInsteadOfReplacingThem(Backend backend) {
        AtomicInteger purges = new AtomicInteger();
        try (TestDatabase db = backend.open()) {
            runner(db).withPropertyValues("idem.sweeper.interval=20ms")
                    .withBean("ordersSweeper", Sweeper.class, () -> Sweeper.builder(limit -> {
                        purges.incrementAndGet();
                        return 0;
                    }).name("orders").interval(java.time.Duration.ofMillis(20)).build())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBeansOfType(Sweeper.class)).containsOnlyKeys("idemSweeper", "idemInboxSweeper", "ordersSweeper");
                        assertThat(context.getBean(SweeperLifecycle.class).sweepers()).extracting(Sweeper::name)
                                .containsExactlyInAnyOrder("records", "inbox", "orders");
                        assertThat(context.getBeansOfType(Sweeper.class).values()).allMatch(Sweeper::isRunning);
                        awaitTrue(() -> purges.get() > 0);
                    });
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 30 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static int rows(TestDatabase db, String table) {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE consumer = ?")) {
            ps.setString(1, CONSUMER);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean tableExists(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            try (ResultSet rs = meta.getTables(null, c.getSchema(), table, null)) {
                return rs.next();
            }
        }
    }
}
