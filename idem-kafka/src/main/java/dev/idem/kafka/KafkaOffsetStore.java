package dev.idem.kafka;

import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcComponentBuilder;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumed Kafka offsets kept in the database, per consumer group, topic and partition: the
 * {@linkplain IdempotentKafkaConsumer.Builder#offsetsInDatabase offsets-in-database mode} of the
 * idempotent consumer writes a partition's next offset in the <b>same transaction</b> as the inbox
 * claims and the business writes, and seeks to it when the partition is assigned; no offset is ever
 * committed to Kafka. A crash at any point leaves offsets and effects consistent: both committed, or
 * neither.
 *
 * <pre>{@code
 * KafkaOffsetStore offsets = KafkaOffsetStore.builder(dataSource).build();
 * offsets.migrate();                       // or run V5__create_idem_kafka_offset.sql by hand
 * }</pre>
 *
 * <p>The table ({@code idem_kafka_offset} by default) is created by the dialect's numbered migration
 * in {@code dev/idem/kafka/<postgresql|sqlite|mariadb>/}, applied by idem-jdbc's migrator (its history
 * in {@code <table>_schema_history}, under the dialect's migration lock), and its statements are
 * loaded and checked at {@link Builder#build()} by idem-jdbc's loader. Writes are upserts
 * ({@code INSERT … ON CONFLICT … DO UPDATE}, on MariaDB {@code ON DUPLICATE KEY UPDATE}); the last write
 * wins, as with a Kafka commit. Driver messages in its exceptions are redacted as idem-jdbc's are. Thread-safe.
 */
public final class KafkaOffsetStore {
    /** The default table name; the SQL files are written with it. */
    public static final String DEFAULT_TABLE = "idem_kafka_offset";


    /** Each call on a connection, a driver failure as a redacted StoreException naming the store. */
    private final StoreCalls calls;
    private final Dialect dialect;
    private final String tableName;
    private final Map<String, String> tableNames;
    private final SqlStatements.Source files;
    private final SqlStatements sql;

    private KafkaOffsetStore(DataSource dataSource, Dialect dialect, String tableName, SqlStatements.Source files) {
        this.calls = new StoreCalls(new Transactions(dataSource), dialect.displayName() + " Kafka offset store");
        this.dialect = dialect;
        this.tableName = tableName;
        this.tableNames = Map.of(DEFAULT_TABLE, tableName);
        this.files = files;
        this.sql = SqlStatements.load(dialect, files, "offsets.sql", tableNames, requiredStatements(dialect));
    }

    /** Every statement the offset store runs on {@code dialect}; checked when it is built. */
    static List<String> requiredStatements(Dialect dialect) {
        List<String> names = new ArrayList<>(List.of("offset_write", "offset_read"));
        names.addAll(Migrator.requiredStatements(dialect));
        return names;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Creates the offset table if its migrations have not run yet: each in its own transaction
     * under a lock (PostgreSQL: an advisory lock; SQLite: the write lock; MariaDB: a named lock),
     * safe when several instances start together.
     */
    public void migrate() {
        calls.migrate(new Migrator(dialect, sql, files.anchor(), DEFAULT_TABLE, tableNames));
    }

    /**
     * Writes the next offsets of the given partitions in the caller's transaction; does not commit.
     *
     * @param nextOffsets partition to the offset of the next record to consume (the last processed one + 1)
     * @throws IllegalStateException if the connection is in auto-commit mode
     */
    public void write(Connection connection, String groupId, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        Objects.requireNonNull(connection, "connection is null");
        checkGroup(groupId);
        Objects.requireNonNull(nextOffsets, "nextOffsets is null");
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("offsets must be written in the caller's transaction, but the connection is in auto-commit mode");
        }
        if (nextOffsets.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.get("offset_write"))) {
            for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                long offset = Objects.requireNonNull(e.getValue(), "offset is null");
                if (offset < 0) {
                    throw new IllegalArgumentException("offset must be >= 0, was " + offset + " for " + e.getKey());
                }
                ps.setString(1, groupId);
                ps.setString(2, e.getKey().topic());
                ps.setInt(3, e.getKey().partition());
                ps.setLong(4, offset);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** The stored next offsets of those of {@code partitions} that have one; in a short transaction of its own. */
    public Map<TopicPartition, Long> read(String groupId, Collection<TopicPartition> partitions) {
        checkGroup(groupId);
        Objects.requireNonNull(partitions, "partitions is null");
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : partitions) {
            topics.add(tp.topic());
        }
        return calls.onConnection("read offsets of group '" + groupId + "'", c -> read(c, groupId, topics, partitions));
    }

    private Map<TopicPartition, Long> read(Connection c, String groupId, Set<String> topics, Collection<TopicPartition> partitions)
            throws SQLException {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (String topic : topics) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("offset_read"))) {
                ps.setString(1, groupId);
                ps.setString(2, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        TopicPartition tp = new TopicPartition(topic, rs.getInt(1));
                        if (partitions.contains(tp)) {
                            out.put(tp, rs.getLong(2));
                        }
                    }
                }
            }
        }
        return out;
    }

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableName;
    }

    @Override
    public String toString() {
        return "KafkaOffsetStore[" + dialect.displayName() + ", table=" + tableName + "]";
    }

    static String checkGroup(String groupId) {
        if (groupId == null || groupId.isEmpty() || groupId.length() > 255) {
            throw new IllegalArgumentException("group id must have 1-255 characters, was "
                    + (groupId == null ? "null" : groupId.length() + " characters"));
        }
        return groupId;
    }

    /** Settings of a {@link KafkaOffsetStore}; each setter validates its value. */
    public static final class Builder extends JdbcComponentBuilder<Builder> {
        private SqlStatements.Source sqlSource = SqlStatements.Source.of(KafkaOffsetStore.class);

        /** The table defaults to {@code idem_kafka_offset}. */
        private Builder(DataSource dataSource) {
            super(dataSource, null, DEFAULT_TABLE);
        }

        /** Test seam: where the SQL is read from, e.g. the dialect's files with a statement left out. */
        Builder sqlSource(SqlStatements.Source sqlSource) {
            this.sqlSource = Objects.requireNonNull(sqlSource, "sqlSource is null");
            return this;
        }

        /**
         * @throws StoreException        if the dialect must be detected and the database cannot be reached
         * @throws IllegalStateException if the dialect's SQL lacks a statement the store runs
         */
        public KafkaOffsetStore build() {
            if (configuredDialect() != null) {
                return new KafkaOffsetStore(dataSource(), configuredDialect(), tableName(), sqlSource);
            }
            return new KafkaOffsetStore(dataSource(), StoreCalls.atBuild(dataSource(), "Kafka offset store", Dialect::detect), tableName(),
                    sqlSource);
        }
    }
}
