package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxBatchHandler;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Part {@code peers}: what a user would pick instead of idem's inbox to tell a new message from a
 * repeat, on the same PostgreSQL, one consumer thread: Spring Integration's
 * {@code JdbcMetadataStore.putIfAbsent} (the store behind its idempotent receiver) and Camel's
 * {@code JdbcMessageIdRepository.add} (camel-sql's idempotent repository), against idem's
 * {@link Inbox} claim with no effect of its own: per message (one transaction each) and batched
 * (one transaction for {@value #BATCH} messages by default; the peers through Spring's {@link TransactionTemplate},
 * their calls joining it). Their tables are made with their documented DDL, in a schema of their own.
 */
final class PeerInboxBench {
    static final int BATCH = 100;
    static final String SCHEMA = "idem_peers";
    static final String CONSUMER = "peers";
    /** The effect of the one-row handler lines: what a real handler writes beside its dedupe. */
    static final String EFFECT_DDL = "CREATE TABLE peer_effect (message_id VARCHAR(100) NOT NULL)";
    /** spring-integration-jdbc's schema-postgresql.sql, the metadata store's table. */
    static final String SPRING_DDL = "CREATE TABLE INT_METADATA_STORE (METADATA_KEY VARCHAR(255) NOT NULL, METADATA_VALUE VARCHAR(4000),"
            + " REGION VARCHAR(100) NOT NULL, constraint INT_METADATA_STORE_PK primary key (METADATA_KEY, REGION))";
    /** camel-sql's JdbcMessageIdRepository default create statement. */
    static final String CAMEL_DDL = "CREATE TABLE CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255), messageId VARCHAR(100),"
            + " createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId))";

    private final Options options;
    private final Postgres pg;
    private final int batch;

    PeerInboxBench(Options options, Postgres pg) {
        this(options, pg, BATCH);
    }

    /** With batches of {@code batch} messages (the smoke test's are small). */
    PeerInboxBench(Options options, Postgres pg, int batch) {
        this.options = options;
        this.pg = pg;
        this.batch = batch;
    }

    List<Row> run() throws Exception {
        pg.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE", "CREATE SCHEMA " + SCHEMA,
                inSchema(SPRING_DDL), inSchema(CAMEL_DDL), inSchema(EFFECT_DDL));
        try (HikariDataSource ds = pool()) {
            Inbox inbox = Inbox.builder(ds).tableName("peers_inbox").quarantineTableName("peers_quarantine").build();
            inbox.migrate();
            TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(ds));
            JdbcMetadataStore spring = new JdbcMetadataStore(ds);
            spring.afterPropertiesSet();
            JdbcMessageIdRepository camel = new JdbcMessageIdRepository(ds, transactions, CONSUMER);
            camel.setCreateTableIfNotExists(false);
            camel.start();
            try {
                Claims claims = new Claims(inbox, id -> spring.putIfAbsent(id, "1") == null, camel::add, transactions);
                List<Row> rows = new ArrayList<>(perMessageRows(claims));
                rows.addAll(batchedRows(claims, rows.get(0).measured()));
                rows.addAll(oneRowHandlerRows(claims, new org.springframework.jdbc.core.JdbcTemplate(ds)));
                return rows;
            } finally {
                camel.stop();
            }
        }
    }

    /** The three ways to claim one id, and the transactions the peers' batches run in. */
    private record Claims(Inbox inbox, Predicate<String> spring, Predicate<String> camel, TransactionTemplate transactions) {
        boolean idem(String id) {
            return inbox.process(CONSUMER, id, (c, m) -> {
            }).status() == InboxOutcome.Status.PROCESSED;
        }

        boolean idemBatch(List<String> ids) {
            InboxBatchHandler nothing = (c, messages) -> {
            };
            return inbox.processBatchAtOnce(CONSUMER, ids.stream().map(InboxMessage::of).toList(), nothing).stream()
                    .allMatch(o -> o.status() == InboxOutcome.Status.PROCESSED);
        }
    }

    private List<Row> perMessageRows(Claims claims) throws InterruptedException {
        Bench.progress("peers: per message, idem Inbox.process");
        Measured idem = perMessage(claims::idem);
        Bench.progress("peers: per message, Spring Integration JdbcMetadataStore.putIfAbsent");
        Measured spring = perMessage(claims.spring());
        Bench.progress("peers: per message, Camel JdbcMessageIdRepository.add");
        Measured camel = perMessage(claims.camel());
        return List.of(
                new Row("peers", "claim per message: idem Inbox.process", "PostgreSQL", 1, idem, "msg/s", null, Double.NaN,
                        "claim, no effect; 1 tx each"),
                new Row("peers", "claim per message: Spring Integration JdbcMetadataStore.putIfAbsent", "PostgreSQL", 1, spring,
                        "msg/s", null, Double.NaN, "auto-commit").compare("idem", idem),
                new Row("peers", "claim per message: Camel JdbcMessageIdRepository.add", "PostgreSQL", 1, camel, "msg/s", null,
                        Double.NaN, "SELECT COUNT + INSERT, 1 tx each").compare("idem", idem));
    }

    /**
     * Per message with a handler that writes one row: the dedupe and the handler's row in one
     * transaction for all three (idem's handler gets the claim's connection; the peers' calls and the
     * row join a {@link TransactionTemplate}). A no-op handler favours a peer whose dedupe runs in
     * auto-commit, apart from the handler's writes; a real handler must be atomic with its dedupe.
     */
    private List<Row> oneRowHandlerRows(Claims claims, org.springframework.jdbc.core.JdbcTemplate jdbc) throws InterruptedException {
        String insert = "INSERT INTO peer_effect (message_id) VALUES (?)";
        Bench.progress("peers: per message with a one-row handler, idem Inbox.process");
        Measured idem = perMessage(id -> claims.inbox().process(CONSUMER, id, (c, m) -> {
            try (java.sql.PreparedStatement row = c.prepareStatement(insert)) {
                row.setString(1, m.id());
                row.executeUpdate();
            }
        }).status() == InboxOutcome.Status.PROCESSED);
        Bench.progress("peers: per message with a one-row handler, Spring Integration putIfAbsent + row");
        Measured spring = perMessage(id -> withRow(claims.transactions(), jdbc, insert, id, claims.spring()));
        Bench.progress("peers: per message with a one-row handler, Camel add + row");
        Measured camel = perMessage(id -> withRow(claims.transactions(), jdbc, insert, id, claims.camel()));
        String oneRow = "one-row handler per message (1 tx): ";
        return List.of(
                new Row("peers", oneRow + "idem Inbox.process", "PostgreSQL", 1, idem, "msg/s", null, Double.NaN,
                        "claim + the handler's row"),
                new Row("peers", oneRow + "Spring Integration putIfAbsent + row", "PostgreSQL", 1, spring, "msg/s", null,
                        Double.NaN, "TransactionTemplate").compare("idem", idem),
                new Row("peers", oneRow + "Camel add + row", "PostgreSQL", 1, camel, "msg/s", null, Double.NaN,
                        "TransactionTemplate").compare("idem", idem));
    }

    /** The peer's dedupe, then (for a new id) the handler's row, in one transaction. */
    private static boolean withRow(TransactionTemplate transactions, org.springframework.jdbc.core.JdbcTemplate jdbc, String insert,
            String id, Predicate<String> claim) {
        Boolean fresh = transactions.execute(status -> {
            if (!claim.test(id)) {
                return false;
            }
            jdbc.update(insert, id);
            return true;
        });
        return Boolean.TRUE.equals(fresh);
    }

    private List<Row> batchedRows(Claims claims, Measured idemPerMessage) throws InterruptedException {
        Bench.progress("peers: batched " + batch + ", idem processBatchAtOnce");
        Measured idem = batched(claims::idemBatch);
        Bench.progress("peers: batched " + batch + ", Spring Integration in one transaction");
        Measured spring = batched(ids -> inOneTransaction(claims.transactions(), ids, claims.spring()));
        Bench.progress("peers: batched " + batch + ", Camel in one transaction");
        Measured camel = batched(ids -> inOneTransaction(claims.transactions(), ids, claims.camel()));
        String batched = "batched " + batch + " (1 tx): ";
        return List.of(
                new Row("peers", batched + "idem processBatchAtOnce", "PostgreSQL", 1, idem, "msg/s", null, Double.NaN,
                        "one claim statement").compare("idem per message", idemPerMessage),
                new Row("peers", batched + "Spring Integration putIfAbsent each", "PostgreSQL", 1, spring, "msg/s", null,
                        Double.NaN, "TransactionTemplate").compare("idem", idem),
                new Row("peers", batched + "Camel add each", "PostgreSQL", 1, camel, "msg/s", null, Double.NaN,
                        "TransactionTemplate").compare("idem", idem));
    }

    private static String inSchema(String ddl) {
        return ddl.replace("CREATE TABLE ", "CREATE TABLE " + SCHEMA + ".");
    }

    private HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.url);
        config.setSchema(SCHEMA);
        config.setMaximumPoolSize(2);
        config.setPoolName("bench-peers");
        return new HikariDataSource(config);
    }

    private static boolean inOneTransaction(TransactionTemplate transactions, List<String> ids, Predicate<String> claim) {
        Boolean all = transactions.execute(status -> ids.stream().allMatch(claim));
        return Boolean.TRUE.equals(all);
    }

    private Measured perMessage(Predicate<String> claim) throws InterruptedException {
        return LoadLoop.run(1, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                if (!claim.test(StoreBench.newKey(random))) {
                    throw new AssertionError("a new message id was taken for a repeat");
                }
            };
        });
    }

    private Measured batched(Predicate<List<String>> claimAll) throws InterruptedException {
        return LoadLoop.run(1, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                List<String> ids = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                    ids.add(StoreBench.newKey(random));
                }
                if (!claimAll.test(ids)) {
                    throw new AssertionError("a new message id was taken for a repeat");
                }
            };
        }).withUnits(batch);
    }
}
