package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.Concurrently;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The inbox with retention by partition on a real database, where partitions are dropped: under
 * concurrent deliveries, by default instead of deleting rows, and around quarantined messages. The
 * rest of the inbox's promise on a partitioned table is the contract's (the Partitioned*InboxTest
 * classes). A backend's test says which database.
 */
abstract class PartitionedInboxContract {
    protected static final String CONSUMER = "ledger";
    private static final Duration WIDTH = Duration.ofSeconds(1);

    protected TestDatabase db;

    protected abstract Backends backend();

    @BeforeEach
    void open() throws SQLException {
        db = backend().open();
        exec(backend().sql("CREATE TABLE ledger (consumer TEXT NOT NULL, message_id TEXT NOT NULL, amount INTEGER NOT NULL)"));
    }

    @AfterEach
    void close() {
        db.close();
    }

    protected Inbox partitioned(Duration retention, UnaryOperator<Inbox.Builder> more) {
        Inbox inbox = more.apply(Inbox.builder(db.dataSource()).retention(retention).retentionByPartition(WIDTH)).build();
        inbox.migrate();
        return inbox;
    }

    @Test
    @DisplayName("partitions dropped under concurrent deliveries: no live message is forgotten (its redelivery is a duplicate) and none is handled twice")
    void dropsUnderLoad() throws Exception {
        Duration longRetention = Duration.ofSeconds(30);
        Inbox live = partitioned(longRetention, b -> b);
        Inbox churn = partitioned(Duration.ofMillis(300), b -> b);
        RetentionPartitions partitions = live.retentionPartitions().orElseThrow();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger dropped = new AtomicInteger();
        AtomicReference<Throwable> maintenanceFailure = new AtomicReference<>();
        Thread maintainer = new Thread(() -> {
            try {
                while (!done.get()) {
                    dropped.addAndGet(partitions.maintain().dropped());
                    churn.purge(1_000);
                }
            } catch (Throwable e) {
                maintenanceFailure.set(e);
            }
        });
        maintainer.start();
        // Deliveries go on until a partition has been dropped under them (50 a thread at least).
        long loadUntil = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        try {
            Concurrently.call(4, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < 50 || (dropped.get() == 0 && System.nanoTime() < loadUntil); n++) {
                    if (random.nextInt(2) == 0) {
                        // Live messages, each delivered again and again: handled once, then duplicates.
                        String id = "live-" + random.nextInt(150);
                        live.process(CONSUMER, id, (c, m) -> insertLedger(c, m.id()));
                    } else if (random.nextInt(4) == 0) {
                        List<InboxMessage> batch = List.of(InboxMessage.of("live-" + random.nextInt(150)), InboxMessage.of("batch-" + n));
                        // Batches whose ids overlap other threads' ("batch-n" too): their locks are taken in one order.
                        live.processBatch(CONSUMER, batch, (c, m) -> insertLedger(c, m.id()));
                    } else {
                        // Churn: short lives that land in partitions which pass and are dropped while deliveries go on.
                        churn.process(CONSUMER, "short-" + random.nextInt(40), (c, m) -> { });
                    }
                }
                return null;
            });
        } finally {
            done.set(true);
            maintainer.join();
        }

        assertThat(maintenanceFailure.get()).isNull();
        assertThat(dropped.get()).as("partitions dropped during the run").isPositive();
        // The ledger holds the committed effects (a transaction run again leaves none of its first attempt).
        List<String> handled = column("SELECT message_id FROM ledger");
        assertThat(handled).as("effects").isNotEmpty().doesNotHaveDuplicates();
        for (String id : handled) {
            assertThat(live.process(CONSUMER, id, (c, m) -> insertLedger(c, m.id())).status())
                    .as("a redelivery of a live message after the drops").isEqualTo(Status.DUPLICATE);
        }
        assertThat(count("SELECT count(*) FROM ledger")).as("no effect added by the redeliveries").isEqualTo(handled.size());
        assertThat(count("SELECT count(*) FROM (SELECT 1 FROM idem_inbox GROUP BY consumer, message_id HAVING count(*) > 1) d"))
                .as("ids held twice").isZero();
    }

    @Test
    @DisplayName("by default purge drops a partition once its bound has passed instead of deleting rows, and a quarantined message outlives every drop")
    void purgeDropsPartitionsAndKeepsQuarantined() throws Exception {
        Inbox inbox = partitioned(Duration.ofMillis(1), b -> b.maxAttempts(1));
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> {
            throw new IllegalStateException("poison");
        }).status()).isEqualTo(Status.QUARANTINED);
        // Rows that expire at once, in a partition whose bound has not passed yet: the purge leaves them to its drop.
        long bound;
        String done;
        for (int round = 0; ; round++) {
            done = "done-" + round + "-";
            for (int i = 0; i < 20; i++) {
                inbox.process(CONSUMER, done + i, (c, m) -> { });
            }
            long expiry = Long.parseLong(single("SELECT max(expires_at) FROM idem_inbox WHERE message_id LIKE '" + done + "%'"));
            long earliest = Long.parseLong(single("SELECT min(expires_at) FROM idem_inbox WHERE message_id LIKE '" + done + "%'"));
            bound = partitions.partitions().stream().filter(p -> p.from() != null && p.from() <= expiry && expiry < p.to())
                    .findFirst().orElseThrow().to();
            // The 20 may straddle a partition boundary: the earlier partition's bound is the one that must not have passed.
            long firstBound = partitions.partitions().stream().filter(p -> p.from() != null && p.from() <= earliest && earliest < p.to())
                    .findFirst().orElseThrow().to();
            awaitDbTimePast(expiry);
            inbox.purge(1_000);
            if (dbNow() < firstBound) {
                break;
            }
            // The bound passed during the purge (a slow machine), which may have dropped them: again, in a later partition.
        }
        assertThat(count("SELECT count(*) FROM idem_inbox WHERE message_id LIKE '" + done + "%'"))
                .as("expired rows left to their partition").isEqualTo(20);

        awaitDbTimePast(bound);
        inbox.purge(1_000);

        assertThat(count("SELECT count(*) FROM idem_inbox WHERE message_id LIKE '" + done + "%'")).as("gone with their partition").isZero();
        long dropped = bound;
        assertThat(partitions.partitions()).noneMatch(p -> p.to() == dropped);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).as("quarantined after the drops").isEqualTo(Status.QUARANTINED);
        assertThat(inbox.replay(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.PROCESSED);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status())
                .as("replayed: a duplicate from now on").isEqualTo(Status.DUPLICATE);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(1);
    }

    @Test
    @DisplayName("an inbox built without the layout refuses a partitioned table, and the layout's settings are checked")
    void plainInboxRefusesAPartitionedTable() {
        partitioned(Duration.ofSeconds(30), b -> b);
        assertThatThrownBy(() -> Inbox.builder(db.dataSource()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
        assertThatThrownBy(() -> Inbox.builder(db.dataSource()).retentionByPartition(Duration.ofHours(1), Duration.ofDays(1)).build())
                .as("a horizon shorter than the retention").isInstanceOf(IllegalStateException.class).hasMessageContaining("retention");
        assertThatThrownBy(() -> Inbox.builder(db.dataSource()).purgeRowsBetweenDrops(true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("retentionByPartition");
        assertThatThrownBy(() -> Inbox.builder(db.dataSource()).retentionByPartition(Duration.ofDays(32)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("31 days");
    }

    // ---- converting a live table (RetentionPartitions.convert, as the key store's) --------------

    private static final String LEGACY = "idem_inbox_legacy";

    /** Today's unpartitioned inbox, with messages handled and one quarantined before any instance has the layout. */
    protected void unpartitionedWithHistory(Duration retention) {
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
    protected Inbox switched(Duration retention, Duration width) {
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
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).as("the old table is a partition").contains(LEGACY);
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
    @DisplayName("a converted inbox table is dropped whole once its cut-over has passed; its quarantined messages are in the kept partition by then and stay quarantined")
    void convertedTableIsDroppedOnceItsCutOverPasses() throws Exception {
        unpartitionedWithHistory(Duration.ofMillis(300));
        Inbox inbox = switched(Duration.ofMillis(300), Duration.ofMillis(500));
        RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
        partitions.convert();
        RetentionPartitions.Partition legacy = partitions.partitions().stream().filter(p -> p.name().equals(LEGACY)).findFirst().orElseThrow();
        // Quarantined after the conversion, before the cut-over (PostgreSQL: into the old table, which covers the kept range until it goes).
        assertThat(inbox.process(CONSUMER, "poison-after", (c, m) -> {
            throw new IllegalStateException("poison");
        }).status()).isEqualTo(Status.QUARANTINED);
        awaitDbTimePast(legacy.to());
        inbox.purge(1_000);
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name)
                .doesNotContain(legacy.name()).contains("idem_inbox_pkeep");
        assertThat(count("SELECT count(*) FROM idem_inbox WHERE message_id LIKE 'before-%'")).as("gone with the old table").isZero();
        assertThat(count("SELECT count(*) FROM idem_inbox WHERE expires_at < 1")).as("the quarantined rows, kept").isEqualTo(2);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.process(CONSUMER, "poison-after", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(inbox.replay(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.PROCESSED);
        assertThat(inbox.process(CONSUMER, "poison", (c, m) -> insertLedger(c, m.id())).status()).isEqualTo(Status.DUPLICATE);
        // Later drops work as on a table created partitioned: the kept partition stays.
        inbox.purge(1_000);
        assertThat(partitions.partitions()).extracting(RetentionPartitions.Partition::name).contains("idem_inbox_pkeep");
    }

    // ---- helpers ------------------------------------------------------------------------------

    protected static void insertLedger(Connection c, String messageId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (consumer, message_id, amount) VALUES (?, ?, 10)")) {
            ps.setString(1, CONSUMER);
            ps.setString(2, messageId);
            ps.executeUpdate();
        }
    }

    protected long count(String query) throws SQLException {
        return Long.parseLong(single(query));
    }

    protected long dbNow() throws SQLException {
        return Long.parseLong(single(backend() == Backends.MARIADB
                ? "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000"
                : "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint"));
    }

    /** Waits for the database's clock (which judges expiry) to pass {@code epochMs}. */
    protected void awaitDbTimePast(long epochMs) throws Exception {
        for (long ms = epochMs - dbNow(); ms >= 0; ms = epochMs - dbNow()) {
            Thread.sleep(Math.min(ms + 1, 200));
        }
    }

    protected List<String> column(String query) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    protected String single(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    protected void exec(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }
}
