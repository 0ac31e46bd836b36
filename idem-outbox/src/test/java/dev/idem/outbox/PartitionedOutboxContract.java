package dev.idem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.Concurrently;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The outbox with retention by partition on a real database, where partitions are dropped: under
 * publishers and relays, around an event that is not getting out, and around an append that commits
 * after its partition's time. The rest of the outbox's promise on a partitioned table is the
 * contract's (the Partitioned*OutboxTest classes). A backend's test says which database.
 */
abstract class PartitionedOutboxContract {
    private static final Duration WIDTH = Duration.ofMillis(250);
    /** Partitions for 2 s ahead: appends never outrun them while a purge runs every few ms. */
    private static final Duration HORIZON = Duration.ofSeconds(2);

    protected TestDatabase db;

    protected abstract Backends backend();

    @BeforeEach
    void open() {
        db = backend().open();
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Outbox partitioned(Duration retention, UnaryOperator<Outbox.Builder> more) {
        Outbox outbox = more.apply(Outbox.builder(db.dataSource()).retention(retention).retentionByPartition(WIDTH, HORIZON)).build();
        outbox.migrate();
        return outbox;
    }

    @Test
    @DisplayName("partitions dropped while publishers append and two relays publish, some publishes failing: no event lost, each published once, in order")
    void dropsUnderLoad() throws Exception {
        Outbox outbox = partitioned(Duration.ofMillis(300), b -> b);
        RetentionPartitions partitions = outbox.retentionPartitions().orElseThrow();
        Map<UUID, OutboxMessage> committed = new ConcurrentHashMap<>();
        List<OutboxMessage> published = new CopyOnWriteArrayList<>();
        OutboxPublisher flaky = m -> {
            if (ThreadLocalRandom.current().nextInt(8) == 0) {
                throw new IllegalStateException("broker hiccup");  // retried after a backoff: sent late, in a later slot than its event
            }
            published.add(m);
        };
        List<OutboxRelay> relays = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            relays.add(OutboxRelay.builder(outbox, flaky).name("load-" + i).pollInterval(Duration.ofMillis(5)).purgeInterval(Duration.ofMillis(20))
                    .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build().start());
        }
        try {
            OutboxMessage first = appendCommitted(outbox, "agg-0", committed);
            String firstPartition = partitionOf(partitions, first).name();
            long loadUntil = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            // Appends go on until the partition of the first event has been dropped under them (60 a thread at least).
            Concurrently.call(3, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < 60 || (present(partitions, firstPartition) && System.nanoTime() < loadUntil); n++) {
                    appendCommitted(outbox, "agg-" + random.nextInt(8), committed);
                }
                return null;
            });
            assertThat(present(partitions, firstPartition)).as("the first event's partition dropped during the run").isFalse();
            await("every event published", () -> outbox.pendingCount() == 0);
        } finally {
            relays.forEach(OutboxRelay::close);
        }

        assertThat(published).extracting(OutboxMessage::messageId).as("each event published once").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(committed.keySet());
        Map<String, List<Long>> sequences = new HashMap<>();
        for (OutboxMessage m : published) {
            sequences.computeIfAbsent(m.aggregateId(), k -> new ArrayList<>()).add(m.sequence());
        }
        sequences.forEach((aggregate, seen) -> assertThat(seen).as("sequences of %s", aggregate)
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, seen.size()).boxed().toList()));
        // Once everything is sent and past retention, every partition past its time goes.
        await("every partition past its time dropped", () -> {
            outbox.purge(1_000);
            return outbox.keptPartitions().isEmpty();
        });
    }

    @Test
    @DisplayName("an event that is not getting out keeps its partition past its time, and that is reported; once it is sent the partition goes")
    void pendingEventKeepsItsPartition() throws Exception {
        // Partitions of 1 s: each purge's ALTER TABLEs (MariaDB) keep up with them on a busy machine.
        Duration width = Duration.ofSeconds(1);
        Outbox outbox = partitioned(Duration.ofMillis(200), b -> b.retentionByPartition(width, Duration.ofSeconds(3)));
        RetentionPartitions partitions = outbox.retentionPartitions().orElseThrow();
        AtomicBoolean brokerDown = new AtomicBoolean(true);
        List<OutboxMessage> published = new CopyOnWriteArrayList<>();
        List<Outbox.KeptPartitions> reported = new CopyOnWriteArrayList<>();
        OutboxMessage stuck = appendCommitted(outbox, "stuck", new HashMap<>());
        OutboxMessage fine = appendCommitted(outbox, "fine", new HashMap<>());
        RetentionPartitions.Partition held = partitionOf(partitions, stuck);
        OutboxRelay relay = OutboxRelay.builder(outbox, m -> {
            if (m.aggregateId().equals("stuck") && brokerDown.get()) {
                throw new IllegalStateException("no route");
            }
            published.add(m);
        }).pollInterval(Duration.ofMillis(5)).purgeInterval(Duration.ofMillis(10)).backoff(Duration.ofHours(1), Duration.ofHours(1))
                .listener(new OutboxListener() {
                    @Override
                    public void partitionsKept(Outbox.KeptPartitions kept) {
                        reported.add(kept);
                    }
                }).build();
        try (relay) {
            relay.start();
            // Well past its time (its bound more than 1.5 s past the retention), and the later ones past theirs dropped.
            await("the held partition reported 1.5 s overdue", () -> reported.stream().anyMatch(k -> k.oldestLag().toMillis() >= 1_500));
            await("only the held partition left of those a width past their time", () -> {
                long due = dbNow() - outbox.retention().toMillis();
                return partitions.partitions().stream().filter(p -> p.to() <= due - width.toMillis()).map(RetentionPartitions.Partition::name)
                        .toList().equals(List.of(held.name()));
            });
            assertThat(published).extracting(OutboxMessage::messageId).containsExactly(fine.messageId());
            assertThat(count("SELECT count(*) FROM idem_outbox WHERE state = 0")).isEqualTo(1);
            Outbox.KeptPartitions kept = outbox.keptPartitions().orElseThrow();
            // The held one, and maybe one whose time passed since the last purge, for the next.
            assertThat(kept.count()).isBetween(1, 2);
            assertThat(kept.oldestLag()).isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
            assertThat(outbox.backlog(10).failing()).extracting(OutboxBacklog.FailingEvent::messageId).containsExactly(stuck.messageId().toString());

            brokerDown.set(false);
            exec("UPDATE idem_outbox SET next_attempt_at = 0 WHERE state = 0");
            await("the held partition dropped once its event is sent and past retention", () -> !present(partitions, held.name()));
        }
        assertThat(published).extracting(OutboxMessage::messageId).containsExactly(fine.messageId(), stuck.messageId());
        assertThat(count("SELECT count(*) FROM idem_outbox")).as("both events gone with their partitions").isZero();
    }

    @Test
    @DisplayName("an append still uncommitted when its partition's time has passed is waited for by the drop, and keeps its partition")
    void lateCommitKeepsItsPartition() throws Exception {
        // Partitions of 1 s, few to make (each an ALTER TABLE on MariaDB).
        Outbox outbox = partitioned(Duration.ofMillis(100), b -> b.retentionByPartition(Duration.ofSeconds(1), Duration.ofSeconds(2)));
        RetentionPartitions partitions = outbox.retentionPartitions().orElseThrow();
        // The same table's maintenance with a longer horizon: once it ran, the one under test makes no partition
        // ahead, whose DDL would wait for every open transaction on the table (MariaDB) before any drop is decided.
        RetentionPartitions ahead = partitioned(Duration.ofMillis(100), b -> b.retentionByPartition(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .retentionPartitions().orElseThrow();
        OutboxMessage late;
        try (Connection business = db.dataSource().getConnection()) {
            business.setAutoCommit(false);
            RetentionPartitions.Partition p;
            for (int attempt = 0; ; attempt++) {
                ahead.maintain();
                late = outbox.append(business, "payment", "late", "PaymentCaptured", "x".getBytes(StandardCharsets.UTF_8));
                p = partitionOf(partitions, late);
                if (partitions.partitions().get(0).equals(p)) {
                    break;
                }
                // An earlier partition would be dropped first, its drop waiting for this transaction, and the
                // late event's partition checked only after the commit: again, once the earlier ones are gone.
                assertThat(attempt).as("attempts to append into the lowest partition").isLessThan(20);
                business.rollback();
                long earlierDue = partitions.partitions().get(0).to() + outbox.retention().toMillis();
                await("the lowest partition's time passed", () -> dbNow() > earlierDue);
            }
            long due = p.to() + outbox.retention().toMillis();
            await("the partition's time passed", () -> dbNow() > due);
            AtomicReference<Object> result = new AtomicReference<>();
            Thread maintainer = new Thread(() -> {
                try {
                    result.set(partitions.maintain());
                } catch (RuntimeException e) {
                    result.set(e);
                }
            });
            maintainer.start();
            // The maintenance must wait for the business transaction, holding the partition, before it decides.
            await("the maintenance waits for the business transaction", () -> maintenanceWaits() || !maintainer.isAlive());
            assertThat(maintainer.isAlive()).as("the maintenance waits for the uncommitted append").isTrue();
            business.commit();
            maintainer.join();
            assertThat(result.get()).isInstanceOf(RetentionPartitions.Maintenance.class);
            assertThat(present(partitions, p.name())).as("the partition of the late event kept").isTrue();
        }
        List<OutboxMessage> published = new CopyOnWriteArrayList<>();
        assertThat(OutboxRelay.builder(outbox, published::add).build().runOnce()).isEqualTo(1);
        assertThat(published).extracting(OutboxMessage::messageId).containsExactly(late.messageId());
    }

    @Test
    @DisplayName("the layout's settings are checked")
    void layoutSettingsAreChecked() {
        assertThatThrownBy(() -> Outbox.builder(db.dataSource()).purgeRowsBetweenDrops(true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
        assertThatThrownBy(() -> Outbox.builder(db.dataSource()).retentionByPartition(Duration.ofDays(32)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("31 days");
        assertThatThrownBy(() -> Outbox.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("horizon");
        assertThatThrownBy(() -> Outbox.builder(db.dataSource()).retentionByPartition(Duration.ofMillis(1)).build())
                .as("the default horizon (1 day and 1 ms) over 1 ms widths").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10000 partitions");
        Outbox outbox = partitioned(Duration.ofDays(1), b -> b);
        assertThat(outbox.toString()).contains("retentionByPartition=PT0.25S");
        assertThat(outbox.retentionPartitions().orElseThrow().dropDelay()).isEqualTo(Duration.ofDays(1));
        assertThat(Outbox.builder(db.dataSource()).build().retentionPartitions()).isEmpty();
    }

    // ---- helpers ------------------------------------------------------------------------------

    private OutboxMessage appendCommitted(Outbox outbox, String aggregate, Map<UUID, OutboxMessage> committed) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxMessage m = outbox.append(c, "payment", aggregate, "E", "x".getBytes(StandardCharsets.UTF_8));
            c.commit();
            committed.put(m.messageId(), m);
            return m;
        }
    }

    private static RetentionPartitions.Partition partitionOf(RetentionPartitions partitions, OutboxMessage m) {
        long at = m.createdAt().toEpochMilli();
        // In bound order: the first whose upper bound is above (MariaDB lists its lowest partition from MINVALUE).
        return partitions.partitions().stream().filter(p -> at < p.to()).findFirst().orElseThrow();
    }

    private static boolean present(RetentionPartitions partitions, String name) {
        return partitions.partitions().stream().anyMatch(p -> p.name().equals(name));
    }

    /** Whether another session's statement on the outbox table (this test's database) is waiting for a lock. */
    private boolean maintenanceWaits() throws SQLException {
        if (backend() == Backends.MARIADB) {
            // Any statement of this database running for half a second while the business transaction sits
            // idle: the maintenance, blocked by it. (Matching its wait state alone missed one in a fresh-clone
            // run: a wait that was neither a metadata lock nor an InnoDB row lock naming the table.)
            return count("SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND DB = DATABASE()"
                    + " AND COMMAND = 'Query' AND TIME_MS > 500") > 0;
        }
        return count("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%idem_outbox%'"
                        + " AND wait_event_type = 'Lock' AND datname = current_database()") > 0;
    }

    private void exec(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    private long count(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long dbNow() throws SQLException {
        return count(backend() == Backends.MARIADB
                ? "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000"
                : "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint");
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    /** Polls {@code check} until it holds, failing after 30 s. */
    private static void await(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!check.holds()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
